package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/workspace"
)

// CronCmd manages the scheduled jobs in the jobs file (cron.jobsFile,
// default workspace/cron/jobs.json). A running gateway picks changes up
// on its next tick.
type CronCmd struct {
	List    CronListCmd    `cmd:"" help:"List jobs: schedule, payload, next run and last status."`
	Add     CronAddCmd     `cmd:"" help:"Add a job: one schedule (--cron, --every or --at) and one payload (--task, --playbook or --lua)."`
	Remove  CronRemoveCmd  `cmd:"" aliases:"rm" help:"Remove a job."`
	Enable  CronEnableCmd  `cmd:"" help:"Enable a job."`
	Disable CronDisableCmd `cmd:"" help:"Disable a job (it stays in the file)."`
	Run     CronRunCmd     `cmd:"" help:"Run a job once now in the foreground; exit 0 if it succeeded, 1 if not."`
}

// cronPaths returns the jobs file and the state file of the home.
func (a *App) cronPaths() (jobsPath, statePath string, err error) {
	h, err := a.home()
	if err != nil {
		return "", "", err
	}
	return h.Resolve(a.cfg.Cron.JobsFile), filepath.Join(h.State(), "cron-state.json"), nil
}

// loadCronJobs reads the jobs file; a malformed file is a usage error.
func (a *App) loadCronJobs() (cron.JobsFile, []cron.Problem, string, error) {
	jobsPath, _, err := a.cronPaths()
	if err != nil {
		return cron.JobsFile{}, nil, "", err
	}
	f, probs, err := cron.LoadJobs(jobsPath)
	if err != nil {
		return f, nil, jobsPath, UsageError{err}
	}
	return f, probs, jobsPath, nil
}

// updateCronJobs applies fn to the jobs file and writes it atomically.
// Errors from fn are usage errors (unknown id, invalid job).
func (a *App) updateCronJobs(fn func(f *cron.JobsFile, jobsPath string) error) error {
	jobsPath, _, err := a.cronPaths()
	if err != nil {
		return err
	}
	var fnErr error
	err = cron.UpdateJobs(jobsPath, func(f *cron.JobsFile) error {
		fnErr = fn(f, jobsPath)
		return fnErr
	})
	if fnErr != nil {
		return UsageError{fnErr}
	}
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return err
		}
		return UsageError{err} // malformed jobs file
	}
	return nil
}

// --- list ---

// CronListCmd lists the jobs.
type CronListCmd struct {
	JSON bool `name:"json" help:"Print the jobs with their state as JSON."`
}

type cronListEntry struct {
	Job   cron.Job      `json:"job"`
	State cron.JobState `json:"state"`
	// Problems are the entry's validation problems (it is not scheduled).
	Problems []string `json:"problems,omitempty"`
}

type cronListJSON struct {
	JobsFile string          `json:"jobsFile"`
	Jobs     []cronListEntry `json:"jobs"`
}

