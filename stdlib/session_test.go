package stdlib_test

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
)

func TestSessionAndEvents(t *testing.T) {
	r := newSessionRig(t, t.Context(), nil)
	assert.Equal(t, "stdlib test", r.eval(`session.task()`)[0])
	assert.Equal(t, "", r.eval(`session.id()`)[0])

	out := r.eval(`session.record({action = {type = "swipe", x1 = 1, y1 = 2, x2 = 3, y2 = 4, duration_ms = 500},
		thought = "scroll", result = "Swiped", changed = true, app_before = "a", app_after = "b",
		target = {text = "Row", resource_id = "pkg:id/row", bounds = {left = 1, top = 2, right = 3, bottom = 4}, index = 2}})`)
	assert.Equal(t, float64(1), out[0])
	tr := r.sess.Trace()
	require.Len(t, tr, 1)
	st := tr[0]
	assert.Equal(t, action.Action{Type: "swipe", Params: map[string]any{"x1": 1, "y1": 2, "x2": 3, "y2": 4, "durationMs": 500}}, st.Action)
	assert.Equal(t, st.Action, st.DeviceAction)
	assert.Equal(t, "scroll", st.Thought)
	assert.True(t, st.Changed)
	require.NotNil(t, st.Target)
	assert.Equal(t, "pkg:id/row", st.Target.ResourceID)
	assert.Equal(t, 3, st.Target.Bounds.Right)
	assert.Equal(t, 2, st.Target.Index)

	for src, want := range map[string]string{
		`session.record({thought = "x"})`:                                    "step needs an action table",
		`session.record({action = {type = "tap"}})`:                          `missing required parameter "x"`,
		`session.record({action = {type = "tap", x = 1, y = 2}, bogus = 1})`: `unknown field bogus`,
		`events.emit("k", {1, 2})`:                                           "fields must be a table with string keys",
	} {
		err := r.evalErr(src)
		require.Error(t, err, src)
		assert.Contains(t, err.Error(), want, src)
	}

	r.eval(`events.emit("step_start", {id = "s1", line = 3})`)
	require.Len(t, r.evs, 1)
	assert.Equal(t, "step_start", r.evs[0].Kind)
	assert.Equal(t, map[string]any{"id": "s1", "line": float64(3)}, r.evs[0].Fields)

	res := r.eval(`session.finish(true, "done")`)[0].(map[string]any)
	assert.Equal(t, true, res["success"])
	assert.Equal(t, "done", res["message"])
	assert.Equal(t, float64(1), res["steps"])
	// the session's end ends the VM bound to it (asynchronously).
	eventually(t, func() bool { return r.evalErr(`1`) != nil }, "the VM still runs after session.finish")
	assert.ErrorContains(t, r.evalErr(`1`), "context canceled")
}

func TestPrintGoesToTheSessionLogger(t *testing.T) {
	var logs syncBuffer
	eng := &engine.Engine{Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	sess, err := eng.NewSession(t.Context(), engine.SessionOptions{Task: "p"})
	require.NoError(t, err)
	vm, err := stdlib.NewVM(t.Context(), sess, lua.Options{})
	require.NoError(t, err)
	defer vm.Close()
	require.NoError(t, vm.Run("p.lua", []byte(`print("hello", 42); require("log").warn("careful", "n", 3)`)))
	assert.Contains(t, logs.String(), `msg="hello\t42" source=lua`)
	assert.Contains(t, logs.String(), `level=WARN msg=careful source=lua n=3`)
	_, err = stdlib.NewVM(t.Context(), nil, lua.Options{})
	assert.ErrorContains(t, err, "needs a session")
}
