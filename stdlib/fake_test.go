package stdlib_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/device/devicetest"
)

// An empty search field as Android 8/9 dump it: the hint doubles as text.
const hintAsTextDump = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">` +
	`<node index="0" text="Search notes" resource-id="com.example:id/search" class="android.widget.EditText" package="com.example" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="true" password="false" selected="false" bounds="[0,100][1080,200]" hint="Search notes" />` +
	`</hierarchy>`

func fakeRig(t *testing.T, dump string) (*rig, *devicetest.Fake) {
	f := devicetest.New().
		OnOutput("uiautomator dump", dump).
		OnOutput("wm size", "Physical size: 1080x2400\n").
		OnOutput("input ", "")
	return newSessionRig(t, t.Context(), device.NewPhone(f, device.Options{})), f
}

func TestSetTextTreatsAHintShownAsTextAsEmpty(t *testing.T) {
	r, f := fakeRig(t, hintAsTextDump)
	assert.Equal(t, "", r.eval(`ui.text({id = "search"})`)[0], "an empty field reads empty, not its hint")

	out := r.eval(`ui.set_text({id = "search"}, "")`)
	require.Equal(t, true, out[0], "clearing a field that shows its hint verifies: %v", out)
	assert.Empty(t, f.CallsWithPrefix("input keyevent"), "nothing to delete in an empty field")

	out = r.eval(`ui.set_text({id = "search"}, "Search notes")`)
	assert.Equal(t, true, out[0], "typing the hint's own words verifies: %v", out)
}

// TestAssertTextFollowsTheUIDefaultTimeout: without timeout_ms, assert.text
// waits as long as the other finds (ui.set_default_timeout), not a fixed 5 s.
func TestAssertTextFollowsTheUIDefaultTimeout(t *testing.T) {
	r, f := fakeRig(t, hintAsTextDump)
	assert.Equal(t, float64(5000), r.eval(`ui.default_timeout()`)[0])
	r.run(`ui.set_default_timeout(100)`)
	assert.Equal(t, float64(100), r.eval(`ui.default_timeout()`)[0])
	err := r.evalErr(`require("assert").text({id = "search"}, "never")`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `expected "never"`)
	// At a 150 ms interval a 100 ms wait dumps once or twice; the old fixed
	// 5 s wait dumped about 33 times.
	assert.LessOrEqual(t, len(f.CallsWithPrefix("uiautomator dump")), 4)
}

// TestGlobalAssertIsTheModuleWithAutoRequire: scripts that use modules as
// globals (run, the REPL) get the assert module, which still works like
// Lua's builtin assert.
func TestGlobalAssertIsTheModuleWithAutoRequire(t *testing.T) {
	r, _ := fakeRig(t, hintAsTextDump)
	assert.Equal(t, []any{float64(7)}, r.eval(`assert(7)`), "callable like the builtin: returns its arguments")
	assert.Equal(t, true, r.eval(`assert.truthy(1) and true`)[0])
	err := r.evalErr(`assert(false, "boom")`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "boom")
	err = r.evalErr(`assert.visible({id = "nope"}, {timeout_ms = 0})`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `id="nope"`)
}
