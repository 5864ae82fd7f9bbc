package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/internal/workspace"
)

// Upstream's cron tools from the model: cron_add in upstream's shape
// (nested schedule, id, channel/to) and cron_update, as the agent runtime
// executes them (src/agent/agent-runtime.ts executeCronAction).
func TestModelCronAddUpstreamShapeAndUpdate(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	h, err := workspace.Open(home)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(h.Workspace(), "USER.md"),
		[]byte("# USER\n\n## Profile\n\n- Name: Ann\n- Timezone: Asia/Tokyo\n"), 0o644))
	jt := jobsTarget{jobsPath: filepath.Join(h.Workspace(), "cron", "jobs.json"), workspace: h.Workspace(), stateDir: h.State()}
	ctx := context.Background()
	do := func(tool string, args map[string]any, replyTo string) (string, error) {
		a, _ := action.NormalizeTool(tool, args, nil)
		require.Equal(t, tool, a.Type, "never a wait")
		return scheduleAt(ctx, jt, a, replyTo)
	}

	out, err := do("cron_add", map[string]any{"id": "weather", "name": "Weather", "task": "check the weather",
		"schedule": map[string]any{"kind": "cron", "expr": "0 8 * * *", "summaryText": "every day at 8"},
		"channel":  "telegram", "to": "777"}, "telegram:4242")
	require.NoError(t, err)
	assert.Contains(t, out, "Scheduled job weather")
	assert.Contains(t, out, "(time zone from USER.md)")
	assert.Contains(t, out, "results go to telegram:777")
	j := jobsByID(t, home)["weather"]
	require.NotNil(t, j)
	assert.Equal(t, map[string]any{"kind": "cron", "expr": "0 8 * * *", "tz": "Asia/Tokyo", "summaryText": "every day at 8"}, j["schedule"])
	assert.Equal(t, map[string]any{"channel": "telegram", "to": "777"}, j["delivery"])
	assert.Equal(t, "model via telegram:4242", j["createdBy"], "who added it")
	assert.NotEmpty(t, j["createdAt"], "and when")

	// An explicit tz wins over USER.md; our flat shape still works.
	_, err = do("cron_add", map[string]any{"id": "ping", "task": "ping", "kind": "every", "everyMs": 60000, "tz": "UTC"}, "")
	require.NoError(t, err)
	assert.Equal(t, "UTC", jobsByID(t, home)["ping"]["schedule"].(map[string]any)["tz"])
	assert.Equal(t, "model", jobsByID(t, home)["ping"]["createdBy"])

	out, err = do("cron_update", map[string]any{"id": "weather", "enabled": false, "schedule": map[string]any{"expr": "30 7 * * 1-5"}}, "")
	require.NoError(t, err)
	assert.Contains(t, out, "Updated job weather \"Weather\" (disabled)")
	j = jobsByID(t, home)["weather"]
	assert.Equal(t, false, j["enabled"])
	assert.Equal(t, "30 7 * * 1-5", j["schedule"].(map[string]any)["expr"])
	assert.Equal(t, "Asia/Tokyo", j["schedule"].(map[string]any)["tz"], "fields not given stay")
	assert.Equal(t, "check the weather", j["payload"].(map[string]any)["task"])

	_, err = do("cron_update", map[string]any{"id": "weather", "expr": "not a cron"}, "")
	require.Error(t, err, "an invalid update is refused")
	assert.Equal(t, "30 7 * * 1-5", jobsByID(t, home)["weather"]["schedule"].(map[string]any)["expr"], "and changes nothing")
	_, err = do("cron_update", map[string]any{"id": "nope", "enabled": true}, "")
	assert.ErrorContains(t, err, `no job with id "nope"`)
}

// Upstream's CLI spellings: cron add --channel/--to, cron
// disable|enable|remove --id X.
func TestCronCLIUpstreamSpellings(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	r := runCronCLI(t, home, nil, "cron", "add", "--id", "tg", "--every", "10m", "--task", "check", "--channel", "telegram", "--to", "555")
	require.Equal(t, 0, r.code, r.stderr)
	j := jobsByID(t, home)["tg"]
	assert.Equal(t, map[string]any{"channel": "telegram", "to": "555"}, j["delivery"])
	assert.Equal(t, "cli", j["createdBy"])

	r = runCronCLI(t, home, nil, "cron", "add", "--every", "10m", "--task", "x", "--channel", "telegram")
	assert.Equal(t, ExitUsage, r.code)
	assert.Contains(t, r.stderr, "--channel and --to go together")

	r = runCronCLI(t, home, nil, "cron", "disable", "--id", "tg")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, false, jobsByID(t, home)["tg"]["enabled"])
	r = runCronCLI(t, home, nil, "cron", "enable", "--id", "tg")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, true, jobsByID(t, home)["tg"]["enabled"])
	r = runCronCLI(t, home, nil, "cron", "disable", "tg", "--id", "other")
	assert.Equal(t, ExitUsage, r.code)
	assert.Contains(t, r.stderr, "name different jobs")
	r = runCronCLI(t, home, nil, "cron", "remove")
	assert.Equal(t, ExitUsage, r.code)
	assert.Contains(t, r.stderr, "which job?")
	r = runCronCLI(t, home, nil, "cron", "remove", "--id", "tg")
	require.Equal(t, 0, r.code, r.stderr)
	_, still := jobsByID(t, home)["tg"]
	assert.False(t, still)
	assert.True(t, strings.HasPrefix(r.stdout, "removed tg"))
}

// Upstream starts the gateway with `openpocket gateway start`; ours runs
// with `openpocket gateway`; both parse to the same command, and anything
// else is a usage error before the gateway starts.
func TestGatewayStartIsAccepted(t *testing.T) {
	var cli struct {
		Gateway GatewayCmd `cmd:""`
	}
	parser, err := kong.New(&cli, kong.Name("openpocket"))
	require.NoError(t, err)
	_, err = parser.Parse([]string{"gateway", "start", "--stop-timeout", "5s"})
	require.NoError(t, err)
	assert.Equal(t, "start", cli.Gateway.Verb)
	_, err = parser.Parse([]string{"gateway"})
	require.NoError(t, err)
	assert.Equal(t, "", cli.Gateway.Verb)

	c := GatewayCmd{Verb: "stop"}
	err = c.Run(context.Background(), services{}, nil, testSystem{}, testSystem{}, testSystem{}, testSystem{}, nil, workspace.Config{})
	var ue UsageError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), "`openpocket gateway start`")
}
