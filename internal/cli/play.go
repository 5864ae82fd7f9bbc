package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/report"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
	"github.com/openpocket/openpocket/playbooks"
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
	Devices     []string          `help:"Split the playbooks across these devices (adb serials), run side by side; the JUnit report has a suite per device." sep:"," placeholder:"SERIAL,…"`
	Shards      int               `help:"Split the playbooks across the first N attached devices no other agent has bound." placeholder:"N"`
	ReportHTML  string            `name:"report-html" help:"Write an HTML report (one page per run, a screenshot after each UI step) to DIR." placeholder:"DIR" type:"path"`
	Record      bool              `help:"Record the screen with the device's screenrecord (chunked past 3 minutes); kept as mp4 when the run fails."`
	RecordKeep  string            `name:"record-keep" help:"Keep recordings of: failure (default) or always." enum:"failure,always" default:"failure"`
	RecordLimit time.Duration     `name:"record-limit" help:"Longest recording per playbook." default:"10m"`
	Watch       bool              `help:"Run again whenever a playbook or a sub-flow it includes changes, until Ctrl-C."`
	AIRefresh   bool              `name:"ai-refresh" help:"Resolve every AI step (ai_tap, ai_assert, ai_extract) again with the model and rewrite <playbook>.ai.json."`
	NoAI        bool              `name:"no-ai" help:"Fail any step that would call a model (an AI step with nothing stored that fits, an agent: step) instead of calling it: CI without a model."`
}

// playOptions are the per-invocation extras playCompiled honours.
type playOptions struct {
	shots       bool // a screenshot after each UI step (for the HTML report)
	record      bool
	recordAll   bool
	recordLimit time.Duration
	// events, when set, sees the run's events (an MCP client's progress).
	events func(run.Event)
	// aiRefresh and noAI are --ai-refresh and --no-ai.
	aiRefresh, noAI bool
}

// Run compiles, filters and runs each playbook, prints a summary and
// exits 0 only if all passed.
func (c *PlayCmd) Run(ctx context.Context, out Streams, g Globals, phones *Phones, later OnUse) error {
	env := playEnv{out: out, g: g, phones: phones, later: later}
	files, err := expandPlaybooks(c.Paths)
	if err != nil {
		return UsageError{err}
	}
	if c.DryRun {
		return dryRun(out, files, c)
	}
	for {
		err := c.runOnce(ctx, env, files)
		if !c.Watch || !waitForChange(ctx, files) {
			return err
		}
		if err != nil {
			fmt.Fprintf(out.Stderr, "%v\n", err)
		}
		fmt.Fprintf(out.Stdout, "\nchange detected: running again\n")
	}
}

// playEnv is what play uses, as its Run declares it: the home and run
// service only once a playbook runs (--dry-run needs neither; a home that
// cannot be opened fails each playbook).
type playEnv struct {
	out    Streams
	g      Globals
	phones *Phones
	later  OnUse
}

// options are the extras playCompiled honours for this invocation.
func (c *PlayCmd) options() playOptions {
	return playOptions{shots: c.ReportHTML != "", record: c.Record, recordAll: c.RecordKeep == "always", recordLimit: c.RecordLimit,
		aiRefresh: c.AIRefresh, noAI: c.NoAI}
}

