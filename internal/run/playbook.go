package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/hostfs"
	"github.com/openpocket/openpocket/internal/atomicfile"
	"github.com/openpocket/openpocket/internal/workspace"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/playbooks"
	"github.com/openpocket/openpocket/stdlib"
	"github.com/openpocket/openpocket/stdlib/aistep"
	"github.com/openpocket/openpocket/stdlib/assets"
	"github.com/openpocket/openpocket/stdlib/visual"
)

// PlaybookOptions name one playbook run.
type PlaybookOptions struct {
	Target
	// File is the playbook's path (its name in reports and errors).
	File string
	// Compiled is the playbook already compiled (the CLI compiles first to
	// print warnings); nil compiles File with Params.
	Compiled *playbooks.Result
	Params   map[string]string
	// OutputDir is the directory under which the run's own directory is
	// created ("" = StateDir/runs).
	OutputDir string
	// Timeout aborts the run (0 = no limit).
	Timeout time.Duration
	// StepScreenshots saves the screen after each UI step as
	// steps/NNN.png in the run's directory (StepReport.Screenshot).
	StepScreenshots bool
	// Around, when set, is called once the device is ready, before the
	// playbook runs (a screen recorder starts there); the func it returns
	// is called with the result and returns more artifacts to keep. logf
	// writes to the run's log.txt.
	Around func(sess *engine.Session, logf func(string, ...any)) (after func(PlaybookResult) []string)
	// Events receives this run's events (nil: subscribers only).
	Events func(Event)
	// AIRefresh resolves every AI step again (--ai-refresh); NoAI fails
	// every AI step that would call a model, without calling (--no-ai).
	AIRefresh, NoAI bool
}

// StepReport is one executed playbook step as steps.json records it.
type StepReport struct {
	ID         string `json:"id"` // "3", "4.1", "on_start.1"…
	Label      string `json:"label"`
	File       string `json:"file,omitempty"`
	Line       int    `json:"line,omitempty"`
	Depth      int    `json:"depth,omitempty"`
	Status     string `json:"status"`
	DurationMs int64  `json:"durationMs"`
	Error      string `json:"error,omitempty"`
	// Note is what a passed step has to say (an AI step "re-resolved").
	Note       string `json:"note,omitempty"`
	Screenshot string `json:"screenshot,omitempty"` // the screen after a UI step, relative to the run's directory
}

// PlaybookResult is one playbook run (steps.json's format).
type PlaybookResult struct {
	Name       string       `json:"name"`
	File       string       `json:"file"`
	Status     string       `json:"status"` // passed | failed
	DurationMs int64        `json:"durationMs"`
	Error      string       `json:"error,omitempty"`
	OutputDir  string       `json:"outputDir,omitempty"`
	Steps      []StepReport `json:"steps"`
	Artifacts  []string     `json:"artifacts,omitempty"`
}

// Passed reports whether the playbook passed.
func (r PlaybookResult) Passed() bool { return r.Status == "passed" }

// CompilePlaybook reads and compiles one playbook and checks that the Lua
// it generates compiles, reporting a syntax error at the YAML line of its
// step. The result carries the warnings even when err is not nil.
func CompilePlaybook(file string, params map[string]string, lint bool) (*playbooks.Result, error) {
	// A regular file only, opened non-blocking: a FIFO a model left at a
	// job's playbook path must not hang the gateway.
	src, err := hostfs.ReadRegular(file, maxPlaybookBytes)
	if err != nil {
		return nil, err
	}
	return CompilePlaybookSource(file, src, params, lint)
}

// maxPlaybookBytes caps a playbook or an included one.
const maxPlaybookBytes = 4 << 20

// readInclude reads a playbook a run step includes: a regular file only,
// never blocking on a FIFO.
func readInclude(path string) ([]byte, string, error) {
	b, err := hostfs.ReadRegular(path, maxPlaybookBytes)
	return b, filepath.Clean(path), err
}

