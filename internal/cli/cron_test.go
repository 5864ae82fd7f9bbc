package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/workspace"
)

// cronTestCLI is the part of the grammar these tests drive.
type cronTestCLI struct {
	Globals
	Cron CronCmd `cmd:""`
}

type cronResult struct {
	code           int
	stdout, stderr string
}

// runCronCLI parses args like Main does and runs the command against home,
// with fake run functions for `cron run`.
func runCronCLI(t *testing.T, home string, runs *fakeRuns, args ...string) cronResult {
	t.Helper()
	t.Setenv(workspace.EnvHome, "")
	var out, errOut bytes.Buffer
	var cli cronTestCLI
	exit := -1
	parser, err := kong.New(&cli, kong.Name("openpocket"), kong.Writers(&out, &errOut), kong.Exit(func(c int) { exit = c }))
	require.NoError(t, err)
	kctx, err := parser.Parse(append([]string{"--home", home}, args...))
	if exit >= 0 {
		return cronResult{exit, out.String(), errOut.String()}
	}
	if err != nil {
		return cronResult{ExitUsage, out.String(), err.Error()}
	}
	sys := testSystem{}
	if runs != nil {
		sys.jobs = runs.runner
	}
	app := &App{sys: sys, Globals: cli.Globals, Stdout: &out, Stderr: &errOut, Ctx: context.Background()}
	require.NoError(t, bindDeps(kctx, app.Ctx, app))
	err = kctx.Run(app)
	if err != nil && !isReported(err) {
		fmt.Fprintf(&errOut, "openpocket: %s\n", err)
	}
	return cronResult{ExitCode(err), out.String(), errOut.String()}
}

// readJobsJSON returns jobs.json as generic JSON.
func readJobsJSON(t *testing.T, home string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(home, "workspace", "cron", "jobs.json"))
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(data, &v))
	return v
}

func jobsByID(t *testing.T, home string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, j := range readJobsJSON(t, home)["jobs"].([]any) {
		m := j.(map[string]any)
		out[m["id"].(string)] = m
	}
	return out
}

