package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/sandbox"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// needSandbox skips outside CI when bubblewrap cannot run here.
func needSandbox(t *testing.T) {
	t.Helper()
	if c := sandbox.Probe(); !c.Bwrap {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must have working bubblewrap: %s", c.BwrapErr)
		}
		t.Skipf("no confinement here: %s", c.BwrapErr)
	}
}

// scriptOutput is the stdout and stderr of the only recorded script run.
func scriptOutput(t *testing.T, home string) (stdout, stderr string) {
	t.Helper()
	runs, err := filepath.Glob(filepath.Join(home, "workspace", "scripts", "runs", "run-*"))
	require.NoError(t, err)
	require.Len(t, runs, 1)
	o, err := os.ReadFile(filepath.Join(runs[0], "stdout.log"))
	require.NoError(t, err)
	e, err := os.ReadFile(filepath.Join(runs[0], "stderr.log"))
	require.NoError(t, err)
	return string(o), string(e)
}

// TestScriptADBConfinedToTheRunsPhone: a Lua run bound to one of three
// virtual phones starts a shell script through the real binary; the
// script's adb drives that phone, and the other phones, forward,
// kill-server and the adb port itself are out of its reach.
func TestScriptADBConfinedToTheRunsPhone(t *testing.T) {
	needSandbox(t)
	mine, other, third := simtest.Start(t), simtest.Start(t), simtest.Start(t)
	home := t.TempDir()
	lua := filepath.Join(t.TempDir(), "gate.lua")
	require.NoError(t, os.WriteFile(lua, []byte(`local r = assert(script.run([[
adb devices
adb shell echo mine-says-hi
adb -s `+other.Serial()+` shell echo other-reached
adb -s `+mine.Serial()+` shell echo mine-by-serial
adb forward tcp:0 tcp:9
adb kill-server
adb -H 127.0.0.1 -P 5037 devices
]]))
`), 0o644))
	res := runBinary(t, nil, "--home", home, "--device", mine.Serial(), "run", lua)
	require.Equal(t, 0, res.code, res.stderr)
	stdout, stderr := scriptOutput(t, home)
	assert.Contains(t, stdout, mine.Serial()+"\tdevice")
	assert.NotContains(t, stdout, other.Serial())
	assert.NotContains(t, stdout, third.Serial())
	assert.Contains(t, stdout, "mine-says-hi")
	assert.Contains(t, stdout, "mine-by-serial")
	assert.NotContains(t, stdout, "other-reached")
	assert.Contains(t, stderr, "the device named is not this run's phone ("+mine.Serial()+")")
	assert.Contains(t, stderr, `refused "forward"`)
	assert.Contains(t, stderr, "cannot connect to daemon at tcp:127.0.0.1:5037", "the adb port is not reachable directly")
	out, err := exec.Command("adb", "devices").CombinedOutput()
	require.NoError(t, err)
	for _, s := range []string{mine.Serial(), other.Serial(), third.Serial()} {
		assert.Contains(t, string(out), s+"\tdevice", "kill-server went through")
	}
	fw, err := exec.Command("adb", "forward", "--list").CombinedOutput()
	require.NoError(t, err)
	assert.False(t, strings.Contains(string(fw), mine.Serial()), "a forward was opened: %s", fw)
}
