package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/lease"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
)

// play with AI steps as a user runs it: --no-ai fails without a model
// call, a run with the model resolves once and says so in the JUnit
// report (an agent: step's own steps too), the next run asks nothing,
// --ai-refresh asks again.
func TestPlayAIStepsFlagsAndJUnit(t *testing.T) {
	t.Setenv(lease.DirEnv, t.TempDir())
	app, srv, _, s := agentAppWithSim(t)
	mark := regexp.MustCompile(`mark (\d+): label="Wi-Fi" clickable=true class=Switch`)
	srv.Respond(func(q llmtest.Request) llmtest.Reply {
		b, _ := json.Marshal(q.Body)
		text := strings.ReplaceAll(string(b), `\"`, `"`)
		if strings.Contains(text, "Task: Find the element: the Wi-Fi switch") {
			if m := mark.FindStringSubmatch(text); m != nil {
				return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "tap_element", Arguments: `{"elementId": "` + m[1] + `"}`}}}
			}
		}
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "finish", Arguments: `{"message": "nothing to do"}`}}}
	})
	dir := t.TempDir()
	pb := filepath.Join(dir, "wifi.yaml")
	require.NoError(t, os.WriteFile(pb, []byte("name: wifi\nsteps:\n  - launch: {app: com.android.settings, stop: true}\n  - ai_tap: the Wi-Fi switch\n  - agent: {task: check nothing is left to do, max_steps: 2}\n"), 0o644))
	junit := filepath.Join(dir, "junit.xml")
	args := func(extra ...string) []string {
		return append([]string{"--device", s.Serial(), "play", pb, "--report", junit, "--output", filepath.Join(dir, "runs")}, extra...)
	}

	code, out, errOut := runMain(t, app.Globals.Home, args("--no-ai")...)
	assert.Equal(t, 1, code, out+errOut)
	assert.Contains(t, out+errOut, "wifi.yaml:4:")
	assert.Contains(t, out+errOut, "--no-ai forbids it")
	assert.Empty(t, srv.Requests(), "--no-ai never calls the model")

	on := s.Phone().WifiOn()
	code, out, errOut = runMain(t, app.Globals.Home, args()...)
	require.Equal(t, 0, code, out+errOut)
	assert.NotEqual(t, on, s.Phone().WifiOn())
	assert.Len(t, srv.Requests(), 2, "one call resolves the tap, one for the agent step")
	x, err := os.ReadFile(junit)
	require.NoError(t, err)
	assert.Contains(t, string(x), "resolved by the model")
	assert.Contains(t, string(x), "agent step 1: finish")
	assert.FileExists(t, filepath.Join(dir, "wifi.ai.json"))

	code, out, errOut = runMain(t, app.Globals.Home, args()...)
	require.Equal(t, 0, code, out+errOut)
	assert.Len(t, srv.Requests(), 3, "the stored selector: only the agent step asks")

	code, out, errOut = runMain(t, app.Globals.Home, args("--ai-refresh")...)
	require.Equal(t, 0, code, out+errOut)
	assert.Len(t, srv.Requests(), 5, "--ai-refresh asks the tap again")
}
