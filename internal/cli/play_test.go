package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/report"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// playMain runs the CLI against a virtual phone and returns the exit code
// and both streams.
func playMain(t *testing.T, serial string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	full := append([]string{"--home", t.TempDir(), "--device", serial}, args...)
	code := Main(context.Background(), full, &out, &errb)
	return code, out.String(), errb.String()
}

// TestExamplesPassOnTheVirtualPhone runs every example playbook (the same
// ones README points to) end to end through the real adb server.
func TestExamplesPassOnTheVirtualPhone(t *testing.T) {
	s := simtest.Start(t)
	out := t.TempDir()
	junit := filepath.Join(out, "junit.xml")
	code, stdout, stderr := playMain(t, s.Serial(), "play", "../../examples", "--output", out, "--report", junit)
	require.Equal(t, ExitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	files, err := filepath.Glob("../../examples/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	assert.Contains(t, stdout, "\n"+itoa(len(files))+" passed, 0 failed\n")

	var suites report.JUnitSuites
	b, err := os.ReadFile(junit)
	require.NoError(t, err)
	require.NoError(t, xml.Unmarshal(b, &suites))
	assert.Equal(t, len(files), suites.Tests)
	assert.Equal(t, 0, suites.Failures)
	assert.True(t, s.Phone().WifiOn(), "the examples leave Wi-Fi on")
	assert.NotEmpty(t, s.Phone().Notes(), "the examples saved notes")
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func writePlaybook(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	return p
}

func TestPlayFailureReportsTheYAMLLineAndArtifacts(t *testing.T) {
	s := simtest.Start(t)
	pb := writePlaybook(t, "broken.yaml", `name: broken
steps:
  - launch: com.android.settings
  - assert_visible: {text: "No such row", timeout: 300ms}
  - tap: Bluetooth
`)
	out := t.TempDir()
	code, stdout, stderr := playMain(t, s.Serial(), "play", pb, "--output", out)
	assert.Equal(t, ExitFailed, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "0 passed, 1 failed")
	assert.Contains(t, stdout, "broken.yaml:4", "the failure points at the YAML step's line")

	runs, err := filepath.Glob(filepath.Join(out, "*-broken"))
	require.NoError(t, err)
	require.Len(t, runs, 1)
	for _, f := range []string{"log.txt", "steps.json", "failure.png", "failure.xml", "playbook.lua"} {
		assert.FileExists(t, filepath.Join(runs[0], f))
	}
	var fr FlowReport
	b, err := os.ReadFile(filepath.Join(runs[0], "steps.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &fr))
	assert.Equal(t, "failed", fr.Status)
	require.Len(t, fr.Steps, 2, "the step after the failure did not run")
	assert.Equal(t, "failed", fr.Steps[1].Status)
	assert.Equal(t, 4, fr.Steps[1].Line)
	assert.False(t, s.Phone().BluetoothOn())
	xmlDump, err := os.ReadFile(filepath.Join(runs[0], "failure.xml"))
	require.NoError(t, err)
	assert.Contains(t, string(xmlDump), "com.android.settings", "the UI dump at the moment of failure")
}

func TestPlayOptionalStepOnlyWarns(t *testing.T) {
	s := simtest.Start(t)
	pb := writePlaybook(t, "optional.yaml", `name: optional
steps:
  - launch: com.android.settings
  - tap: {text: "Not here", optional: true, timeout: 200ms}
  - tap: Bluetooth
`)
	out := t.TempDir()
	code, stdout, stderr := playMain(t, s.Serial(), "play", pb, "--output", out)
	require.Equal(t, ExitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.True(t, s.Phone().BluetoothOn(), "the run went on after the optional step")
	runs, _ := filepath.Glob(filepath.Join(out, "*-optional", "steps.json"))
	require.Len(t, runs, 1)
	b, _ := os.ReadFile(runs[0])
	assert.True(t, strings.Contains(string(b), `"status": "warned"`), string(b))
}

func TestPlayCompileErrorIsUsageError(t *testing.T) {
	pb := writePlaybook(t, "typo.yaml", "name: typo\nsteps:\n  - tpa: Save\n")
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"--home", t.TempDir(), "lint", pb}, &out, &errb)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errb.String(), "typo.yaml:3")
	assert.Contains(t, errb.String(), `did you mean "tap"`)
}
