package agent_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/stdlib/agent"
)

func TestTraceRoundTrip(t *testing.T) {
	assert.Equal(t, "/w/sessions/session-1.trace.jsonl", agent.TracePath("/w/sessions/session-1.md"))
	p := filepath.Join(t.TempDir(), "s.trace.jsonl")
	tap, err := action.New("tap_element", map[string]any{"elementId": "3"})
	require.NoError(t, err)
	dev, err := action.New("tap", map[string]any{"x": 540, "y": 1200})
	require.NoError(t, err)
	st := engine.TraceStep{Step: 1, Action: tap, DeviceAction: dev, Result: "ok",
		Target: &engine.Target{ResourceID: "a:id/b", ClassName: "android.widget.Switch", Index: 1, Bounds: screen.Rect{Left: 1, Top: 2, Right: 3, Bottom: 4}}}
	require.NoError(t, agent.AppendTrace(p, st))
	st.Step = 2
	require.NoError(t, agent.AppendTrace(p, st))

	got, err := agent.ReadTrace(p)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, tap, got[0].Action)
	assert.Equal(t, dev, got[1].DeviceAction)
	assert.Equal(t, *st.Target, *got[1].Target)

	// A torn last line (crash mid-write) is ignored; a bad line in the middle is not.
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"step":3,"act`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	got, err = agent.ReadTrace(p)
	require.NoError(t, err)
	assert.Len(t, got, 2)

	require.NoError(t, os.WriteFile(p, []byte("{\"step\":1}\nnot json\n{\"step\":3}\n"), 0o644))
	_, err = agent.ReadTrace(p)
	require.ErrorContains(t, err, "s.trace.jsonl:2:")
}
