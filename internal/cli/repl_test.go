package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/lua"
)

// The REPL over a pipe (no terminal): expressions, =expr, statements,
// continuation lines, errors, EOF. The interactive parts (Ctrl-C, tab
// completion, history under a terminal) are driven under tmux, see the
// report; completion is tested directly below.
func TestReplLines(t *testing.T) {
	s := simtest.Start(t)
	app, stdout, stderr := luaApp(t, t.Context(), s.Serial())
	in := strings.Join([]string{
		`ui.tap("Settings")`,
		`=app.current()`,
		`1 + 1`,
		`for i = 1, 2 do`,
		`  print("line " .. i)`,
		`end`,
		`x = {a = 1, list = {1, 2}}`,
		`x`,
		`error("boom")`,
		`nope.call()`,
		`ui.find("Nope", {timeout_ms = 100})`,
		`tostring(ui.sel("Save"):below("Title"))`,
	}, "\n") + "\n"
	cmd := &ReplCmd{stdin: io.NopCloser(strings.NewReader(in)), stdout: stdout}
	require.NoError(t, cmd.Run(replDeps(t, app)), stderr.String())
	out := stdout.String()
	for _, want := range []string{
		"com.android.settings\n",
		"2\n",
		"line 1\nline 2\n",
		`{"a":1,"list":[1,2]}`,
		"error: boom",
		"error: attempt to index a non-table object(nil) with key 'call'",
		"nil\tnot found: text=\"Nope\" within 100 ms; screen shows:",
		`text="Save" below(text="Title")`,
	} {
		assert.Contains(t, out, want)
	}
	assert.Equal(t, "com.android.settings", s.Phone().CurrentPackage())
	// history is kept under HOME/state.
	b, err := os.ReadFile(filepath.Join(app.Home, "state", "repl_history"))
	require.NoError(t, err)
	assert.Contains(t, string(b), `=app.current()`)
}

func TestReplCompletion(t *testing.T) {
	c := &completer{names: []string{"app", "app.current", "app.launch", "device", "device.tap", "device.tap_element", "ui", "ui.tap"}}
	got, n := c.Do([]rune("x = device.ta"), len("x = device.ta"))
	assert.Equal(t, len("device.ta"), n)
	assert.Equal(t, [][]rune{[]rune("p"), []rune("p_element")}, got)
	got, n = c.Do([]rune("ap"), 2)
	assert.Equal(t, 2, n)
	assert.Len(t, got, 3)
	got, _ = c.Do([]rune("print("), 6)
	assert.Empty(t, got)
}

func TestReplIncomplete(t *testing.T) {
	vm, err := lua.New(t.Context(), nil, lua.Options{})
	require.NoError(t, err)
	defer vm.Close()
	for src, want := range map[string]bool{
		"for i = 1, 2 do": true, "x = {": true, "f(": true, "[[abc": true, "function f()": true,
		`"abc`: false, "x = = 1": false, "1 +": true, "return 1": false,
	} {
		_, err := vm.Eval(src)
		assert.Equal(t, want, needMore(vm, src, err), "%q: %v", src, err)
	}
}