func TestCronAddListEnableDisableRemove(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	dir := t.TempDir()
	flow := filepath.Join(dir, "flow.yaml")
	script := filepath.Join(dir, "check.lua")
	require.NoError(t, os.WriteFile(flow, []byte("name: x\n"), 0o644))
	require.NoError(t, os.WriteFile(script, []byte("print(1)\n"), 0o644))

	r := runCronCLI(t, home, nil, "cron", "add", "--every", "5m", "--task", "open settings", "--name", "Settings", "-s", "emu-1", "--run-on-startup")
	require.Equal(t, 0, r.code, r.stderr)
	agentID := strings.TrimSpace(r.stdout)
	assert.Regexp(t, `^job-[0-9a-f]{12}$`, agentID)
	assert.Contains(t, r.stderr, "added "+agentID)

	r = runCronCLI(t, home, nil, "cron", "add", "--id", "daily", "--cron", "0 8 * * 1-5", "--tz", "Europe/Berlin", "--task", "check mail", "--model", "default")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "daily\n", r.stdout)
	r = runCronCLI(t, home, nil, "cron", "add", "--id", "flow", "--every", "90s", "--playbook", flow, "-e", "user=ann", "-e", "q=a=b")
	require.Equal(t, 0, r.code, r.stderr)
	r = runCronCLI(t, home, nil, "cron", "add", "--id", "lua", "--at", "2999-01-02T03:04", "--lua", script, "--", "one", "--two")
	require.Equal(t, 0, r.code, r.stderr)

	doc := readJobsJSON(t, home)
	assert.EqualValues(t, 2, doc["version"])
	jobs := jobsByID(t, home)
	require.Len(t, jobs, 5, "the four added and the starter's disabled example")
	a := jobs[agentID]
	assert.Equal(t, "Settings", a["name"])
	assert.Equal(t, true, a["enabled"])
	assert.Equal(t, true, a["runOnStartup"])
	assert.Equal(t, "emu-1", a["device"])
	assert.Equal(t, map[string]any{"kind": "every", "everyMs": 300000.0, "summaryText": "every 5m"}, a["schedule"])
	assert.Equal(t, map[string]any{"kind": "agent_turn", "task": "open settings"}, a["payload"])
	assert.Nil(t, a["model"])
	assert.NotEmpty(t, a["createdAt"])

	d := jobs["daily"]
	assert.Equal(t, map[string]any{"kind": "cron", "expr": "0 8 * * 1-5", "tz": "Europe/Berlin", "summaryText": "cron 0 8 * * 1-5 Europe/Berlin"}, d["schedule"])
	assert.Equal(t, "default", d["model"])
	assert.Equal(t, "check mail", d["name"])
	assert.Nil(t, d["device"])
	assert.Equal(t, map[string]any{"kind": "playbook", "path": flow, "params": map[string]any{"user": "ann", "q": "a=b"}}, jobs["flow"]["payload"])
	assert.Equal(t, "flow", jobs["flow"]["name"])
	assert.Equal(t, map[string]any{"kind": "lua", "path": script, "args": []any{"one", "--two"}}, jobs["lua"]["payload"])
	assert.Equal(t, "2999-01-02T03:04", jobs["lua"]["schedule"].(map[string]any)["at"])

	// Last status and next run come from the state file.
	require.NoError(t, cron.SaveState(filepath.Join(home, "state", "cron-state.json"), cron.State{Jobs: map[string]cron.JobState{
		"daily": {LastRunAtMs: time.Date(2026, 3, 2, 8, 0, 0, 0, time.Local).UnixMilli(), LastStatus: "fail", LastMessage: "device offline",
			NextRunAtMs: time.Date(2026, 3, 3, 8, 0, 0, 0, time.Local).UnixMilli()},
	}}))
	r = runCronCLI(t, home, nil, "cron", "list")
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	require.Len(t, lines, 6, r.stdout)
	assert.Regexp(t, `^ID\s+NAME\s+ENABLED\s+SCHEDULE\s+PAYLOAD\s+DEVICE\s+NEXT RUN\s+LAST$`, lines[0])
	assert.Regexp(t, `^example-status-check\s+Example: hourly status …\s+no\s+every 1h UTC\s`, lines[1])
	lines = append(lines[:1], lines[2:]...)
	assert.Regexp(t, `^`+agentID+`\s+Settings\s+yes\s+every 5m\s+agent "open settings"\s+emu-1\s+-\s+-$`, lines[1])
	assert.Regexp(t, `^daily\s+check mail\s+yes\s+cron 0 8 \* \* 1-5 Europe/Berlin\s+agent "check mail" \(default\)\s+-\s+2026-03-03 08:00\s+fail 2026-03-02 08:00: device offline$`, lines[2])
	assert.Regexp(t, `^flow\s+flow\s+yes\s+every 1m30s\s+playbook …/flow.yaml q=a=b user=ann\s+-\s+-\s+-$`, lines[3])
	assert.Regexp(t, `^lua\s+check\s+yes\s+at 2999-01-02T03:04\s+lua …/check.lua one --two\s+`, lines[4])

	r = runCronCLI(t, home, nil, "cron", "disable", "daily")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "disabled daily\n", r.stdout)
	assert.Equal(t, false, jobsByID(t, home)["daily"]["enabled"])
	r = runCronCLI(t, home, nil, "cron", "list", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var listed cronListJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &listed))
	require.Len(t, listed.Jobs, 5)
	assert.Equal(t, "daily", listed.Jobs[2].Job.ID)
	assert.False(t, listed.Jobs[2].Job.Enabled)
	assert.Equal(t, "device offline", listed.Jobs[2].State.LastMessage)
	assert.Equal(t, filepath.Join(home, "workspace", "cron", "jobs.json"), listed.JobsFile)

	r = runCronCLI(t, home, nil, "cron", "enable", "daily")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, true, jobsByID(t, home)["daily"]["enabled"])

	r = runCronCLI(t, home, nil, "cron", "remove", "daily")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "removed daily\n", r.stdout)
	jobs = jobsByID(t, home)
	assert.Len(t, jobs, 4)
	assert.NotContains(t, jobs, "daily")

	for _, verb := range []string{"remove", "enable", "disable", "run"} {
		r = runCronCLI(t, home, nil, "cron", verb, "daily")
		assert.Equal(t, ExitUsage, r.code, verb)
		assert.Contains(t, r.stderr, `no job with id "daily" in `+filepath.Join(home, "workspace", "cron", "jobs.json"), verb)
	}
}

