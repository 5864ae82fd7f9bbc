package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/atomicfile"
	"github.com/openpocket/openpocket/internal/workspace"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/playbooks"
	"github.com/openpocket/openpocket/stdlib"
	"github.com/openpocket/openpocket/stdlib/assets"
	"github.com/openpocket/openpocket/stdlib/visual"
)

// PlayCmd runs playbooks.
type PlayCmd struct {
	Paths       []string          `arg:"" help:"Playbook files or directories (their *.yaml files)." type:"path"`
	Env         map[string]string `short:"e" help:"Set a playbook param (repeatable): -e KEY=VALUE. With several playbooks, those that do not declare KEY ignore it." placeholder:"KEY=VALUE"`
	IncludeTags []string          `help:"Run only playbooks with one of these tags." sep:","`
	ExcludeTags []string          `help:"Skip playbooks with one of these tags." sep:","`
	Report      string            `help:"Write a JUnit XML report to FILE." placeholder:"FILE" type:"path"`
	ReportJSON  string            `name:"report-json" help:"Write a JSON report (every playbook with its steps) to FILE." placeholder:"FILE" type:"path"`
	Output      string            `help:"Directory for each run's log, steps.json and failure artifacts (default: HOME/state/runs)." placeholder:"DIR" type:"path"`
	DryRun      bool              `help:"Compile and print the plan of each selected playbook without a device."`
	Timeout     time.Duration     `help:"Abort a playbook that runs longer than this (0 = no limit)." default:"0"`
	ReportHTML  string            `name:"report-html" help:"Write an HTML report (one page per run, a screenshot after each UI step) to DIR." placeholder:"DIR" type:"path"`
	Record      bool              `help:"Record the screen with the device's screenrecord (chunked past 3 minutes); kept as mp4 when the run fails."`
	RecordKeep  string            `name:"record-keep" help:"Keep recordings of: failure (default) or always." enum:"failure,always" default:"failure"`
	RecordLimit time.Duration     `name:"record-limit" help:"Longest recording per playbook." default:"10m"`
	Watch       bool              `help:"Run again whenever a playbook or a sub-flow it includes changes, until Ctrl-C."`
}

// playOptions are the per-invocation extras playCompiled honours.
type playOptions struct {
	shots       bool // a screenshot after each UI step (for the HTML report)
	record      bool
	recordAll   bool
	recordLimit time.Duration
}

// Run compiles, filters and runs each playbook, prints a summary and
// exits 0 only if all passed.
func (c *PlayCmd) Run(app *App) error {
	files, err := expandPlaybooks(c.Paths)
	if err != nil {
		return UsageError{err}
	}
	if c.DryRun {
		return dryRun(app, files, c)
	}
	app.play = playOptions{shots: c.ReportHTML != "", record: c.Record, recordAll: c.RecordKeep == "always", recordLimit: c.RecordLimit}
	for {
		err := c.runOnce(app, files)
		if !c.Watch || !waitForChange(app.Ctx, files) {
			return err
		}
		if err != nil {
			fmt.Fprintf(app.Stderr, "%v\n", err)
		}
		fmt.Fprintf(app.Stdout, "\nchange detected: running again\n")
	}
}

// runOnce runs every selected playbook once and writes the reports.
func (c *PlayCmd) runOnce(app *App, files []string) error {
	var html *htmlReport
	if c.ReportHTML != "" {
		html = &htmlReport{dir: c.ReportHTML}
	}
	outRoot := c.Output
	if outRoot == "" {
		h, err := app.home()
		if err != nil {
			return err
		}
		outRoot = filepath.Join(h.State(), "runs")
	}
	if err := workspace.CheckWritableDir(outRoot); err != nil {
		return UsageError{fmt.Errorf("--output %s: run output cannot be written there: %w", outRoot, err)}
	}
	var flows []FlowReport
	for i, f := range files {
		if !fileSelected(f, c.IncludeTags, c.ExcludeTags) {
			continue
		}
		res, err := compilePlaybook(app, f, playbookParams{values: c.Env, shared: len(files) > 1})
		if err != nil {
			fmt.Fprintln(app.Stderr, strings.TrimSpace(err.Error()))
			flows = append(flows, FlowReport{Name: f, File: f, Status: "failed", Error: err.Error(), Steps: []StepReport{}})
			continue
		}
		fmt.Fprintf(app.Stdout, "[%d/%d] %s (%s)\n", i+1, len(files), res.Meta.Name, f)
		started := time.Now()
		fr := app.playCompiled(app.Ctx, f, res, outRoot, c.Timeout, app.Stdout)
		flows = append(flows, fr)
		if html != nil {
			if err := html.add(fr, started); err != nil {
				fmt.Fprintf(app.Stderr, "html report: %v\n", err)
			}
		}
		if errors.Is(app.Ctx.Err(), context.Canceled) {
			break
		}
	}
	if err := c.writeReports(flows); err != nil {
		return err
	}
	err := app.playSummary(flows)
	if html != nil && len(html.runs) > 0 {
		fmt.Fprintf(app.Stdout, "html report: %s\n", filepath.Join(c.ReportHTML, "index.html"))
	}
	return err
}

