package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/executor/memory"
	"github.com/openpocket/openpocket/internal/workspace"
)

// execTestApp is an App over a fresh OPENPOCKET_HOME.
func execTestApp(t *testing.T) (*App, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	t.Setenv(workspace.EnvHome, "")
	var out, errOut bytes.Buffer
	app := &App{sys: testSystem{}, Globals: Globals{Home: filepath.Join(t.TempDir(), "home")}, Stdout: &out, Stderr: &errOut, Ctx: context.Background()}
	return app, &out, &errOut
}

func TestScriptRunOK(t *testing.T) {
	app, out, _ := execTestApp(t)
	err := (&ScriptRunCmd{Text: "echo hello"}).Run(app.Ctx, streams(app), Globals{}, onUse(app))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out.String(), "run_script exitCode=0 timedOut=false\nrunDir="+filepath.Join(app.Home, "workspace", "scripts", "runs", "run-")), out.String())
	assert.Contains(t, out.String(), "stdout:\nhello\n")
	runs, _ := filepath.Glob(filepath.Join(app.Home, "workspace", "scripts", "runs", "run-*", "result.json"))
	assert.Len(t, runs, 1)
}

func TestScriptRunFailureExitCodes(t *testing.T) {
	app, out, _ := execTestApp(t)
	file := filepath.Join(t.TempDir(), "fail.sh")
	require.NoError(t, os.WriteFile(file, []byte("ls /definitely-missing-dir\n"), 0o644))
	err := (&ScriptRunCmd{File: file}).Run(app.Ctx, streams(app), Globals{}, onUse(app))
	require.Error(t, err)
	assert.Equal(t, ExitFailed, ExitCode(err))
	assert.True(t, isReported(err), "the result text was printed; Main adds nothing")
	assert.Contains(t, out.String(), "run_script exitCode=2 ")

	out.Reset()
	err = (&ScriptRunCmd{Text: "sudo reboot"}).Run(app.Ctx, streams(app), Globals{}, onUse(app))
	assert.Equal(t, ExitFailed, ExitCode(err))
	assert.True(t, strings.HasPrefix(out.String(), "run_script rejected: "), out.String())

	err = (&ScriptRunCmd{File: filepath.Join(t.TempDir(), "missing.sh")}).Run(app.Ctx, streams(app), Globals{}, onUse(app))
	assert.Equal(t, ExitUsage, ExitCode(err))
}

func TestScriptRunLua(t *testing.T) {
	app, out, _ := execTestApp(t)
	err := (&ScriptRunCmd{Text: "local fs = require 'fs'\nfs.write('x.txt', 'abc')\nprint((fs.read('x.txt')))", Lua: true}).Run(app.Ctx, streams(app), Globals{}, onUse(app))
	require.NoError(t, err)
	assert.Contains(t, out.String(), "stdout:\nabc\n")
	assert.FileExists(t, filepath.Join(app.Home, "workspace", "x.txt"))

	out.Reset()
	err = (&ScriptRunCmd{Text: "-- lua\nerror('bad')"}).Run(app.Ctx, streams(app), Globals{}, onUse(app))
	assert.Equal(t, ExitFailed, ExitCode(err))
	assert.Contains(t, out.String(), "run_script exitCode=1 ")
}

func TestScriptRunHonoursConfigTimeout(t *testing.T) {
	app, out, _ := execTestApp(t)
	cfg := workspace.DefaultConfig()
	cfg.ScriptExecutor.TimeoutSec = 1
	cfg.ScriptExecutor.AllowedCommands = []string{"sleep"}
	data, err := workspace.MarshalConfig(cfg)
	require.NoError(t, err)
	app.Config = filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(app.Config, data, 0o644))
	err = (&ScriptRunCmd{Text: "sleep 30"}).Run(app.Ctx, streams(app), Globals{}, onUse(app))
	assert.Equal(t, ExitFailed, ExitCode(err))
	assert.Contains(t, out.String(), "timedOut=true")
}

func TestBadConfigIsUsageError(t *testing.T) {
	app, _, _ := execTestApp(t)
	app.Config = filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(app.Config, []byte("{\n  \"scriptExecutor\": {\"timeoutSec\": \"x\"}\n}\n"), 0o644))
	err := (&ScriptRunCmd{Text: "echo"}).Run(app.Ctx, streams(app), Globals{}, onUse(app))
	require.Error(t, err)
	assert.Equal(t, ExitUsage, ExitCode(err), "%v", err)
	assert.Contains(t, err.Error(), "config.json:2")
}