func TestCronListEmptyAndProblems(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	r := runCronCLI(t, home, nil, "cron", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^example-status-check\s+.*\s+no\s`, r.stdout, "a fresh workspace lists the disabled example")
	assert.Empty(t, r.stderr, "the example is valid")

	jobsPath := filepath.Join(home, "workspace", "cron", "jobs.json")
	require.NoError(t, os.WriteFile(jobsPath, []byte(`{"version": 2, "jobs": []}`), 0o644))
	r = runCronCLI(t, home, nil, "cron", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "no jobs in ")

	require.NoError(t, os.WriteFile(jobsPath, []byte(`{"version": 2, "jobs": [
  {"id": "bad", "name": "Bad", "schedule": {"kind": "cron", "expr": "99 * * * *"}, "payload": {"kind": "agent_turn", "task": "x"}},
  {"id": "good", "name": "Good", "schedule": {"kind": "every", "everyMs": 60000}, "payload": {"kind": "agent_turn", "task": "y"}}]}`), 0o644))
	r = runCronCLI(t, home, nil, "cron", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, `warning: `+jobsPath+`: job "bad": schedule.expr: invalid cron expression "99 * * * *"`)
	assert.Regexp(t, `(?m)^bad\s+Bad\s+invalid\s`, r.stdout)
	assert.Regexp(t, `(?m)^good\s+Good\s+yes\s`, r.stdout)

	require.NoError(t, os.WriteFile(jobsPath, []byte(`{"version": 2, "jobs": [`), 0o644))
	r = runCronCLI(t, home, nil, "cron", "list")
	assert.Equal(t, ExitUsage, r.code)
	assert.Contains(t, r.stderr, "jobs.json")
}

func TestCronAddInvalid(t *testing.T) {
	dir := t.TempDir()
	flow := filepath.Join(dir, "flow.yaml")
	require.NoError(t, os.WriteFile(flow, []byte("x"), 0o644))
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--task", "x"}, "cron add: no schedule; give one of --cron EXPR, --every DURATION or --at TIME"},
		{[]string{"--every", "5m", "--cron", "* * * * *", "--task", "x"}, "cron add: --cron and --every: give only one schedule"},
		{[]string{"--every", "5m"}, "cron add: nothing to run; give one of --task TEXT, --playbook FILE or --lua FILE"},
		{[]string{"--every", "5m", "--task", "x", "--playbook", flow}, "cron add: --task and --playbook: give only one of --task, --playbook and --lua"},
		{[]string{"--cron", "61 * * * *", "--task", "x"}, `cron add: --cron: invalid cron expression "61 * * * *"`},
		{[]string{"--cron", "0 8 * *", "--task", "x"}, `cron add: --cron: invalid cron expression "0 8 * *"`},
		{[]string{"--cron", "0 8 * * *", "--tz", "Mars/Olympus", "--task", "x"}, `cron add: --tz: unknown time zone "Mars/Olympus"`},
		{[]string{"--every", "5x", "--task", "x"}, `cron add: --every: invalid duration "5x" (expected e.g. 30s, 15m, 2h)`},
		{[]string{"--every", "2s", "--task", "x"}, "cron add: --every: must be at least 5s, got 2s"},
		{[]string{"--every", "1m", "--tz", "UTC", "--task", "x"}, "cron add: --tz: a time zone applies to --cron and --at, not --every"},
		{[]string{"--at", "tomorrow", "--task", "x"}, `cron add: --at: expected an ISO 8601 time`},
		{[]string{"--at", "2001-01-01T08:00:00Z", "--task", "x"}, "cron add: --at: 2001-01-01T08:00:00Z is in the past"},
		{[]string{"--every", "1m", "--playbook", filepath.Join(dir, "nope.yaml")}, "cron add: --playbook: file " + filepath.Join(dir, "nope.yaml") + " not found"},
		{[]string{"--every", "1m", "--lua", "nope.lua"}, "cron add: --lua: file nope.lua not found (looked in the current directory and "},
		{[]string{"--every", "1m", "--playbook", dir}, "cron add: --playbook: " + dir + " is a directory"},
		{[]string{"--every", "1m", "--playbook", flow, "-e", "novalue"}, `cron add: -e/--param: expected KEY=VALUE, got "novalue"`},
		{[]string{"--every", "1m", "--task", "x", "-e", "a=b"}, "cron add: -e/--param: parameters are for --playbook jobs"},
		{[]string{"--every", "1m", "--task", "x", "stray"}, `cron add: unexpected arguments "stray": arguments after -- are for --lua jobs`},
		{[]string{"--every", "1m", "--task", "x", "--model", "nope"}, `cron add: --model: unknown model profile "nope" (configured: default)`},
		{[]string{"--every", "1m", "--playbook", flow, "--model", "default"}, "cron add: --model: a model profile applies to --task jobs"},
		{[]string{"--every", "1m", "--task", "   "}, "cron add: nothing to run"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "home")
			r := runCronCLI(t, home, nil, append([]string{"cron", "add"}, tc.args...)...)
			assert.Equal(t, ExitUsage, r.code, r.stderr)
			assert.Contains(t, r.stderr, tc.want)
			assert.Empty(t, r.stdout)
			jobs := jobsByID(t, home)
			assert.Len(t, jobs, 1, "nothing written")
			assert.Contains(t, jobs, "example-status-check")
		})
	}
}

func TestCronAddDuplicateID(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	r := runCronCLI(t, home, nil, "cron", "add", "--id", "x", "--every", "1m", "--task", "a")
	require.Equal(t, 0, r.code, r.stderr)
	r = runCronCLI(t, home, nil, "cron", "add", "--id", "x", "--every", "1m", "--task", "b")
	assert.Equal(t, ExitUsage, r.code)
	assert.Contains(t, r.stderr, `a job with id "x" already exists`)
	assert.Len(t, jobsByID(t, home), 2, "x and the starter's example")
}

func TestCronRunForeground(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	r := runCronCLI(t, home, nil, "cron", "add", "--id", "mail", "--every", "1h", "--task", "check mail", "--model", "default", "-s", "emu-7")
	require.Equal(t, 0, r.code, r.stderr)
	r = runCronCLI(t, home, nil, "cron", "disable", "mail")
	require.Equal(t, 0, r.code, r.stderr)
	statePath := filepath.Join(home, "state", "cron-state.json")

	runs := newFakeRuns()
	runs.result = func(fakeCall) (engine.RunResult, error) {
		return engine.RunResult{Success: true, Message: "3 new mails"}, nil
	}
	r = runCronCLI(t, home, runs, "cron", "run", "mail")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "job mail ok after ")
	assert.Contains(t, r.stderr, ": 3 new mails")
	calls := runs.recorded()
	require.Len(t, calls, 1, "disabled jobs run on demand")
	assert.Equal(t, fakeCall{Kind: "agent", Device: "emu-7", Task: "check mail", Model: "default"}, stripCtx(calls[0]))
	st, err := cron.LoadState(statePath)
	require.NoError(t, err)
	assert.Equal(t, "ok", st.Jobs["mail"].LastStatus)
	assert.Equal(t, "3 new mails", st.Jobs["mail"].LastMessage)
	assert.NotZero(t, st.Jobs["mail"].LastRunAtMs)

	runs.result = func(fakeCall) (engine.RunResult, error) {
		return engine.RunResult{Success: false, Message: "inbox not found"}, nil
	}
	r = runCronCLI(t, home, runs, "cron", "run", "mail")
	assert.Equal(t, ExitFailed, r.code)
	assert.Contains(t, r.stderr, "job mail failed after ")
	assert.Contains(t, r.stderr, ": inbox not found")
	assert.NotContains(t, r.stderr, "openpocket:", "the failure is reported once")
	st, _ = cron.LoadState(statePath)
	assert.Equal(t, "fail", st.Jobs["mail"].LastStatus)

	// Errors of the run keep their exit codes (bad input = 2).
	runs.result = func(fakeCall) (engine.RunResult, error) {
		return engine.RunResult{}, UsageError{fmt.Errorf("open flow.yaml: no such file")}
	}
	r = runCronCLI(t, home, runs, "cron", "run", "mail")
	assert.Equal(t, ExitUsage, r.code)
	assert.Contains(t, r.stderr, "open flow.yaml: no such file")

	// Canceled (Ctrl-C) maps to 130.
	runs.result = func(c fakeCall) (engine.RunResult, error) {
		return engine.RunResult{Message: "stopped"}, context.Canceled
	}
	r = runCronCLI(t, home, runs, "cron", "run", "mail")
	assert.Equal(t, ExitCanceled, r.code)
}

// TestCronRunSaysWhenTheGatewayDoesNotAnswer: a gateway holds the lock
// but nothing answers on its control socket (a gateway too old to have
// one): the job is not run beside it, and the message says to restart
// the gateway, never to remove its live lock.
func TestCronRunSaysWhenTheGatewayDoesNotAnswer(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	r := runCronCLI(t, home, nil, "cron", "add", "--id", "x", "--every", "1m", "--task", "a")
	require.Equal(t, 0, r.code, r.stderr)
	release, err := cron.AcquireGatewayLock(filepath.Join(home, "state"))
	require.NoError(t, err)
	defer release()
	runs := newFakeRuns()
	r = runCronCLI(t, home, runs, "cron", "run", "x")
	assert.Equal(t, ExitFailed, r.code)
	assert.Contains(t, r.stderr, fmt.Sprintf("job x: the agent's gateway runs (pid %d", os.Getpid()))
	assert.Contains(t, r.stderr, "does not answer on its control socket")
	assert.Contains(t, r.stderr, "restart the gateway")
	assert.NotContains(t, r.stderr, "gateway.lock")
	assert.NotContains(t, r.stderr, "remove")
	assert.Empty(t, runs.recorded())
}

// TestCronRunBuildsTheForegroundRunner: `cron run` builds the job runner
// (the gateway's, Deps.JobRunner) on its run service with the workspace
// for relative paths, compile warnings on stderr, agent progress on
// stdout, and bad input marked for exit 2.
func TestCronRunBuildsTheForegroundRunner(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	r := runCronCLI(t, home, nil, "cron", "add", "--id", "x", "--every", "1m", "--task", "a")
	require.Equal(t, 0, r.code, r.stderr)
	runs := newFakeRuns()
	r = runCronCLI(t, home, runs, "cron", "run", "x")
	require.Equal(t, 0, r.code, r.stderr)
	env := runs.env
	assert.NotNil(t, env.Service)
	assert.Equal(t, filepath.Join(home, "workspace"), env.Base)
	assert.NotNil(t, env.Warn)
	assert.NotNil(t, env.Agent.Events, "agent steps are shown")
	assert.NotNil(t, env.Agent.Stdout, "human auth can be asked on the terminal")
	assert.NotNil(t, env.HumanAuth)
	assert.Equal(t, ExitUsage, ExitCode(env.BadInput(errors.New("flow.yaml:3: bad"))))
}
