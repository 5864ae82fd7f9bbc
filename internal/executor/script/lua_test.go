package script

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/action"
)

func TestRunLuaRecordsArtifacts(t *testing.T) {
	ws := t.TempDir()
	e := New(ws, Config{})
	var gotTimeout time.Duration
	res, err := e.RunLua(context.Background(), "-- lua\nprint('hi')", 5*time.Second, func(ctx context.Context, src string, timeout time.Duration) (string, error) {
		gotTimeout = timeout
		_, hasDeadline := ctx.Deadline()
		assert.True(t, hasDeadline, "run gets a context bounded by the timeout")
		return "hi\n", nil
	})
	require.NoError(t, err)
	assert.Equal(t, 5*time.Second, gotTimeout)
	assert.True(t, res.OK)
	assert.Equal(t, 0, res.ExitCode)
	assert.Equal(t, "hi\n", res.Stdout)
	assert.Equal(t, filepath.Join(res.RunDir, "script.lua"), res.ScriptPath)

	src, err := os.ReadFile(res.ScriptPath)
	require.NoError(t, err)
	assert.Equal(t, "-- lua\nprint('hi')", string(src))
	_, err = os.Stat(filepath.Join(res.RunDir, "script.sh"))
	assert.True(t, os.IsNotExist(err), "no script.sh for a Lua run")
	out, err := os.ReadFile(filepath.Join(res.RunDir, "stdout.log"))
	require.NoError(t, err)
	assert.Equal(t, "hi\n", string(out))
	saved := readResultJSON(t, res.RunDir)
	assert.Equal(t, res.RunID, saved.RunID)
	assert.True(t, saved.OK)
}

func TestRunLuaErrorTimeoutAndClamp(t *testing.T) {
	e := New(t.TempDir(), Config{TimeoutSec: 2, MaxOutputChars: 10})

	res, err := e.RunLua(context.Background(), "-- lua\nerror('boom')", 0, func(context.Context, string, time.Duration) (string, error) {
		return "partial output that is long", errors.New("script.lua:2: boom")
	})
	require.NoError(t, err)
	assert.False(t, res.OK)
	assert.Equal(t, LuaExitError, res.ExitCode)
	assert.Equal(t, "partial ou...[truncated]", res.Stdout)
	assert.True(t, strings.HasPrefix(res.Stderr, "script.lua"), res.Stderr)

	var got time.Duration
	res, err = e.RunLua(context.Background(), "-- lua\nwhile true do end", time.Hour, func(ctx context.Context, _ string, timeout time.Duration) (string, error) {
		got = timeout
		<-ctx.Done()
		return "", ctx.Err()
	})
	require.NoError(t, err)
	assert.Equal(t, 2*time.Second, got, "timeout clamped to TimeoutSec")
	assert.True(t, res.TimedOut)
	assert.Equal(t, LuaExitTimeout, res.ExitCode)
	assert.Contains(t, res.Stderr, "timed out")
}

func TestRunLuaCancelAndReject(t *testing.T) {
	e := New(t.TempDir(), Config{MaxScriptChars: 20})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := e.RunLua(ctx, "-- lua\nx=1", 0, func(ctx context.Context, _ string, _ time.Duration) (string, error) {
		return "", ctx.Err()
	})
	require.ErrorIs(t, err, context.Canceled)
	assert.NotEmpty(t, res.RunDir, "a cancelled run is still recorded")

	res, err = e.RunLua(context.Background(), "-- lua\n"+strings.Repeat("x", 30), 0, nil)
	require.NoError(t, err)
	assert.Equal(t, "max-length", res.RejectedRule)

	res, err = e.RunLua(context.Background(), "-- lua\nx=1", 0, nil)
	require.NoError(t, err)
	assert.Equal(t, "lua-unavailable", res.RejectedRule)
	assert.Equal(t, -1, res.ExitCode)
	readResultJSON(t, res.RunDir, "rejected", "rejectedRule")
}

func TestWithLuaDispatch(t *testing.T) {
	e := New(t.TempDir(), Config{})
	var ran string
	ex := e.WithLua(func(_ context.Context, src string, _ time.Duration) (string, error) {
		ran = src
		return "from lua\n", nil
	})
	text, err := ex.Execute(context.Background(), runAction("-- lua\nprint('from lua')"))
	require.NoError(t, err)
	assert.Equal(t, "-- lua\nprint('from lua')", ran)
	assert.True(t, strings.HasPrefix(text, "run_script exitCode=0 timedOut=false\n"), text)
	assert.Contains(t, text, "stdout:\nfrom lua\n")

	ran = ""
	text, err = ex.Execute(context.Background(), runAction("echo from bash"))
	require.NoError(t, err)
	assert.Empty(t, ran, "bash scripts do not go to the Lua runner")
	assert.Contains(t, text, "stdout:\nfrom bash\n")

	text, err = e.WithLua(nil).Execute(context.Background(), action.Action{Type: "run_script", Params: map[string]any{"script": "-- lua\nx=1"}})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(text, "run_script rejected: Lua scripts"), text)
}

// A run that completes while the caller's context ends must still report
// the cancellation instead of an empty, error-free result.
func TestExecuteCancelledAfterRunIsAnError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ex := New(t.TempDir(), Config{}).WithLua(func(context.Context, string, time.Duration) (string, error) {
		cancel()
		return "done\n", nil
	})
	text, err := ex.Execute(ctx, runAction("-- lua\nprint('done')"))
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, text)
}