func writeMemoryFixture(t *testing.T, app *App) {
	t.Helper()
	ws := filepath.Join(app.Home, "workspace")
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "memory"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "MEMORY.md"), []byte("# Memory\nUser likes coffee.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "memory", "2026-01-02.md"),
		[]byte("# Memory 2026-01-02\n- [08:00:00] [OK] [default] task: place the coffee order | result: done\n"), 0o644))
}

func TestMemorySearchJSON(t *testing.T) {
	app, out, _ := execTestApp(t)
	writeMemoryFixture(t, app)
	min := 0.1
	require.NoError(t, (&MemorySearchCmd{Query: "coffee order", MinScore: &min, JSON: true}).Run(streams(app), onUse(app)))
	var res memory.SearchResult
	require.NoError(t, json.Unmarshal(out.Bytes(), &res), out.String())
	assert.Equal(t, "coffee order", res.Query)
	assert.Equal(t, 0.1, res.MinScore)
	assert.Equal(t, 3, res.ScannedFiles, "MEMORY.md, the day file and the starter memory/README.md (upstream scans it too)")
	require.Len(t, res.Results, 2)
	assert.Equal(t, "memory/2026-01-02.md#L1-L2", res.Results[0].Citation)
	assert.Equal(t, 1.0, res.Results[0].Score)
	assert.Equal(t, "MEMORY.md", res.Results[1].Path)
	assert.Equal(t, 0.25, res.Results[1].Score)
}

func TestMemorySearchText(t *testing.T) {
	app, out, _ := execTestApp(t)
	writeMemoryFixture(t, app)
	require.NoError(t, (&MemorySearchCmd{Query: "coffee order", MaxResults: 1}).Run(streams(app), onUse(app)))
	assert.Equal(t, "memory/2026-01-02.md#L1-L2 1.000 # Memory 2026-01-02 - [08:00:00] [OK] [default] task: place the coffee order | result: done\n", out.String())

	out.Reset()
	require.NoError(t, (&MemorySearchCmd{Query: "tea"}).Run(streams(app), onUse(app)))
	assert.Equal(t, "no matches for \"tea\" (min score 0.2, 3 files scanned)\n", out.String())

	bad := 1.5
	assert.Equal(t, ExitUsage, ExitCode((&MemorySearchCmd{Query: "x", MinScore: &bad}).Run(streams(app), onUse(app))))
}

func TestMemoryGet(t *testing.T) {
	app, out, _ := execTestApp(t)
	writeMemoryFixture(t, app)
	require.NoError(t, (&MemoryGetCmd{Path: "MEMORY.md", From: 2, Lines: 1}).Run(streams(app), onUse(app)))
	assert.Equal(t, "User likes coffee.\n", out.String())

	err := (&MemoryGetCmd{Path: "config.json", From: 1}).Run(streams(app), onUse(app))
	assert.Equal(t, ExitUsage, ExitCode(err))
	assert.ErrorIs(t, err, memory.ErrOutOfScope)
	err = (&MemoryGetCmd{Path: "memory/missing.md", From: 1}).Run(streams(app), onUse(app))
	assert.Equal(t, ExitFailed, ExitCode(err))
}

// The grammar of the commands parses as documented (the lead adds the
// fields to CLI).
func TestScriptMemoryGrammar(t *testing.T) {
	type grammar struct {
		Script ScriptCmd `cmd:""`
		Memory MemoryCmd `cmd:""`
	}
	var g grammar
	parse := func(args ...string) error { // a fresh parser per parse: kong keeps flag state
		g = grammar{}
		p, err := kong.New(&g, kong.Exit(func(int) {}), kong.Writers(&bytes.Buffer{}, &bytes.Buffer{}))
		require.NoError(t, err)
		_, err = p.Parse(args)
		return err
	}

	require.NoError(t, parse("script", "run", "--text", "echo hi", "--timeout", "5s", "--lua"))
	assert.Equal(t, "echo hi", g.Script.Run.Text)
	assert.Equal(t, "5s", g.Script.Run.Timeout.String())
	assert.True(t, g.Script.Run.Lua)

	assert.ErrorContains(t, parse("script", "run"), "--file=FILE or --text=SCRIPT")
	assert.ErrorContains(t, parse("script", "run", "--file", "a", "--text", "b"), "can't be used together")

	require.NoError(t, parse("memory", "search", "coffee", "--max-results", "3", "--min-score", "0.5", "--json"))
	assert.Equal(t, 3, g.Memory.Search.MaxResults)
	require.NotNil(t, g.Memory.Search.MinScore)
	assert.Equal(t, 0.5, *g.Memory.Search.MinScore)
	assert.True(t, g.Memory.Search.JSON)

	require.NoError(t, parse("memory", "get", "MEMORY.md", "--from", "3", "--lines", "4"))
	assert.Equal(t, 3, g.Memory.Get.From)
	assert.Equal(t, 4, g.Memory.Get.Lines)
}
