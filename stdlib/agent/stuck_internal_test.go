package agent

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
)

func mustAct(t *testing.T, typ string, p map[string]any) action.Action {
	t.Helper()
	a, err := action.New(typ, p)
	require.NoError(t, err)
	return a
}

func TestLoopBreakerSignals(t *testing.T) {
	tap := mustAct(t, "tap", map[string]any{"x": 10, "y": 20})
	swipe := mustAct(t, "swipe", map[string]any{"x1": 10, "y1": 800, "x2": 10, "y2": 200})
	wait := mustAct(t, "wait", map[string]any{"durationMs": 100})
	ask := mustAct(t, "request_user_input", map[string]any{"question": "which one?"})
	seen := func(changed bool, hash string) device.Outcome {
		return device.Outcome{AppAfter: "com.x", HashAfter: hash, Changed: changed}
	}

	b := loopBreaker{after: 3}
	b.observe(tap, seen(false, "h1"))
	b.observe(tap, seen(false, "h1"))
	b.observe(wait, device.Outcome{}) // not observed: neither counts nor resets
	assert.Empty(t, b.stuck(), "two dead actions are not yet stuck")
	b.observe(swipe, seen(false, "h1"))
	assert.Equal(t, "the last 3 actions changed nothing on screen (last: "+swipe.String()+")", b.stuck())
	b.observe(ask, device.Outcome{})
	assert.Empty(t, b.stuck(), "a person's answer starts afresh")

	// A switch flipped back and forth: the same action, screens revisited.
	b = loopBreaker{after: 3}
	for _, h := range []string{"on", "off", "on"} {
		b.observe(tap, seen(true, h))
	}
	assert.Contains(t, b.stuck(), "was repeated 3 times without getting anywhere")
	// A scroll that shows new rows each time is progress.
	b = loopBreaker{after: 3}
	for _, h := range []string{"rows1", "rows2", "rows3"} {
		b.observe(swipe, seen(true, h))
	}
	assert.Empty(t, b.stuck())

	// After a relaunch, the first action that changes nothing is enough;
	// one that changes something ends the probation.
	b.reset()
	b.probation = true
	b.observe(tap, seen(false, "x"))
	assert.Contains(t, b.stuck(), "after relaunching the app")
	b.reset()
	b.probation = true
	b.observe(swipe, seen(true, "y"))
	b.observe(tap, seen(false, "y"))
	assert.Empty(t, b.stuck())

	off := loopBreaker{}
	for range 10 {
		off.observe(tap, seen(false, "h"))
	}
	assert.Empty(t, off.stuck(), "stuckAfter 0 is off")
}

func TestBudget(t *testing.T) {
	b := budget{max: 1000}
	assert.Empty(t, b.before(), "the first call always goes ahead")
	for range 3 {
		assert.Empty(t, b.spent(engine.Usage{InputTokens: 250, OutputTokens: 50, TotalTokens: 300}))
	}
	assert.Equal(t, "token budget: the next model call would exceed the limit of 1000 tokens (900 used in 3 call(s), the largest took 300)", b.before())

	b = budget{max: 1000}
	assert.Empty(t, b.spent(engine.Usage{InputTokens: 600, OutputTokens: 20}))
	assert.Equal(t, "token budget exceeded: 1220 tokens used in 2 call(s), more than the limit of 1000; the last reply was not acted on",
		b.spent(engine.Usage{InputTokens: 600, OutputTokens: 0}))

	none := budget{}
	none.spent(engine.Usage{TotalTokens: 1 << 40})
	assert.Empty(t, none.before(), "maxTokens 0: no budget")
	assert.Equal(t, int64(1<<40), none.used.TotalTokens, "usage is still counted")
}