// Run prints the table (or JSON); problems go to stderr as warnings.
func (c *CronListCmd) Run(app *App) error {
	f, probs, jobsPath, err := app.loadCronJobs()
	if err != nil {
		return err
	}
	_, statePath, _ := app.cronPaths()
	st, err := cron.LoadState(statePath)
	if err != nil {
		fmt.Fprintf(app.Stderr, "warning: %v\n", err)
	}
	byIndex := map[int][]string{}
	for _, p := range probs {
		fmt.Fprintf(app.Stderr, "warning: %s\n", p.Error())
		byIndex[p.Index] = append(byIndex[p.Index], p.Field+": "+p.Message)
	}
	entries := make([]cronListEntry, len(f.Jobs))
	for i, j := range f.Jobs {
		entries[i] = cronListEntry{Job: j, State: st.Jobs[j.ID], Problems: byIndex[i]}
	}
	if c.JSON {
		data, err := json.MarshalIndent(cronListJSON{JobsFile: jobsPath, Jobs: entries}, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(app.Stdout, string(data))
		return nil
	}
	if len(entries) == 0 {
		fmt.Fprintf(app.Stdout, "no jobs in %s; add one with `openpocket cron add`\n", jobsPath)
		return nil
	}
	tw := tabwriter.NewWriter(app.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tENABLED\tSCHEDULE\tPAYLOAD\tDEVICE\tNEXT RUN\tLAST")
	for _, e := range entries {
		j := e.Job
		enabled := "no"
		switch {
		case len(e.Problems) > 0:
			enabled = "invalid"
		case j.Enabled:
			enabled = "yes"
		}
		next := "-"
		if e.State.NextRunAtMs > 0 && j.Enabled {
			next = cronTime(e.State.NextRunAtMs)
		}
		dev := j.Device
		if dev == "" {
			dev = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cronCell(j.ID, 20), cronCell(j.Name, 24), enabled,
			cronCell(cronScheduleText(j.Schedule), 32), cronCell(cronPayloadText(j), 50), dev, next, cronLastText(e.State))
	}
	return tw.Flush()
}

func cronTime(ms int64) string {
	return time.UnixMilli(ms).Local().Format("2006-01-02 15:04")
}

// cronCell makes a value fit one table cell: one line, at most n runes.
func cronCell(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "-"
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func cronScheduleText(s cron.Schedule) string {
	var out string
	switch s.Kind {
	case cron.KindCron:
		out = "cron " + s.Expr
	case cron.KindEvery:
		out = "every " + cronDuration(time.Duration(s.EveryMs)*time.Millisecond)
	case cron.KindAt:
		out = "at " + s.At
	default:
		out = s.Kind
	}
	if s.TZ != "" {
		out += " " + s.TZ
	}
	return out
}

// cronDuration prints 5m rather than 5m0s.
func cronDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func cronPayloadText(j cron.Job) string {
	p := j.Payload
	switch p.Kind {
	case cron.PayloadPlaybook:
		out := "playbook " + cronShortPath(p.Path)
		for _, k := range slices.Sorted(maps.Keys(p.Params)) {
			out += " " + k + "=" + p.Params[k]
		}
		return out
	case cron.PayloadLua:
		return strings.Join(append([]string{"lua", cronShortPath(p.Path)}, p.Args...), " ")
	default:
		out := fmt.Sprintf("agent %q", p.Task)
		if j.Model != nil && *j.Model != "" {
			out += " (" + *j.Model + ")"
		}
		return out
	}
}

// cronShortPath keeps the file name of a long path (the table only; the
// JSON has the full path).
func cronShortPath(p string) string {
	if len([]rune(p)) <= 30 {
		return p
	}
	return "…" + string(filepath.Separator) + filepath.Base(p)
}

func cronLastText(st cron.JobState) string {
	if st.LastStatus == "" {
		return "-"
	}
	at := st.LastRunAtMs
	if st.LastAttemptAtMs > at {
		at = st.LastAttemptAtMs
	}
	out := st.LastStatus
	if at > 0 {
		out += " " + cronTime(at)
	}
	if st.LastMessage != "" {
		out += ": " + cronCell(st.LastMessage, 60)
	}
	return out
}

// --- add ---

// CronAddCmd adds a job.
type CronAddCmd struct {
	Cron  string `help:"Cron expression (5 fields: minute hour day-of-month month day-of-week), e.g. \"0 8 * * *\"." placeholder:"EXPR"`
	TZ    string `name:"tz" help:"IANA time zone for --cron and --at, e.g. Europe/Berlin (default: the gateway's local zone)." placeholder:"ZONE"`
	Every string `help:"Run at a fixed interval, e.g. 30s, 15m, 2h (at least 5s)." placeholder:"DURATION"`
	At    string `help:"Run once at an ISO 8601 time, e.g. 2026-03-01T08:00 or 2026-03-01T08:00:00Z." placeholder:"TIME"`

	Task     string   `help:"Agent task to run." placeholder:"TEXT"`
	Playbook string   `help:"Playbook file to run." placeholder:"FILE"`
	Param    []string `short:"e" name:"param" sep:"none" help:"Playbook parameter (repeatable)." placeholder:"K=V"`
	Lua      string   `help:"Lua script or skill file to run." placeholder:"FILE"`
	Args     []string `arg:"" optional:"" help:"Arguments for the --lua script (after --)." placeholder:"ARG"`

	Name         string `help:"Job name (default: from the payload)." placeholder:"NAME"`
	Model        string `help:"Model profile for --task jobs (default: defaultModel)." placeholder:"PROFILE"`
	RunOnStartup bool   `help:"Also run the job soon after the gateway starts."`
	ID           string `name:"id" help:"Job id (default: generated)." placeholder:"ID"`
}

// Run validates the flags, adds the job to the jobs file and prints its id.
func (c *CronAddCmd) Run(app *App) error {
	cfg, err := app.config()
	if err != nil {
		return err
	}
	h, _ := app.home()
	// The global --device (-s) is the job's device.
	job, err := c.job(cfg, h, app.Device, time.Now())
	if err != nil {
		return err
	}
	var added cron.Job
	err = app.updateCronJobs(func(f *cron.JobsFile, _ string) error {
		var err error
		added, err = f.AddJob(job)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(app.Stdout, added.ID)
	fmt.Fprintf(app.Stderr, "added %s %q: %s → %s\n", added.ID, added.Name, cronScheduleText(added.Schedule), cronPayloadText(added))
	return nil
}

// cronFlagOf names the flag behind a job field in validation problems.
func cronFlagOf(field string, j cron.Job) string {
	switch field {
	case "schedule.expr":
		return "--cron"
	case "schedule.everyMs":
		return "--every"
	case "schedule.at":
		return "--at"
	case "schedule.tz":
		return "--tz"
	case "payload.task":
		return "--task"
	case "payload.path":
		if j.Payload.Kind == cron.PayloadLua {
			return "--lua"
		}
		return "--playbook"
	case "id":
		return "--id"
	}
	return field
}

func cronUsagef(format string, args ...any) error { return UsageError{fmt.Errorf(format, args...)} }

// job builds and validates the job from the flags.
func (c *CronAddCmd) job(cfg workspace.Config, h *workspace.Home, device string, now time.Time) (cron.Job, error) {
	var j cron.Job
	var scheds, payloads []string
	for _, f := range []struct{ name, v string }{{"--cron", c.Cron}, {"--every", c.Every}, {"--at", c.At}} {
		if strings.TrimSpace(f.v) != "" {
			scheds = append(scheds, f.name)
		}
	}
	for _, f := range []struct{ name, v string }{{"--task", c.Task}, {"--playbook", c.Playbook}, {"--lua", c.Lua}} {
		if strings.TrimSpace(f.v) != "" {
			payloads = append(payloads, f.name)
		}
	}
	switch {
	case len(scheds) == 0:
		return j, cronUsagef("cron add: no schedule; give one of --cron EXPR, --every DURATION or --at TIME")
	case len(scheds) > 1:
		return j, cronUsagef("cron add: %s: give only one schedule", strings.Join(scheds, " and "))
	case len(payloads) == 0:
		return j, cronUsagef("cron add: nothing to run; give one of --task TEXT, --playbook FILE or --lua FILE")
	case len(payloads) > 1:
		return j, cronUsagef("cron add: %s: give only one of --task, --playbook and --lua", strings.Join(payloads, " and "))
	case len(c.Param) > 0 && c.Playbook == "":
		return j, cronUsagef("cron add: -e/--param: parameters are for --playbook jobs")
	case len(c.Args) > 0 && c.Lua == "":
		return j, cronUsagef("cron add: unexpected arguments %q: arguments after -- are for --lua jobs", strings.Join(c.Args, " "))
	case c.TZ != "" && c.Every != "":
		return j, cronUsagef("cron add: --tz: a time zone applies to --cron and --at, not --every")
	case c.Model != "" && c.Task == "":
		return j, cronUsagef("cron add: --model: a model profile applies to --task jobs")
	}

	loc := time.Local
	if c.TZ != "" {
		l, err := time.LoadLocation(c.TZ)
		if err != nil || strings.EqualFold(c.TZ, "local") {
			return j, cronUsagef("cron add: --tz: unknown time zone %q (expected an IANA name such as Europe/Berlin or UTC)", c.TZ)
		}
		loc = l
	}
	sched := cron.Schedule{TZ: c.TZ}
	switch {
	case c.Cron != "":
		sched.Kind, sched.Expr = cron.KindCron, strings.TrimSpace(c.Cron)
	case c.Every != "":
		d, err := time.ParseDuration(strings.TrimSpace(c.Every))
		if err != nil {
			return j, cronUsagef("cron add: --every: invalid duration %q (expected e.g. 30s, 15m, 2h)", c.Every)
		}
		if d < cron.MinEvery {
			return j, cronUsagef("cron add: --every: must be at least %s, got %s", cron.MinEvery, d)
		}
		if d%time.Millisecond != 0 {
			return j, cronUsagef("cron add: --every: %s is not a whole number of milliseconds", d)
		}
		sched.Kind, sched.EveryMs = cron.KindEvery, d.Milliseconds()
	default:
		t, err := cron.ParseAt(c.At, loc)
		if err != nil {
			return j, cronUsagef("cron add: --at: %v", err)
		}
		if !t.After(now) {
			return j, cronUsagef("cron add: --at: %s is in the past", t.In(loc).Format(time.RFC3339))
		}
		sched.Kind, sched.At = cron.KindAt, strings.TrimSpace(c.At)
	}
	sched.SummaryText = cronScheduleText(sched)

	var p cron.Payload
	switch {
	case c.Task != "":
		p = cron.Payload{Kind: cron.PayloadAgentTurn, Task: strings.TrimSpace(c.Task)}
	case c.Playbook != "":
		path, err := cronPayloadPath("--playbook", c.Playbook, h)
		if err != nil {
			return j, err
		}
		p = cron.Payload{Kind: cron.PayloadPlaybook, Path: path}
		for _, kv := range c.Param {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || strings.TrimSpace(k) == "" {
				return j, cronUsagef("cron add: -e/--param: expected KEY=VALUE, got %q", kv)
			}
			if p.Params == nil {
				p.Params = map[string]string{}
			}
			p.Params[strings.TrimSpace(k)] = v
		}
	default:
		path, err := cronPayloadPath("--lua", c.Lua, h)
		if err != nil {
			return j, err
		}
		p = cron.Payload{Kind: cron.PayloadLua, Path: path, Args: c.Args}
	}

	j = cron.Job{ID: strings.TrimSpace(c.ID), Name: strings.TrimSpace(c.Name), Enabled: true, Schedule: sched, Payload: p,
		RunOnStartup: c.RunOnStartup, Device: strings.TrimSpace(device)}
	if c.Model != "" {
		if _, ok := cfg.Models[c.Model]; !ok {
			return j, cronUsagef("cron add: --model: unknown model profile %q (configured: %s)", c.Model, strings.Join(slices.Sorted(maps.Keys(cfg.Models)), ", "))
		}
		m := c.Model
		j.Model = &m
	}
	if j.Name == "" {
		j.Name = cronDefaultName(p)
	}
	// Validate as the scheduler will, naming the flag of the first problem.
	probe := j
	if probe.ID == "" {
		probe.ID = "new"
	}
	if probs := cron.Validate("jobs.json", cron.JobsFile{Jobs: []cron.Job{probe}}, time.Local); len(probs) > 0 {
		return j, cronUsagef("cron add: %s: %s", cronFlagOf(probs[0].Field, j), probs[0].Message)
	}
	return j, nil
}

// cronPayloadPath checks a payload file and makes it absolute so the
// gateway finds it whatever its working directory; a relative path that
// exists only in the workspace stays relative to the workspace.
func cronPayloadPath(flag, p string, h *workspace.Home) (string, error) {
	p = strings.TrimSpace(p)
	if info, err := os.Stat(p); err == nil {
		if info.IsDir() {
			return "", cronUsagef("cron add: %s: %s is a directory, expected a file", flag, p)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", cronUsagef("cron add: %s: %v", flag, err)
		}
		return abs, nil
	}
	if h != nil && !filepath.IsAbs(p) && jobFileExists(filepath.Join(h.Workspace(), p)) {
		return p, nil
	}
	where := ""
	if h != nil && !filepath.IsAbs(p) {
		where = " (looked in the current directory and " + h.Workspace() + ")"
	}
	return "", cronUsagef("cron add: %s: file %s not found%s", flag, p, where)
}

func cronDefaultName(p cron.Payload) string {
	switch p.Kind {
	case cron.PayloadPlaybook, cron.PayloadLua:
		return strings.TrimSuffix(filepath.Base(p.Path), filepath.Ext(p.Path))
	}
	name := strings.Join(strings.Fields(p.Task), " ")
	if r := []rune(name); len(r) > 40 {
		name = string(r[:39]) + "…"
	}
	return name
}

// --- remove / enable / disable ---

// CronRemoveCmd removes a job.
type CronRemoveCmd struct {
	ID string `arg:"" help:"Job id." placeholder:"ID"`
}

// Run removes the job.
func (c *CronRemoveCmd) Run(app *App) error {
	err := app.updateCronJobs(func(f *cron.JobsFile, jobsPath string) error {
		if _, ok := f.Find(c.ID); !ok {
			return fmt.Errorf("cron remove: no job with id %q in %s", c.ID, jobsPath)
		}
		return f.RemoveJob(c.ID)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(app.Stdout, "removed %s\n", c.ID)
	return nil
}

// CronEnableCmd enables a job.
type CronEnableCmd struct {
	ID string `arg:"" help:"Job id." placeholder:"ID"`
}

// Run enables the job.
func (c *CronEnableCmd) Run(app *App) error { return setCronEnabled(app, c.ID, true) }

// CronDisableCmd disables a job.
type CronDisableCmd struct {
	ID string `arg:"" help:"Job id." placeholder:"ID"`
}

// Run disables the job.
func (c *CronDisableCmd) Run(app *App) error { return setCronEnabled(app, c.ID, false) }

func setCronEnabled(app *App, id string, enabled bool) error {
	verb := map[bool]string{true: "enable", false: "disable"}[enabled]
	err := app.updateCronJobs(func(f *cron.JobsFile, jobsPath string) error {
		if _, ok := f.Find(id); !ok {
			return fmt.Errorf("cron %s: no job with id %q in %s", verb, id, jobsPath)
		}
		return f.SetEnabled(id, enabled)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(app.Stdout, "%sd %s\n", verb, id)
	if enabled {
		// An enabled job with problems is still skipped: say so now.
		if _, probs, _, err := app.loadCronJobs(); err == nil {
			for _, p := range probs {
				if p.JobID == id {
					fmt.Fprintf(app.Stderr, "warning: %s (the gateway skips this job until it is fixed)\n", p.Error())
				}
			}
		}
	}
	return nil
}

// --- run ---

// CronRunCmd runs one job now.
type CronRunCmd struct {
	ID string `arg:"" help:"Job id (disabled jobs run too)." placeholder:"ID"`

	runsFor jobRunsFor // tests: fake run functions
}

// Run runs the job in the foreground with the same runner and state
// recording as the gateway. It refuses while a gateway runs: the gateway
// owns the state file and the devices.
func (c *CronRunCmd) Run(app *App) error {
	jobsPath, statePath, err := app.cronPaths()
	if err != nil {
		return err
	}
	f, _, err := cron.LoadJobs(jobsPath)
	if err != nil {
		return UsageError{err}
	}
	if _, ok := f.Find(c.ID); !ok {
		return cronUsagef("cron run: no job with id %q in %s", c.ID, jobsPath)
	}
	h, _ := app.home()
	// Only a check, not held: holding it would make a gateway started
	// meanwhile report this command as the running gateway.
	release, err := cron.AcquireGatewayLock(h.State())
	if err != nil {
		return fmt.Errorf("cron run %s: %w", c.ID, err)
	}
	release()

	runner := app.jobRunner()
	if c.runsFor != nil {
		runner.runsFor = c.runsFor
	}
	// In the foreground an agent job shows its progress and can ask for
	// human auth on the terminal, like `openpocket agent`.
	runner.agent = agentRunOptions{Stdin: os.Stdin, Stdout: app.Stdout, OnEvent: newAgentProgress(app.Stdout, isTTY(app.Stdout)).event}
	s, err := cron.New(jobsPath, statePath, runner, cron.Options{DefaultDevice: app.defaultDeviceName()})
	if err != nil {
		return err
	}
	start := time.Now()
	runErr := s.RunNow(app.Ctx, c.ID)
	_ = s.Stop(context.Background())
	st := s.State().Jobs[c.ID]
	took := time.Since(start).Round(100 * time.Millisecond)
	if runErr != nil {
		if errors.Is(runErr, cron.ErrBusy) || ExitCode(runErr) != ExitFailed {
			return runErr // canceled, device or model errors keep their exit codes
		}
		fmt.Fprintf(app.Stderr, "job %s failed after %s: %s\n", c.ID, took, strings.TrimSpace(st.LastMessage))
		return FailedError{Msg: fmt.Sprintf("job %s failed", c.ID)}
	}
	fmt.Fprintf(app.Stderr, "job %s ok after %s: %s\n", c.ID, took, strings.TrimSpace(st.LastMessage))
	return nil
}

// defaultDeviceName names the device of jobs without one, for per-device
// exclusion and messages: --device, else the configured target.
func (a *App) defaultDeviceName() string {
	if a.Device != "" {
		return a.Device
	}
	if a.ws != nil && a.cfg.Target.Device != "" {
		return a.cfg.Target.Device
	}
	return ""
}