// CompilePlaybookIn is CompilePlaybook confined to root: the playbook and
// every playbook it includes are read through an os.Root there
// (engine/hostfs: no "..", absolute path or link out, no FIFO), so a file
// outside is refused before a byte of it is read and no compile error can
// quote it. file is absolute inside root or relative to it. An empty root
// is CompilePlaybook.
func CompilePlaybookIn(root, file string, params map[string]string, lint bool) (*playbooks.Result, error) {
	if root == "" {
		return CompilePlaybook(file, params, lint)
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(root, file)
	}
	src, err := hostfs.ReadFile(root, file, maxPlaybookBytes)
	if err != nil {
		return nil, err
	}
	return CompilePlaybookSourceIn(root, file, src, params, lint)
}

// CompilePlaybookSource is CompilePlaybook for source already read.
func CompilePlaybookSource(file string, src []byte, params map[string]string, lint bool) (*playbooks.Result, error) {
	return compileSource(file, src, params, lint, readInclude)
}

// CompilePlaybookSourceIn is CompilePlaybookSource whose includes are read
// inside root only, as CompilePlaybookIn's are (an inline playbook a client
// sent); an empty root is CompilePlaybookSource.
func CompilePlaybookSourceIn(root, file string, src []byte, params map[string]string, lint bool) (*playbooks.Result, error) {
	if root == "" {
		return CompilePlaybookSource(file, src, params, lint)
	}
	return compileSource(file, src, params, lint, func(path string) ([]byte, string, error) {
		b, err := hostfs.ReadFile(root, path, maxPlaybookBytes)
		return b, filepath.Clean(path), err
	})
}

// compileSource compiles src, reading includes with include.
func compileSource(file string, src []byte, params map[string]string, lint bool, include func(string) ([]byte, string, error)) (*playbooks.Result, error) {
	res, err := playbooks.CompileWithMap(src, playbooks.Options{File: file, Params: params, Lint: lint, ResolveInclude: include})
	if err != nil {
		return res, err
	}
	if err := lua.CheckSyntax(res.Chunk, res.Lua, res.Map.VMFunc(res.Chunk)); err != nil {
		var se *lua.ScriptError
		if errors.As(err, &se) && se.Line > 0 {
			// The column is the generated Lua's, meaningless in the YAML.
			msg := luaColumn.ReplaceAllString(se.Message, "")
			return res, fmt.Errorf("%s:%d: the Lua of this step does not compile: %s", se.Chunk, se.Line, msg)
		}
		return res, fmt.Errorf("%s: the generated Lua does not compile: %w", file, err)
	}
	return res, nil
}

var luaColumn = regexp.MustCompile(` \(column \d+\)`)

// Playbook runs one compiled playbook in a fresh session and VM and writes
// its output directory: log.txt, steps.json, playbook.lua and, on failure,
// the screen and UI dump at that moment. A playbook that fails is a result
// with Status "failed", not an error; err is only a compile error (with
// Compiled nil).
func (s *Service) Playbook(ctx context.Context, o PlaybookOptions) (PlaybookResult, error) {
	res := o.Compiled
	if res == nil {
		var err error
		if res, err = CompilePlaybook(o.File, o.Params, false); err != nil {
			return PlaybookResult{Name: o.File, File: o.File, Status: "failed", Error: err.Error(), Steps: []StepReport{}}, err
		}
	}
	name := res.Meta.Name
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(o.File), filepath.Ext(o.File))
	}
	rec := &stepRecorder{started: map[string]time.Time{}}
	lc := s.begin(RunPlaybook, name, o.Target, o.Events)
	lc.observe = rec.onEvent
	fr := s.playCompiled(ctx, lc, name, o, res, rec)
	lc.end(fr.Status == "passed", orText(fr.Error, "playbook "+fr.Status), "")
	return fr, nil
}