// runOnce runs every selected playbook once and writes the reports.
func (c *PlayCmd) runOnce(ctx context.Context, env playEnv, files []string) error {
	var html *report.HTML
	if c.ReportHTML != "" {
		html = report.NewHTML(c.ReportHTML)
	}
	outRoot := c.Output
	if outRoot == "" {
		h, err := env.later.Home()
		if err != nil {
			return err
		}
		outRoot = filepath.Join(h.State(), "runs")
	}
	if err := workspace.CheckWritableDir(outRoot); err != nil {
		return UsageError{fmt.Errorf("--output %s: run output cannot be written there: %w", outRoot, err)}
	}
	if c.sharded() {
		return c.runSharded(ctx, env, files, outRoot)
	}
	var flows []FlowReport
	for i, f := range files {
		if !fileSelected(f, c.IncludeTags, c.ExcludeTags) {
			continue
		}
		res, err := compilePlaybook(env.out.Stderr, f, playbookParams{values: c.Env, shared: len(files) > 1})
		if err != nil {
			fmt.Fprintln(env.out.Stderr, strings.TrimSpace(err.Error()))
			flows = append(flows, FlowReport{Name: f, File: f, Status: "failed", Error: err.Error(), Steps: []StepReport{}})
			continue
		}
		fmt.Fprintf(env.out.Stdout, "[%d/%d] %s (%s)\n", i+1, len(files), res.Meta.Name, f)
		started := time.Now()
		fr := FlowReport{Name: f, File: f, Status: "failed", Steps: []StepReport{}}
		if svc, err := env.later.Service(); err != nil {
			fr.Error = err.Error()
		} else {
			fr = playCompiled(ctx, svc, f, res, outRoot, c.Timeout, c.options(), env.out.Stdout)
		}
		flows = append(flows, fr)
		if html != nil {
			if err := html.Add(fr, started); err != nil {
				fmt.Fprintf(env.out.Stderr, "html report: %v\n", err)
			}
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			break
		}
	}
	if err := c.writeReports(flows); err != nil {
		return err
	}
	err := playSummary(ctx, env.out.Stdout, env.phones, flows)
	if html != nil && html.Len() > 0 {
		fmt.Fprintf(env.out.Stdout, "html report: %s\n", filepath.Join(c.ReportHTML, "index.html"))
	}
	return err
}

// writeReports writes the JUnit and JSON reports asked for.
func (c *PlayCmd) writeReports(flows []FlowReport) error {
	if c.Report != "" {
		if err := report.WriteJUnit(c.Report, flows); err != nil {
			return err
		}
	}
	if c.ReportJSON != "" {
		if err := report.WriteJSON(c.ReportJSON, flows); err != nil {
			return err
		}
	}
	return nil
}

// playSummary prints the totals and where each run's files are, and
// returns the verdict: 0 all passed, 2 none compiled, 3 a device problem
// failed the runs, 1 otherwise, 130 interrupted.
func playSummary(ctx context.Context, stdout io.Writer, phones *Phones, flows []FlowReport) error {
	passed, failed := 0, 0
	for _, f := range flows {
		if f.Status == "passed" {
			passed++
		} else {
			failed++
		}
	}
	fmt.Fprintf(stdout, "\n%d passed, %d failed\n", passed, failed)
	for _, f := range flows {
		if f.OutputDir == "" {
			continue
		}
		if _, err := os.Stat(f.OutputDir); err == nil {
			fmt.Fprintf(stdout, "report: %s\n", f.OutputDir)
		}
	}
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case len(flows) == 0:
		fmt.Fprintln(stdout, "no playbook matched the tag filters")
		return nil
	case failed > 0 && passed == 0 && failed == countCompileFailures(flows):
		return UsageError{fmt.Errorf("%d playbook(s) did not compile", failed)}
	case failed > 0:
		return phones.failedRun(fmt.Sprintf("%d of %d playbooks failed", failed, passed+failed))
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

// playCompiled runs one compiled playbook on svc (outRoot "" =
// HOME/state/runs) with the extras opts asks for (step screenshots, screen
// recording), drawing step progress on progress when not nil.
func playCompiled(ctx context.Context, svc *run.Service, file string, res *playbooks.Result, outRoot string, timeout time.Duration, opts playOptions, progress io.Writer) FlowReport {
	o := run.PlaybookOptions{File: file, Compiled: res, OutputDir: outRoot, Timeout: timeout, StepScreenshots: opts.shots,
		AIRefresh: opts.aiRefresh, NoAI: opts.noAI}
	if opts.record {
		o.Around = func(sess *engine.Session, logf func(string, ...any)) func(FlowReport) []string {
			recorder := opts.startRecording(sess, logf)
			return func(fr FlowReport) []string { return opts.finishRecording(recorder, fr, logf) }
		}
	}
	var listeners []func(run.Event)
	if progress != nil {
		listeners = append(listeners, newStepProgress(progress, isTTY(progress)).event)
	}
	if opts.events != nil {
		listeners = append(listeners, opts.events)
	}
	if len(listeners) > 0 {
		o.Events = func(ev run.Event) {
			for _, l := range listeners {
				l(ev)
			}
		}
	}
	fr, _ := svc.Playbook(ctx, o)
	if progress != nil && fr.Status != "passed" {
		fmt.Fprintf(progress, "FAILED %s: %s\n", fr.Name, fr.Error)
	}
	return fr
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
