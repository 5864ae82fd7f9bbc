package cli

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/workspace"
)

// luaApp is an App for calling RunCmd/ReplCmd directly, on the given
// device serial ("" = none), with a throwaway home.
func luaApp(t *testing.T, ctx context.Context, serial string) (*App, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	app := &App{sys: testSystem{},
		Globals: Globals{Home: t.TempDir(), Device: serial, ADBServer: "127.0.0.1:5037"},
		Stdout:  &stdout, Stderr: &stderr, Ctx: ctx,
		Logger: slog.New(slog.NewTextHandler(&stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	t.Cleanup(app.runCleanups)
	return app, &stdout, &stderr
}

func writeScript(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "script.lua")
	require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	return p
}

func TestRunScriptAgainstThePhone(t *testing.T) {
	s := simtest.Start(t)
	app, stdout, stderr := luaApp(t, t.Context(), s.Serial())
	script := writeScript(t, `
local who = ...
print("hello " .. who .. " " .. arg[2] .. " n=" .. arg.n)
ui.tap("Settings")
assert(ui.wait("Wi-Fi"))
ui.tap("Wi-Fi")
print(app.current())
`)
	err := (&RunCmd{Script: script, Args: []string{"ada", "--flag"}}).Run(runDeps(t, app))
	require.NoError(t, err, stderr.String())
	assert.Equal(t, "hello ada --flag n=2\ncom.android.settings\n", stdout.String())
	assert.False(t, s.Phone().WifiOn())
}

func TestRunScriptErrors(t *testing.T) {
	app, _, stderr := luaApp(t, t.Context(), "")

	// a runtime error: file:line: message on stderr, exit 1.
	script := writeScript(t, "local x = 1\nerror(\"boom\")\n")
	err := (&RunCmd{Script: script}).Run(runDeps(t, app))
	require.Error(t, err)
	assert.Equal(t, ExitFailed, ExitCode(err))
	assert.True(t, isReported(err))
	assert.Equal(t, script+":2: boom\n", stderr.String())

	// an assertion names the selector, no device: an operational failure.
	stderr.Reset()
	script = writeScript(t, "require('assert').eq(1, 2, 'numbers')\n")
	err = (&RunCmd{Script: script}).Run(runDeps(t, app))
	assert.Equal(t, ExitFailed, ExitCode(err))
	assert.Contains(t, stderr.String(), script+":1: numbers: assert.eq: expected 2, got 1")

	// a syntax error is bad input.
	script = writeScript(t, "x = = 1\n")
	err = (&RunCmd{Script: script}).Run(runDeps(t, app))
	assert.Equal(t, ExitUsage, ExitCode(err))
	assert.Contains(t, err.Error(), script+":1:")

	// a missing file is bad input.
	err = (&RunCmd{Script: filepath.Join(t.TempDir(), "nope.lua")}).Run(runDeps(t, app))
	assert.Equal(t, ExitUsage, ExitCode(err))

	// --timeout stops the run.
	script = writeScript(t, "while true do end\n")
	start := time.Now()
	err = (&RunCmd{Script: script, Timeout: 200 * time.Millisecond}).Run(runDeps(t, app))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "timeout")
	assert.Less(t, time.Since(start), 5*time.Second)

	// cancellation (Ctrl-C) maps to exit 130.
	ctx, cancel := context.WithCancel(t.Context())
	app2, _, _ := luaApp(t, ctx, "")
	time.AfterFunc(200*time.Millisecond, cancel)
	err = (&RunCmd{Script: writeScript(t, "wait.ms(60000)\n")}).Run(runDeps(t, app2))
	assert.Equal(t, ExitCanceled, ExitCode(err), "%v", err)
}

// runDeps are what RunCmd.Run declares, from app as MainWith binds them.
func runDeps(t testing.TB, app *App) (context.Context, Streams, Globals, *Phones, *run.Service) {
	t.Helper()
	return app.Ctx, streams(app), app.Globals, app.devices(), service(t, app)
}

// deps are what AgentCmd.Run declares, from app as MainWith binds them.
func deps(t testing.TB, app *App) (context.Context, Streams, *run.Service, *Agents) {
	t.Helper()
	svc := service(t, app)
	return app.Ctx, streams(app), svc, agents(t, app)
}

// skillsRunDeps are what SkillsRunCmd.Run declares.
func skillsRunDeps(t testing.TB, app *App) (context.Context, Streams, *Phones, *workspace.Home, *run.Service, *Agents) {
	t.Helper()
	svc := service(t, app)
	h, err := app.home()
	if err != nil {
		t.Fatalf("home: %v", err)
	}
	return app.Ctx, streams(app), app.devices(), h, svc, agents(t, app)
}

func streams(app *App) Streams { return Streams{Stdout: app.Stdout, Stderr: app.Stderr} }

// service is app's run service, as the provider MainWith binds builds it.
func service(t testing.TB, app *App) *run.Service {
	t.Helper()
	svc, err := app.runService()
	if err != nil {
		t.Fatalf("run service: %v", err)
	}
	return svc
}

// agents is app's Agents, as the provider MainWith binds builds it.
func agents(t testing.TB, app *App) *Agents {
	t.Helper()
	ag, err := app.agents()
	if err != nil {
		t.Fatalf("agents: %v", err)
	}
	return ag
}

// replDeps are what ReplCmd.Run declares.
func replDeps(t testing.TB, app *App) (context.Context, Streams, *workspace.Home, *run.Service) {
	t.Helper()
	svc := service(t, app)
	h, err := app.home()
	if err != nil {
		t.Fatalf("home: %v", err)
	}
	return app.Ctx, streams(app), h, svc
}

// homeDeps are the streams and home, as MainWith binds them.
func homeDeps(t testing.TB, app *App) (Streams, *workspace.Home) {
	t.Helper()
	h, err := app.home()
	if err != nil {
		t.Fatalf("home: %v", err)
	}
	return streams(app), h
}

// onUse is app's OnUse, as MainWith binds it.
func onUse(app *App) OnUse { return app.onUse() }

// home is app's home, as the provider MainWith binds opens it.
func home(t testing.TB, app *App) *workspace.Home {
	t.Helper()
	h, err := app.home()
	if err != nil {
		t.Fatalf("home: %v", err)
	}
	return h
}

// configDeps are the streams, home and config, as MainWith binds them.
func configDeps(t testing.TB, app *App) (Streams, *workspace.Home, workspace.Config) {
	t.Helper()
	cfg, err := app.config()
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return streams(app), home(t, app), cfg
}