// writeReports writes the JUnit and JSON reports asked for.
func (c *PlayCmd) writeReports(flows []FlowReport) error {
	if c.Report != "" {
		if err := writeJUnit(c.Report, flows); err != nil {
			return err
		}
	}
	if c.ReportJSON != "" {
		if err := writeReportJSON(c.ReportJSON, flows); err != nil {
			return err
		}
	}
	return nil
}

// playSummary prints the totals and where each run's files are, and
// returns the verdict: 0 all passed, 2 none compiled, 3 a device problem
// failed the runs, 1 otherwise, 130 interrupted.
func (a *App) playSummary(flows []FlowReport) error {
	passed, failed := 0, 0
	for _, f := range flows {
		if f.Status == "passed" {
			passed++
		} else {
			failed++
		}
	}
	fmt.Fprintf(a.Stdout, "\n%d passed, %d failed\n", passed, failed)
	for _, f := range flows {
		if f.OutputDir == "" {
			continue
		}
		if _, err := os.Stat(f.OutputDir); err == nil {
			fmt.Fprintf(a.Stdout, "report: %s\n", f.OutputDir)
		}
	}
	switch {
	case a.Ctx.Err() != nil:
		return a.Ctx.Err()
	case len(flows) == 0:
		fmt.Fprintln(a.Stdout, "no playbook matched the tag filters")
		return nil
	case failed > 0 && passed == 0 && failed == countCompileFailures(flows):
		return UsageError{fmt.Errorf("%d playbook(s) did not compile", failed)}
	case failed > 0:
		return a.failedRun(fmt.Sprintf("%d of %d playbooks failed", failed, passed+failed))
	}
	return nil
}

func countCompileFailures(flows []FlowReport) int {
	n := 0
	for _, f := range flows {
		if f.OutputDir == "" && f.Status == "failed" {
			n++
		}
	}
	return n
}

// runPlaybook runs one playbook file without terminal progress (scheduler).
func (a *App) runPlaybook(ctx context.Context, path string, params map[string]string) (engine.RunResult, error) {
	res, err := compilePlaybook(a, path, playbookParams{values: params})
	if err != nil {
		return engine.RunResult{Message: err.Error()}, err
	}
	h, err := a.home()
	if err != nil {
		return engine.RunResult{}, err
	}
	fr := a.playCompiled(ctx, path, res, filepath.Join(h.State(), "runs"), 0, nil)
	r := engine.RunResult{Success: fr.Status == "passed", Message: "playbook " + fr.Status, Steps: len(fr.Steps)}
	if fr.Error != "" {
		r.Message = fr.Error
	}
	return r, nil
}

