package cli

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/llm/llmtest"
)

// skills run on an app that renamed the recorded switch: one model call
// repairs the step, the output says which, the learned skill is written
// back (script and a dated note in its markdown), and the next run needs
// no model call.
func TestSkillsRunRepairsARenamedTarget(t *testing.T) {
	app, srv, out, s := agentAppWithSim(t)
	h, err := app.home()
	require.NoError(t, err)
	art := writeWifiOffSkill(t, h)
	mark := regexp.MustCompile(`mark (\d+): label="[^"]*" clickable=true class=Switch[^\n]*`)
	srv.Respond(func(q llmtest.Request) llmtest.Reply {
		b, _ := json.Marshal(q.Body)
		text := strings.ReplaceAll(strings.ReplaceAll(string(b), `\"`, `"`), `\n`, "\n")
		if strings.Contains(text, "Task: Find the element: ") && strings.Contains(text, "wifi_switch") {
			if m := mark.FindStringSubmatch(text); m != nil {
				return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "tap_element", Arguments: `{"elementId": "` + m[1] + `"}`}}}
			}
		}
		return llmtest.Reply{Text: "no idea"}
	})
	s.Phone().Relabel("wifi_switch", "wlan_switch")
	on := s.Phone().WifiOn()

	run := func() error {
		out.Reset()
		return (&SkillsRunCmd{Name: art.Name, Params: map[string]string{"timeout_ms": "1500"}}).Run(skillsRunDeps(t, app))
	}
	require.NoError(t, run(), out.String())
	assert.Len(t, srv.Requests(), 1, "one model call repairs the step")
	assert.NotEqual(t, on, s.Phone().WifiOn())
	assert.Contains(t, out.String(), "repaired: step 2 (")
	assert.Contains(t, out.String(), "wlan_switch")
	script, err := os.ReadFile(art.ScriptPath)
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(script), `"com.android.settings:id/wlan_switch"`), "the script holds the new selector")
	md, err := os.ReadFile(art.SkillPath)
	require.NoError(t, err)
	assert.Contains(t, string(md), "## Repairs\n\n- "+time.Now().UTC().Format("2006-01-02")+": step 2")

	on = s.Phone().WifiOn()
	require.NoError(t, run(), out.String())
	assert.Len(t, srv.Requests(), 1, "the repaired skill replays with zero model calls")
	assert.NotEqual(t, on, s.Phone().WifiOn())
	assert.NotContains(t, out.String(), "repaired:")
}