// playCompiled is Playbook's lifecycle: output directory, session, VM,
// run, finish.
func (s *Service) playCompiled(ctx context.Context, lc *lifecycle, name string, o PlaybookOptions, res *playbooks.Result, rec *stepRecorder) PlaybookResult {
	start := time.Now()
	fr := PlaybookResult{Name: name, File: o.File, Steps: []StepReport{}}
	fail := func(err error) PlaybookResult {
		fr.Status, fr.Error = "failed", err.Error()
		fr.DurationMs = time.Since(start).Milliseconds()
		return fr
	}
	dir, logFile, err := s.playOutput(lc, name, o.OutputDir, res, start)
	fr.OutputDir = dir
	if err != nil {
		return fail(err)
	}
	defer logFile.Close()
	runLog, logf := s.runLoggers(logFile, res.Secrets)
	rec.logf = logf
	sess, err := lc.playSession(ctx, name, dir, runLog, res.UsesAI && !o.NoAI)
	if err != nil {
		return fail(err)
	}
	if o.StepScreenshots {
		rec.shoot = stepShooter(sess, dir)
	}
	var after func(PlaybookResult) []string
	if o.Around != nil {
		after = o.Around(sess, logf)
	}
	reg, closeRoot, err := s.playRegistry(lc, o)
	if err != nil {
		return fail(err)
	}
	defer closeRoot()
	vm, err := stdlib.NewVMWith(sess.Context(), reg, sess, lua.Options{
		Timeout:   o.Timeout,
		Print:     func(s string) { runLog.Info(s) },
		SourceMap: res.Map.VMFunc(res.Chunk),
		Globals:   res.Globals(), // secret parameters, kept out of playbook.lua
	})
	if err != nil {
		sess.Finish(false, err.Error())
		return fail(err)
	}
	logf("start %s (%s)", name, o.File)
	runErr := vm.Run(res.Chunk, res.Lua)
	vm.Close()
	fr.Steps = rec.result()
	fr.DurationMs = time.Since(start).Milliseconds()
	lc.finishPlaybook(ctx, sess, dir, runErr, rec, &fr, logf)
	if after != nil {
		fr.Artifacts = append(fr.Artifacts, after(fr)...)
	}
	if err := writeStepsJSON(filepath.Join(dir, "steps.json"), fr); err != nil {
		logf("steps.json: %v", err)
	} else {
		lc.artifact(filepath.Join(dir, "steps.json"), "steps")
	}
	return fr
}

// playOutput creates the run's own directory under outRoot (StateDir/runs
// when empty) with log.txt, open for the run's log, and playbook.lua. dir
// is set once the directory exists, also when log.txt cannot be created.
func (s *Service) playOutput(lc *lifecycle, name, outRoot string, res *playbooks.Result, start time.Time) (dir string, logFile *os.File, err error) {
	if outRoot == "" {
		outRoot = filepath.Join(s.cfg.StateDir, "runs")
	}
	// Created exclusively: a second run in the same second gets its own.
	dir, err = workspace.CreateRunDir(outRoot, start.Format("20060102-150405")+"-"+workspace.SafeName(name))
	if err != nil {
		return "", nil, err
	}
	logFile, err = os.Create(filepath.Join(dir, "log.txt"))
	if err != nil {
		return dir, nil, err
	}
	lc.artifact(logFile.Name(), "log")
	if atomicfile.WriteFile(filepath.Join(dir, "playbook.lua"), res.Lua, 0o644) == nil {
		lc.artifact(filepath.Join(dir, "playbook.lua"), "lua")
	}
	return dir, logFile, nil
}

// runLoggers are a playbook run's loggers: runLog reaches the runtime's
// logger and log.txt (the run's own lines, Lua's log.* and print, all in
// one human format); logf writes a line to log.txt only. Both mask the
// values of secret parameters.
func (s *Service) runLoggers(logFile *os.File, secrets map[string]any) (runLog *slog.Logger, logf func(string, ...any)) {
	fileHandler := redacting(s.cfg.LogHandler(logFile, slog.LevelDebug), secrets)
	runLog = slog.New(redacting(slog.NewMultiHandler(s.cfg.Logger.Handler(), fileHandler), secrets))
	fileLog := slog.New(fileHandler)
	return runLog, func(format string, args ...any) { fileLog.Info(fmt.Sprintf(format, args...)) }
}

