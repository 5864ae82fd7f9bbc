package cli

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/workspace"
)

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
	Channel      string `help:"Deliver each result to this chat channel (telegram), with --to." placeholder:"CHANNEL"`
	To           string `help:"Chat id on --channel the results go to." placeholder:"ID"`
	// ForAgent is the job's agent field; the global --agent is whose
	// jobs file is edited.
	ForAgent string `name:"for-agent" help:"Run the job on this agent's bound phone, on the host whose gateway serves it (instead of -s)." placeholder:"ID"`
}

// Run validates the flags, adds the job to the jobs file and prints its id.
func (c *CronAddCmd) Run(out Streams, g Globals, h *workspace.Home, cfg workspace.Config) error {
	// The global --device (-s) is the job's device; a job for an agent
	// runs on that agent's bound phone, so only an explicit -s conflicts
	// with --for-agent (a serial from the environment is not the job's).
	device := g.deviceOrEnv()
	if strings.TrimSpace(c.ForAgent) != "" {
		if g.Device != "" {
			return cronUsagef("cron add: --for-agent and -s/--device: a job for an agent runs on that agent's bound phone; give one of them")
		}
		device = ""
	}
	job, err := c.job(cfg, h, device, time.Now())
	if err != nil {
		return err
	}
	if err := signCronJob(&job, h.State()); err != nil {
		return err
	}
	jobsPath, _ := cronFiles(h, cfg)
	var added cron.Job
	err = updateJobsAt(jobsPath, func(f *cron.JobsFile, _ string) error {
		var err error
		added, err = f.AddJob(job)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(out.Stdout, added.ID)
	fmt.Fprintf(out.Stderr, "added %s %q: %s → %s\n", added.ID, added.Name, cronScheduleText(added.Schedule), cronPayloadText(added))
	return nil
}

// signCronJob marks what the user named on the command line — the
// payload file and the delivery chat — with the state directory's key.
// jobs.json lives in the workspace, where the model can write: the gateway
// reads an unsigned payload file only inside the workspace and delivers an
// unsigned result only to chats the channel allows.
func signCronJob(j *cron.Job, stateDir string) error {
	d, hasDelivery, _ := cron.DeliveryOf(*j)
	if j.Payload.Path == "" && !hasDelivery {
		return nil
	}
	key, err := cron.DeliveryKey(stateDir)
	if err != nil {
		return fmt.Errorf("cron add: %w", err)
	}
	if j.ID == "" {
		j.ID = cron.NewID()
	}
	if j.Payload.Path != "" {
		j.SignPayload(key)
	}
	if hasDelivery {
		j.SignDelivery(d, key)
	}
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
	case "agent":
		return "--for-agent"
	}
	return field
}

func cronUsagef(format string, args ...any) error { return UsageError{fmt.Errorf(format, args...)} }

// job builds and validates the job from the flags.
func (c *CronAddCmd) job(cfg workspace.Config, h *workspace.Home, device string, now time.Time) (cron.Job, error) {
	var j cron.Job
	if err := c.checkFlags(); err != nil {
		return j, err
	}
	sched, err := c.schedule(now)
	if err != nil {
		return j, err
	}
	p, err := c.payload(h)
	if err != nil {
		return j, err
	}
	j = cron.Job{ID: strings.TrimSpace(c.ID), Name: strings.TrimSpace(c.Name), Enabled: true, Schedule: sched, Payload: p,
		RunOnStartup: c.RunOnStartup, Device: strings.TrimSpace(device), Agent: strings.TrimSpace(c.ForAgent), CreatedBy: "cli"}
	ch, to := strings.TrimSpace(c.Channel), strings.TrimSpace(c.To)
	switch {
	case (ch == "") != (to == ""):
		return j, cronUsagef("cron add: --channel and --to go together (e.g. --channel telegram --to 123456789)")
	case ch != "":
		j.SetDelivery(cron.Delivery{Channel: ch, To: to})
	}
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

// checkFlags refuses combinations of flags that make no job: exactly one
// schedule and one payload, options only where they apply.
func (c *CronAddCmd) checkFlags() error {
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
		return cronUsagef("cron add: no schedule; give one of --cron EXPR, --every DURATION or --at TIME")
	case len(scheds) > 1:
		return cronUsagef("cron add: %s: give only one schedule", strings.Join(scheds, " and "))
	case len(payloads) == 0:
		return cronUsagef("cron add: nothing to run; give one of --task TEXT, --playbook FILE or --lua FILE")
	case len(payloads) > 1:
		return cronUsagef("cron add: %s: give only one of --task, --playbook and --lua", strings.Join(payloads, " and "))
	case len(c.Param) > 0 && c.Playbook == "":
		return cronUsagef("cron add: -e/--param: parameters are for --playbook jobs")
	case len(c.Args) > 0 && c.Lua == "":
		return cronUsagef("cron add: unexpected arguments %q: arguments after -- are for --lua jobs", strings.Join(c.Args, " "))
	case c.TZ != "" && c.Every != "":
		return cronUsagef("cron add: --tz: a time zone applies to --cron and --at, not --every")
	case c.Model != "" && c.Task == "":
		return cronUsagef("cron add: --model: a model profile applies to --task jobs")
	}
	return nil
}

// schedule is the job's schedule from --cron, --every or --at (and --tz).
func (c *CronAddCmd) schedule(now time.Time) (cron.Schedule, error) {
	loc := time.Local
	if c.TZ != "" {
		l, err := time.LoadLocation(c.TZ)
		if err != nil || strings.EqualFold(c.TZ, "local") {
			return cron.Schedule{}, cronUsagef("cron add: --tz: unknown time zone %q (expected an IANA name such as Europe/Berlin or UTC)", c.TZ)
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
			return sched, cronUsagef("cron add: --every: invalid duration %q (expected e.g. 30s, 15m, 2h)", c.Every)
		}
		if d < cron.MinEvery {
			return sched, cronUsagef("cron add: --every: must be at least %s, got %s", cron.MinEvery, d)
		}
		if d%time.Millisecond != 0 {
			return sched, cronUsagef("cron add: --every: %s is not a whole number of milliseconds", d)
		}
		sched.Kind, sched.EveryMs = cron.KindEvery, d.Milliseconds()
	default:
		t, err := cron.ParseAt(c.At, loc)
		if err != nil {
			return sched, cronUsagef("cron add: --at: %v", err)
		}
		if !t.After(now) {
			return sched, cronUsagef("cron add: --at: %s is in the past", t.In(loc).Format(time.RFC3339))
		}
		sched.Kind, sched.At = cron.KindAt, strings.TrimSpace(c.At)
	}
	sched.SummaryText = cronScheduleText(sched)
	return sched, nil
}

// payload is what the job runs: --task, --playbook (with -e) or --lua.
func (c *CronAddCmd) payload(h *workspace.Home) (cron.Payload, error) {
	switch {
	case c.Task != "":
		return cron.Payload{Kind: cron.PayloadAgentTurn, Task: strings.TrimSpace(c.Task)}, nil
	case c.Playbook != "":
		path, err := cronPayloadPath("--playbook", c.Playbook, h)
		if err != nil {
			return cron.Payload{}, err
		}
		p := cron.Payload{Kind: cron.PayloadPlaybook, Path: path}
		for _, kv := range c.Param {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || strings.TrimSpace(k) == "" {
				return p, cronUsagef("cron add: -e/--param: expected KEY=VALUE, got %q", kv)
			}
			if p.Params == nil {
				p.Params = map[string]string{}
			}
			p.Params[strings.TrimSpace(k)] = v
		}
		return p, nil
	default:
		path, err := cronPayloadPath("--lua", c.Lua, h)
		if err != nil {
			return cron.Payload{}, err
		}
		return cron.Payload{Kind: cron.PayloadLua, Path: path, Args: c.Args}, nil
	}
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

func jobFileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