// playCompiled runs one compiled playbook in a fresh session and VM and
// writes its output directory: log.txt, steps.json, playbook.lua and, on
// failure, the screen and UI dump at that moment.
func (a *App) playCompiled(ctx context.Context, file string, res *playbooks.Result, outRoot string, timeout time.Duration, progress io.Writer) FlowReport {
	start := time.Now()
	name := res.Meta.Name
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	fr := FlowReport{Name: name, File: file, Steps: []StepReport{}}
	fail := func(err error) FlowReport {
		fr.Status, fr.Error = "failed", err.Error()
		fr.DurationMs = time.Since(start).Milliseconds()
		return fr
	}
	// Created exclusively: a second run in the same second gets its own.
	dir, err := workspace.CreateRunDir(outRoot, start.Format("20060102-150405")+"-"+workspace.SafeName(name))
	if err != nil {
		return fail(err)
	}
	fr.OutputDir = dir
	logFile, err := os.Create(filepath.Join(fr.OutputDir, "log.txt"))
	if err != nil {
		return fail(err)
	}
	defer logFile.Close()
	_ = atomicfile.WriteFile(filepath.Join(fr.OutputDir, "playbook.lua"), res.Lua, 0o644)

	rec := newStepRecorder(progress, progress != nil && isTTY(progress))
	opts := a.play
	eng, err := a.newEngine(engineOptions{})
	if err != nil {
		return fail(err)
	}
	// The run's own lines, Lua's log.* and print, and the runtime's log
	// all reach log.txt in one human format.
	runLog := a.runLogger(logFile)
	eng.Logger = runLog
	fileLog := slog.New(newHumanHandler(logFile, slog.LevelDebug))
	logf := func(format string, args ...any) { fileLog.Info(fmt.Sprintf(format, args...)) }
	sess, err := eng.NewSession(ctx, engine.SessionOptions{Task: name, ArtifactsDir: fr.OutputDir, OnEvent: func(ev engine.Event) {
		rec.onEvent(ev)
		if ev.Kind == "step_end" {
			logf("%s %s %s", strField(ev.Fields, "status"), strField(ev.Fields, "label"), strField(ev.Fields, "error"))
		}
	}})
	if err != nil {
		return fail(err)
	}
	if _, err := a.readyDevice(sess); err != nil {
		return fail(err)
	}
	if opts.shots {
		rec.shoot = stepShooter(sess, fr.OutputDir)
	}
	recorder := opts.startRecording(sess, logf)
	set, err := a.executorSet()
	if err != nil {
		return fail(err)
	}
	reg := a.luaRegistry(set)
	if err := reg.RegisterSource(playbooks.RuntimeModule, playbooks.RuntimeSource); err != nil {
		return fail(err)
	}
	if dir, err := os.OpenRoot(filepath.Dir(file)); err == nil {
		// References and assets live next to the playbook, and only there.
		defer dir.Close()
		if err := errors.Join(reg.Register(visual.New(dir)), reg.Register(assets.New(dir))); err != nil {
			return fail(err)
		}
	}
	vm, err := stdlib.NewVMWith(sess.Context(), reg, sess, lua.Options{
		Timeout:   timeout,
		Print:     func(s string) { runLog.Info(s) },
		SourceMap: res.Map.VMFunc(res.Chunk),
		Globals:   res.Globals(), // secret parameters, kept out of playbook.lua
	})
	if err != nil {
		sess.Finish(false, err.Error())
		return fail(err)
	}
	logf("start %s (%s)", name, file)
	runErr := vm.Run(res.Chunk, res.Lua)
	vm.Close()
	fr.Steps = rec.result()
	fr.DurationMs = time.Since(start).Milliseconds()
	if runErr != nil {
		fr.Status, fr.Error = "failed", interruptedAt(runErr, rec).Error()
		logf("FAILED: %s", fr.Error)
		if ctx.Err() == nil {
			fr.Artifacts = captureFailure(sess, fr.OutputDir)
		}
		sess.Finish(false, runErr.Error())
	} else {
		fr.Status = "passed"
		logf("passed in %s", fmtMs(fr.DurationMs))
		sess.Finish(true, "playbook passed")
	}
	fr.Artifacts = append(fr.Artifacts, opts.finishRecording(recorder, fr, logf)...)
	if err := writeStepsJSON(filepath.Join(fr.OutputDir, "steps.json"), fr); err != nil {
		logf("steps.json: %v", err)
	}
	if progress != nil && fr.Status != "passed" {
		fmt.Fprintf(progress, "FAILED %s: %s\n", name, fr.Error)
	}
	return fr
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

// expandPlaybooks turns the arguments into a sorted list of files: a
// directory contributes its *.yaml and *.yml files (not subdirectories,
// which hold sub-playbooks).
func expandPlaybooks(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("playbook %s: %w", p, errors.Unwrap(err))
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		var found []string
		for _, e := range entries {
			if ext := filepath.Ext(e.Name()); !e.IsDir() && (ext == ".yaml" || ext == ".yml") {
				found = append(found, filepath.Join(p, e.Name()))
			}
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("directory %s has no *.yaml playbooks", p)
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	return files, nil
}

func tagsSelected(tags, include, exclude []string) bool {
	has := func(list []string) bool {
		for _, t := range tags {
			for _, w := range list {
				if t == w {
					return true
				}
			}
		}
		return false
	}
	if len(include) > 0 && !has(include) {
		return false
	}
	return !has(exclude)
}

// stepShooter saves the screen after a UI step as steps/NNN.png in the
// run's output directory and returns that relative path ("" on failure).
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
