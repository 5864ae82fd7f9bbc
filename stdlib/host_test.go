package stdlib_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
)

// A phone that cannot be opened is an operational failure every
// phone-bound function returns as nil, "fn: reason" — never a raise, and
// for ui.tap_if_exists never the "absent" false a missing element gives.
func TestUnavailablePhoneReturnsNilErr(t *testing.T) {
	r := newSessionRig(t, t.Context(), nil)
	for fn, call := range map[string]string{
		"ui.find":          `ui.find("OK", {timeout_ms = 0})`,
		"ui.tap":           `ui.tap("OK", {timeout_ms = 0})`,
		"ui.tap_if_exists": `ui.tap_if_exists("OK")`,
		"ui.text":          `ui.text("OK", {timeout_ms = 0})`,
		"ui.set_text":      `ui.set_text("OK", "x", {timeout_ms = 0})`,
		"ui.find_all":      `ui.find_all("OK")`,
		"ui.exists":        `ui.exists("OK")`,
		"ui.wait_gone":     `ui.wait_gone("OK", {timeout_ms = 0})`,
		"screen.capture":   `screen.capture()`,
		"device.size":      `device.size()`,
		"device.shell":     `device.shell("true")`,
		"app.current":      `app.current()`,
		"wait.idle":        `wait.idle({timeout_ms = 0})`,
	} {
		out, err := r.vm.Eval("return " + call)
		require.NoError(t, err, fn)
		require.Len(t, out, 2, "%s returns nil, err", fn)
		assert.Nil(t, out[0], fn)
		assert.Equal(t, fn+": no device in this test", out[1], fn)
	}
}

// Each VM has its own host: the session it is bound to, and module state
// such as ui's implicit wait, which one VM's script cannot change for
// another's.
func TestHostIsPerVM(t *testing.T) {
	a, b := newSessionRig(t, t.Context(), nil), newSessionRig(t, t.Context(), nil)
	a.run(`ui.set_default_timeout(1234)`)
	assert.Equal(t, float64(1234), a.eval(`ui.default_timeout()`)[0])
	assert.Equal(t, float64(stdlib.DefaultTimeout.Milliseconds()), b.eval(`ui.default_timeout()`)[0])
	assert.Same(t, a.sess, stdlib.HostOf(a.vm).Session())
	assert.Same(t, b.sess, stdlib.HostOf(b.vm).Session())

	// A VM without a session still runs the pure modules; the device-bound
	// ones raise, naming the function.
	vm, err := lua.New(context.Background(), stdlib.Registry(), lua.Options{AutoRequire: true})
	require.NoError(t, err)
	defer vm.Close()
	assert.Nil(t, stdlib.HostOf(vm).Session())
	out, err := vm.Eval(`json.encode({1})`)
	require.NoError(t, err)
	assert.Equal(t, "[1]", out[0])
	_, err = vm.Eval(`ui.find("OK")`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ui.find: no engine session is bound to this VM")

	// Bind gives a VM made elsewhere (script.run's) a session.
	sess, err := (&engine.Engine{}).NewSession(t.Context(), engine.SessionOptions{Task: "bound"})
	require.NoError(t, err)
	stdlib.Bind(vm, sess)
	out, err = vm.Eval(`session.task()`)
	require.NoError(t, err)
	assert.Equal(t, "bound", out[0])
}