// playSession starts the run's engine session (artifacts in dir) and
// readies its device; a device that stays locked finishes the session.
func (lc *lifecycle) playSession(ctx context.Context, name, dir string, runLog *slog.Logger, model bool) (*engine.Session, error) {
	eng, err := lc.engine(engineOptions{logger: runLog, modelIfAny: model})
	if err != nil {
		return nil, err
	}
	sess, err := lc.session(ctx, eng, engine.SessionOptions{Task: name, ArtifactsDir: dir})
	if err != nil {
		return nil, err
	}
	if err := lc.ready(sess); err != nil {
		sess.Finish(false, err.Error())
		return nil, err
	}
	return sess, nil
}

// playRegistry is the run's module set plus the playbook runtime and, when
// the playbook's directory opens, the visual and assets modules rooted
// there. closeRoot releases that directory once the run is over.
func (s *Service) playRegistry(lc *lifecycle, o PlaybookOptions) (reg *lua.Registry, closeRoot func(), err error) {
	file := o.File
	reg = lc.registry()
	closeRoot = func() {}
	if err := reg.RegisterSource(playbooks.RuntimeModule, playbooks.RuntimeSource); err != nil {
		return nil, closeRoot, err
	}
	// AI steps keep their answers in <playbook>.ai.json beside it.
	if err := reg.Register(aistep.New(aistep.Options{Playbook: file, Refresh: o.AIRefresh, NoAI: o.NoAI})); err != nil {
		return nil, closeRoot, err
	}
	if root, err := os.OpenRoot(filepath.Dir(file)); err == nil {
		// References and assets live next to the playbook, and only there.
		if err := errors.Join(reg.Register(visual.New(root)), reg.Register(assets.New(root))); err != nil {
			root.Close()
			return nil, closeRoot, err
		}
		closeRoot = func() { root.Close() }
	}
	return reg, closeRoot, nil
}

// finishPlaybook records the run's outcome in fr, log.txt and the session:
// a failure names the step it interrupted and, unless the run was
// cancelled, keeps the screen and UI dump of that moment.
func (lc *lifecycle) finishPlaybook(ctx context.Context, sess *engine.Session, dir string, runErr error, rec *stepRecorder, fr *PlaybookResult, logf func(string, ...any)) {
	if runErr != nil {
		fr.Status, fr.Error = "failed", interruptedAt(runErr, rec).Error()
		logf("FAILED: %s", fr.Error)
		if ctx.Err() == nil {
			fr.Artifacts = captureFailure(sess, dir)
			for _, p := range fr.Artifacts {
				lc.artifact(p, "failure_"+strings.TrimPrefix(filepath.Ext(p), "."))
			}
		}
		sess.Finish(false, runErr.Error())
		return
	}
	fr.Status = "passed"
	logf("passed in %s", FormatMs(fr.DurationMs))
	sess.Finish(true, "playbook passed")
}

// stepRecorder turns the flow runtime's step events into step reports.
type stepRecorder struct {
	mu      sync.Mutex
	steps   []StepReport
	started map[string]time.Time
	// running is the stack of steps started and not yet ended (nested
	// steps above their parent), so an interruption names the YAML line
	// of the step that was running.
	running []StepReport
	logf    func(format string, args ...any)
	shoot   func(n int) string // nil: no screenshots after UI steps
}

