package cli

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCronAddForAgent: `cron add --for-agent ID` writes the job's agent
// field (the global --agent still picks whose jobs file), `cron list`
// shows it; a bad id and an explicit -s beside it are usage errors naming
// the flag.
func TestCronAddForAgent(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	r := runCronCLI(t, home, nil, "cron", "add", "--id", "shop-mail", "--every", "1h", "--task", "check mail", "--for-agent", "shop")
	require.Equal(t, 0, r.code, r.stderr)
	j := jobsByID(t, home)["shop-mail"]
	require.NotNil(t, j)
	assert.Equal(t, "shop", j["agent"])
	assert.Nil(t, j["device"], "a job for an agent runs on its bound phone")

	r = runCronCLI(t, home, nil, "cron", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "agent:shop")

	r = runCronCLI(t, home, nil, "cron", "add", "--every", "1h", "--task", "x", "--for-agent", "Shop!")
	assert.Equal(t, ExitUsage, r.code)
	assert.Contains(t, r.stderr, `cron add: --for-agent: expected an agent id`)
	assert.Contains(t, r.stderr, `got "Shop!"`)

	r = runCronCLI(t, home, nil, "-s", "emu-7", "cron", "add", "--every", "1h", "--task", "x", "--for-agent", "shop")
	assert.Equal(t, ExitUsage, r.code)
	assert.Contains(t, r.stderr, "--for-agent and -s/--device")
	assert.Len(t, jobsByID(t, home), 2, "shop-mail and the starter's example; nothing added by the refused commands")
}
