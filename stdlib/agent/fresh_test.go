package agent_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/stdlib/agent"
)

var (
	wifiLine = regexp.MustCompile(`mark (\d+): label="Wi-Fi" clickable=true class=Switch [^\n]* (checked|unchecked)`)
	appLine  = regexp.MustCompile(`current app ([\w.]+)`)
)

// screenOf reads what a model trusting the element list sees in a step
// request: the app in front and the Wi-Fi switch's mark and state (the
// last ones in the request: the current screen).
func screenOf(q llmtest.Request) (app, mark string, on, found bool) {
	text := requestText(q)
	if m := appLine.FindAllStringSubmatch(text, -1); len(m) > 0 {
		app = m[len(m)-1][1]
	}
	m := wifiLine.FindAllStringSubmatch(text, -1)
	if len(m) == 0 {
		return app, "", false, false
	}
	last := m[len(m)-1]
	return app, last[1], last[2] == "checked", true
}

func tool(name string, args map[string]any) llmtest.Reply {
	b, _ := json.Marshal(args)
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: name, Arguments: string(b)}}}
}

// The README's example with a model that trusts the element list: it taps
// the switch while the list says checked and finishes once it says
// unchecked. A stale list after the tap makes it tap again (Wi-Fi back on)
// or loop until max steps.
func TestTurnWifiOffTrustingTheElementList(t *testing.T) {
	r := newRig(t)
	require.True(t, r.sim.Phone().WifiOn())
	var mu sync.Mutex
	taps := 0
	r.srv.Respond(func(q llmtest.Request) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		app, mark, on, found := screenOf(q)
		switch {
		case app != "com.android.settings" || !found:
			return tool("launch_app", map[string]any{"packageName": "com.android.settings"})
		case on:
			taps++
			return tool("tap_element", map[string]any{"elementId": mark, "thought": "Wi-Fi is on"})
		}
		return tool("finish", map[string]any{"message": "Wi-Fi is off"})
	})
	res, err := r.run(context.Background(), r.client(0), "Turn Wi-Fi off", agent.Options{MaxSteps: 8})
	require.NoError(t, err)
	assert.True(t, res.Success, res.Message)
	assert.Equal(t, 3, res.Steps, "launch, tap, finish")
	assert.Equal(t, 1, taps)
	assert.False(t, r.sim.Phone().WifiOn())
}

// Ten toggles in a row: after every tap the next step's element list
// shows the switch's new state.
func TestTenTogglesEachSeenInTheNextElementList(t *testing.T) {
	r := newRig(t)
	var mu sync.Mutex
	toggles, stale := 0, 0
	var want bool
	r.srv.Respond(func(q llmtest.Request) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		app, mark, on, found := screenOf(q)
		if app != "com.android.settings" || !found {
			return tool("launch_app", map[string]any{"packageName": "com.android.settings"})
		}
		if toggles > 0 && on != want {
			stale++
		}
		if toggles == 10 {
			return tool("finish", map[string]any{"message": "done"})
		}
		toggles++
		want = !on
		return tool("tap_element", map[string]any{"elementId": mark})
	})
	start := r.sim.Phone().WifiOn()
	res, err := r.run(context.Background(), r.client(0), "Toggle Wi-Fi ten times", agent.Options{MaxSteps: 15})
	require.NoError(t, err)
	assert.True(t, res.Success, res.Message)
	assert.Equal(t, 10, toggles)
	assert.Equal(t, 0, stale, "element lists that still showed the state before the tap")
	assert.Equal(t, start, r.sim.Phone().WifiOn())
	assert.False(t, strings.Contains(res.Message, "max steps"))
}