func (r *stepRecorder) onEvent(ev Event) {
	if ev.Step == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	st := *ev.Step
	switch ev.Kind {
	case KindStepStart:
		r.started[st.ID] = time.Now()
		r.running = append(r.running, StepReport{ID: st.ID, Label: st.Label, File: st.File, Line: st.Line, Depth: st.Depth})
	case KindStepEnd:
		if st.DurationMs == 0 {
			if t, ok := r.started[st.ID]; ok {
				st.DurationMs = time.Since(t).Milliseconds()
				ev.Step.DurationMs = st.DurationMs // renderers see the same duration
			}
		}
		rep := StepReport{ID: st.ID, Label: st.Label, File: st.File, Line: st.Line, Depth: st.Depth,
			Status: st.Status, DurationMs: st.DurationMs, Error: st.Error}
		rep.Note, _ = ev.Fields["note"].(string)
		if ui, _ := ev.Fields["ui"].(bool); ui && r.shoot != nil && st.Status != "skipped" {
			rep.Screenshot = r.shoot(len(r.steps) + 1)
		}
		r.steps = append(r.steps, rep)
		if n := len(r.running); n > 0 && r.running[n-1].ID == st.ID {
			r.running = r.running[:n-1]
		}
		if r.logf != nil {
			r.logf("%s %s %s", st.Status, st.Label, st.Error)
		}
	}
}

// current is the innermost step running now, if any.
func (r *stepRecorder) current() (StepReport, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.running) == 0 {
		return StepReport{}, false
	}
	return r.running[len(r.running)-1], true
}

func (r *stepRecorder) result() []StepReport {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]StepReport{}, r.steps...)
}

// interruptedAt names the YAML step that was running when a timeout or
// Ctrl-C stopped the run: the VM can only place it in the flow runtime's
// Lua, which means nothing to the playbook's author.
func interruptedAt(err error, rec *stepRecorder) error {
	var se *lua.ScriptError
	if !errors.As(err, &se) || se.Kind != lua.KindCanceled {
		return err
	}
	st, ok := rec.current()
	if !ok || st.File == "" {
		return err
	}
	what := "interrupted"
	if errors.Is(err, context.DeadlineExceeded) {
		what = se.Message // "run exceeded its timeout of 2s"
	}
	return wrapped{msg: fmt.Sprintf("%s:%d: %s: %s", st.File, st.Line, st.Label, what), err: err}
}

// wrapped replaces an error's message and keeps it for errors.Is/As.
type wrapped struct {
	msg string
	err error
}

func (w wrapped) Error() string { return w.msg }
func (w wrapped) Unwrap() error { return w.err }

// captureFailure saves the screen and the UI dump at the moment of failure.
func captureFailure(sess *engine.Session, dir string) []string {
	phone, err := sess.Phone()
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out []string
	if png, err := phone.Screencap(ctx); err == nil {
		p := filepath.Join(dir, "failure.png")
		if atomicfile.WriteFile(p, png, 0o644) == nil {
			out = append(out, p)
		}
	}
	if xml, err := phone.Transport().ExecOut(ctx, "uiautomator dump /dev/tty"); err == nil {
		p := filepath.Join(dir, "failure.xml")
		if atomicfile.WriteFile(p, xml, 0o644) == nil {
			out = append(out, p)
		}
	}
	return out
}

// stepShooter saves the screen after a UI step as steps/NNN.png in the
// run's directory and returns that relative path ("" when it failed).
func stepShooter(sess *engine.Session, dir string) func(n int) string {
	return func(n int) string {
		phone, err := sess.Phone()
		if err != nil {
			return ""
		}
		png, err := phone.Screencap(sess.Context())
		if err != nil {
			return ""
		}
		rel := filepath.Join("steps", fmt.Sprintf("%03d.png", n))
		if os.MkdirAll(filepath.Join(dir, "steps"), 0o755) != nil || atomicfile.WriteFile(filepath.Join(dir, rel), png, 0o644) != nil {
			return ""
		}
		return rel
	}
}

// writeStepsJSON writes a run's steps.json atomically.
func writeStepsJSON(path string, fr PlaybookResult) error {
	b, err := json.MarshalIndent(fr, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o644)
}

// FormatMs prints a duration in milliseconds the way run output does
// ("850ms", "1.2s").
func FormatMs(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%dms", ms)
	}
	return fmt.Sprintf("%.1fs", float64(ms)/1000)
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
