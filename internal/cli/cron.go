package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/fleet"
	"github.com/openpocket/openpocket/internal/gwenv"
	"github.com/openpocket/openpocket/internal/run"
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

// cronFiles are h's jobs file (cfg's cron.jobsFile) and state file.
func cronFiles(h *workspace.Home, cfg workspace.Config) (jobsPath, statePath string) {
	return h.Resolve(cfg.Cron.JobsFile), filepath.Join(h.State(), "cron-state.json")
}

// loadJobsAt reads the jobs file at jobsPath.
func loadJobsAt(jobsPath string) (cron.JobsFile, []cron.Problem, string, error) {
	f, probs, err := cron.LoadJobs(jobsPath)
	if err != nil {
		return f, nil, jobsPath, UsageError{err}
	}
	return f, probs, jobsPath, nil
}

// updateJobsAt applies fn to the jobs file at jobsPath, written atomically.
func updateJobsAt(jobsPath string, fn func(f *cron.JobsFile, jobsPath string) error) error {
	var fnErr error
	err := cron.UpdateJobs(jobsPath, func(f *cron.JobsFile) error {
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
	// FleetLastRun is the job's last run on any host of the fleet
	// (fleet.redisUrl; absent outside a fleet).
	FleetLastRun *cron.RunRecord `json:"fleetLastRun,omitempty"`
}

type cronListJSON struct {
	JobsFile string          `json:"jobsFile"`
	Jobs     []cronListEntry `json:"jobs"`
}

// Run prints the table (or JSON); problems go to stderr as warnings.
func (c *CronListCmd) Run(ctx context.Context, out Streams, h *workspace.Home, cfg workspace.Config) error {
	jobsPath, statePath := cronFiles(h, cfg)
	f, probs, _, err := loadJobsAt(jobsPath)
	if err != nil {
		return err
	}
	st, err := cron.LoadState(statePath)
	if err != nil {
		fmt.Fprintf(out.Stderr, "warning: %v\n", err)
	}
	byIndex := map[int][]string{}
	for _, p := range probs {
		fmt.Fprintf(out.Stderr, "warning: %s\n", p.Error())
		byIndex[p.Index] = append(byIndex[p.Index], p.Field+": "+p.Message)
	}
	entries := make([]cronListEntry, len(f.Jobs))
	last := fleetLastRuns(ctx, out.Stderr, cfg)
	for i, j := range f.Jobs {
		entries[i] = cronListEntry{Job: j, State: st.Jobs[j.ID], Problems: byIndex[i]}
		if r, ok := last[j.ID]; ok {
			entries[i].FleetLastRun = &r
		}
	}
	if c.JSON {
		data, err := json.MarshalIndent(cronListJSON{JobsFile: jobsPath, Jobs: entries}, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(out.Stdout, string(data))
		return nil
	}
	if len(entries) == 0 {
		fmt.Fprintf(out.Stdout, "no jobs in %s; add one with `openpocket cron add`\n", jobsPath)
		return nil
	}
	tw := tabwriter.NewWriter(out.Stdout, 0, 0, 2, ' ', 0)
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
		switch {
		case j.Agent != "":
			dev = "agent:" + j.Agent // the phone bound to that agent
		case dev == "":
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

// --- remove / enable / disable ---

// CronRemoveCmd removes a job.
type CronRemoveCmd struct {
	ID     string `arg:"" optional:"" help:"Job id." placeholder:"ID"`
	IDFlag string `name:"id" help:"Job id, as upstream spells it (cron remove --id ID)." placeholder:"ID"`
}

// Run removes the job.
func (c *CronRemoveCmd) Run(out Streams, h *workspace.Home, cfg workspace.Config) error {
	id, err := cronJobID("remove", c.ID, c.IDFlag)
	if err != nil {
		return err
	}
	c.ID = id
	jobsPath, _ := cronFiles(h, cfg)
	err = updateJobsAt(jobsPath, func(f *cron.JobsFile, jobsPath string) error {
		if _, ok := f.Find(c.ID); !ok {
			return fmt.Errorf("cron remove: no job with id %q in %s", c.ID, jobsPath)
		}
		return f.RemoveJob(c.ID)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out.Stdout, "removed %s\n", c.ID)
	return nil
}

// CronEnableCmd enables a job.
type CronEnableCmd struct {
	ID     string `arg:"" optional:"" help:"Job id." placeholder:"ID"`
	IDFlag string `name:"id" help:"Job id, as upstream spells it (cron enable --id ID)." placeholder:"ID"`
}

// Run enables the job.
func (c *CronEnableCmd) Run(out Streams, h *workspace.Home, cfg workspace.Config) error {
	id, err := cronJobID("enable", c.ID, c.IDFlag)
	if err != nil {
		return err
	}
	return setCronEnabled(out, h, cfg, id, true)
}

// CronDisableCmd disables a job.
type CronDisableCmd struct {
	ID     string `arg:"" optional:"" help:"Job id." placeholder:"ID"`
	IDFlag string `name:"id" help:"Job id, as upstream spells it (cron disable --id ID)." placeholder:"ID"`
}

// Run disables the job.
func (c *CronDisableCmd) Run(out Streams, h *workspace.Home, cfg workspace.Config) error {
	id, err := cronJobID("disable", c.ID, c.IDFlag)
	if err != nil {
		return err
	}
	return setCronEnabled(out, h, cfg, id, false)
}

// cronJobID is the job id given as the argument (ours) or as --id
// (upstream's spelling); both at once must agree.
func cronJobID(verb, arg, flag string) (string, error) {
	arg, flag = strings.TrimSpace(arg), strings.TrimSpace(flag)
	switch {
	case arg == "" && flag == "":
		return "", cronUsagef("cron %s: which job? give its id: openpocket cron %s ID (or --id ID); see openpocket cron list", verb, verb)
	case arg != "" && flag != "" && arg != flag:
		return "", cronUsagef("cron %s: the argument %q and --id %q name different jobs; give one", verb, arg, flag)
	case arg != "":
		return arg, nil
	}
	return flag, nil
}

func setCronEnabled(out Streams, h *workspace.Home, cfg workspace.Config, id string, enabled bool) error {
	verb := map[bool]string{true: "enable", false: "disable"}[enabled]
	jobsPath, _ := cronFiles(h, cfg)
	err := updateJobsAt(jobsPath, func(f *cron.JobsFile, jobsPath string) error {
		if _, ok := f.Find(id); !ok {
			return fmt.Errorf("cron %s: no job with id %q in %s", verb, id, jobsPath)
		}
		return f.SetEnabled(id, enabled)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out.Stdout, "%sd %s\n", verb, id)
	if enabled {
		// An enabled job with problems is still skipped: say so now.
		if _, probs, _, err := loadJobsAt(jobsPath); err == nil {
			for _, p := range probs {
				if p.JobID == id {
					fmt.Fprintf(out.Stderr, "warning: %s (the gateway skips this job until it is fixed)\n", p.Error())
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
}

// Run runs the job now. While the agent's gateway runs, the gateway runs
// it (it owns the state file and the devices) and this command waits for
// and reports the outcome; otherwise it runs in the foreground with the
// same runner and state recording as the gateway.
func (c *CronRunCmd) Run(ctx context.Context, out Streams, phones *Phones, h *workspace.Home, cfg workspace.Config, later OnUse, auth *HumanAuth,
	jobs JobRunners) error {
	jobsPath, _ := cronFiles(h, cfg)
	f, _, err := cron.LoadJobs(jobsPath)
	if err != nil {
		return UsageError{err}
	}
	if _, ok := f.Find(c.ID); !ok {
		return cronUsagef("cron run: no job with id %q in %s", c.ID, jobsPath)
	}
	if res, ran, err := runInGateway(ctx, h, c.ID); ran || err != nil {
		msg, err := gatewayOutcome(res, err)
		if err != nil {
			if ExitCode(err) == ExitFailed && !errors.Is(err, cron.ErrBusy) && ran {
				fmt.Fprintf(out.Stderr, "job %s failed %s\n", c.ID, err)
				return FailedError{Msg: fmt.Sprintf("job %s failed", c.ID)}
			}
			return err
		}
		fmt.Fprintf(out.Stderr, "job %s %s\n", c.ID, msg)
		return nil
	}
	if err := gatewayNotRunning(h, c.ID); err != nil {
		return err
	}
	runner := jobRunnerWith(jobs, func() (gwenv.JobRunner, error) { return foregroundJobEnv(out, h, cfg, later, auth) })
	st, took, err := runJobNow(ctx, h, cfg, c.ID, defaultDeviceName(phones, phones.flags, cfg), runner)
	return reportJob(out.Stderr, c.ID, st, took, err)
}

// gatewayNotRunning refuses a job run while h's gateway runs. Only a
// check, not held: holding it would make a gateway started meanwhile
// report this command as the running gateway.
func gatewayNotRunning(h *workspace.Home, id string) error {
	release, err := cron.AcquireGatewayLock(h.State())
	if err != nil {
		return fmt.Errorf("cron run %s: %w", id, err)
	}
	release()
	return nil
}

// runJobNow runs job id of h's jobs file once now on runner, recording its
// state as the gateway does, and returns that state, how long the run
// took and its error. An agent in a fleet runs it with the job's run
// claim, so it never overlaps the job's run on another host.
func runJobNow(ctx context.Context, h *workspace.Home, cfg workspace.Config, id, defaultDevice string, runner cron.Runner) (cron.JobState, time.Duration, error) {
	opts := cron.Options{DefaultDevice: defaultDevice}
	if cfg.Fleet.Enabled() {
		fl, err := fleet.Open(fleet.Options{URL: cfg.Fleet.RedisURL, Host: cfg.Fleet.HostName})
		if err != nil {
			return cron.JobState{}, 0, err
		}
		defer fl.Close()
		opts.Fleet = fl
	}
	s, err := cron.New(h.Resolve(cfg.Cron.JobsFile), filepath.Join(h.State(), "cron-state.json"), runner, opts)
	if err != nil {
		return cron.JobState{}, 0, err
	}
	start := time.Now()
	runErr := s.RunNow(ctx, id)
	_ = s.Stop(context.Background())
	return s.State().Jobs[id], time.Since(start).Round(100 * time.Millisecond), runErr
}

// reportJob says on w how job id's run ended and returns the command's
// error: canceled, busy, device or model errors keep their exit codes; a
// failed run is reported here (exit 1).
func reportJob(w io.Writer, id string, st cron.JobState, took time.Duration, runErr error) error {
	if runErr != nil {
		if errors.Is(runErr, cron.ErrBusy) || errors.Is(runErr, cron.ErrFleetUnreachable) || ExitCode(runErr) != ExitFailed {
			return runErr
		}
		fmt.Fprintf(w, "job %s failed after %s: %s\n", id, took, strings.TrimSpace(st.LastMessage))
		return FailedError{Msg: fmt.Sprintf("job %s failed", id)}
	}
	fmt.Fprintf(w, "job %s ok after %s: %s\n", id, took, strings.TrimSpace(st.LastMessage))
	return nil
}

// jobRunnerWith is the gateway's job runner (jobs) over the environment
// env builds; an environment that cannot be built fails the job.
func jobRunnerWith(jobs JobRunners, env func() (gwenv.JobRunner, error)) cron.Runner {
	e, err := env()
	if err != nil {
		return failedRunner{err} // the job fails with it, recorded in its state
	}
	return jobs.NewJobRunner(e)
}

// foregroundJobEnv runs a job on this command's run service (later's:
// a service that cannot be built fails the job, recorded in its state).
// In the foreground an agent job shows its progress and can ask for human
// auth on the terminal, like `openpocket agent`; bad input (a playbook
// that does not compile, a missing script) exits 2.
func foregroundJobEnv(out Streams, h *workspace.Home, cfg workspace.Config, later OnUse, auth *HumanAuth) (gwenv.JobRunner, error) {
	svc, err := later.Service()
	if err != nil {
		return gwenv.JobRunner{}, err
	}
	o := agentRunOptions{Stdin: os.Stdin, Stdout: out.Stdout}
	progress := newAgentProgress(out.Stdout, isTTY(out.Stdout))
	return gwenv.JobRunner{Service: svc, Base: h.Workspace(), StateDir: h.State(), Warn: out.Stderr,
		HumanAuth: func(ctx context.Context, sess *engine.Session) (run.HumanAuthFunc, error) {
			return auth.forRun(ctx, cfg.HumanAuth, sess, o)
		},
		Agent: run.AgentOptions{Stdin: o.Stdin, Stdout: o.Stdout,
			Events: func(ev run.Event) { progress.event(engine.Event{Kind: string(ev.Kind), Fields: ev.Fields}) }},
		BadInput: func(err error) error { return UsageError{err} },
	}, nil
}

// defaultDeviceName names the device of jobs without one, for per-device
// exclusion and messages: the resolver's choice as far as it is known
// without the adb server ("" for the only attached device).
func defaultDeviceName(phones *Phones, g Globals, cfg workspace.Config) string {
	return phones.chosenName(g.agentID(), cfg.Target)
}
