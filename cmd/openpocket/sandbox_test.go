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

// TestSecretParamNeverInLogs: a playbook's Lua logs and prints a secret
// parameter; log.txt and the terminal show ••• and no file the run wrote
// holds the value.
func TestSecretParamNeverInLogs(t *testing.T) {
	phone := simtest.Start(t)
	home := t.TempDir()
	flow := filepath.Join(t.TempDir(), "secret.yaml")
	require.NoError(t, os.WriteFile(flow, []byte(`params:
  password: {type: string, secret: true, required: true}
steps:
  - lua: |
      log.info("pw is " .. password)
      log.warn("pair", "pw", password, "n", 1)
      print("printed " .. password)
`), 0o644))
	const secret = "Hunter2-S3CRET"
	res := runBinary(t, nil, "--home", home, "--device", phone.Serial(), "play", flow, "-e", "password="+secret)
	require.Equal(t, 0, res.code, res.stderr)
	assert.NotContains(t, res.stdout+res.stderr, secret)
	logs, err := filepath.Glob(filepath.Join(home, "state", "runs", "*", "log.txt"))
	require.NoError(t, err)
	require.Len(t, logs, 1)
	b, err := os.ReadFile(logs[0])
	require.NoError(t, err)
	for _, want := range []string{"pw is •••", "pw=•••", "printed •••"} {
		assert.Contains(t, string(b), want)
	}
	require.NoError(t, filepath.WalkDir(home, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(data), secret) {
			t.Errorf("%s holds the secret", path)
		}
		return nil
	}))
}

// TestScriptRunADBIsTheDeviceFlagsPhone: `openpocket --device SERIAL
// script run` (no session) gives the script that phone and no other.
func TestScriptRunADBIsTheDeviceFlagsPhone(t *testing.T) {
	needSandbox(t)
	mine, other := simtest.Start(t), simtest.Start(t)
	home := t.TempDir()
	res := runBinary(t, nil, "--home", home, "--device", mine.Serial(), "script", "run", "--text",
		"adb shell echo mine-says-hi; adb -s "+other.Serial()+" shell echo other-reached; adb devices")
	assert.Contains(t, res.stdout, "mine-says-hi", res.stderr)
	assert.NotContains(t, res.stdout, "other-reached")
	assert.Contains(t, res.stdout, "the device named is not this run's phone ("+mine.Serial()+")")
	assert.NotContains(t, res.stdout, other.Serial()+"\tdevice")
}
