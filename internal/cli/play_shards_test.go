package cli

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/sim/simtest"
)

type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readJUnit(t *testing.T, path string) junitDoc {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc junitDoc
	require.NoError(t, xml.Unmarshal(data, &doc), string(data))
	return doc
}

// playFolder writes n playbooks that each open an app and check it.
func playFolder(t *testing.T, names ...string) string {
	dir := t.TempDir()
	for _, n := range names {
		body := "name: " + n + "\nsteps:\n  - launch: com.android.settings\n  - assert_visible: Wi-Fi\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, n+".yaml"), []byte(body), 0o644))
	}
	return dir
}

// TestPlayDevicesWritesOneReportWithASuitePerDevice: play --devices on two
// virtual phones splits the folder and writes one JUnit report with both
// suites, each phone having run its own share.
func TestPlayDevicesWritesOneReportWithASuitePerDevice(t *testing.T) {
	home := isolatedInstall(t)
	p1, p2 := simtest.Start(t), simtest.Start(t)
	dir := playFolder(t, "one", "two", "three")
	report := filepath.Join(t.TempDir(), "junit.xml")
	code, out, errOut := runMain(t, home, "play", dir, "--devices", p1.Serial()+","+p2.Serial(), "--report", report)
	require.Equal(t, 0, code, out+errOut)
	assert.Contains(t, out, "3 playbooks across 2 devices")
	// Sorted one, three, two: dealt one and two to p1, three to p2.
	assert.Contains(t, out, "["+p1.Serial()+"] [2/2] two: passed")
	assert.Contains(t, out, "["+p2.Serial()+"] [1/1] three: passed")
	assert.Contains(t, out, "3 passed, 0 failed")
	doc := readJUnit(t, report)
	assert.Equal(t, 3, doc.Tests)
	require.Len(t, doc.Suites, 2)
	assert.Equal(t, "openpocket playbooks on "+p1.Serial(), doc.Suites[0].Name)
	assert.Equal(t, 2, doc.Suites[0].Tests)
	assert.Equal(t, "openpocket playbooks on "+p2.Serial(), doc.Suites[1].Name)
	assert.Equal(t, "three", doc.Suites[1].Cases[0].Name)
	for _, p := range []string{p1.Phone().CurrentPackage(), p2.Phone().CurrentPackage()} {
		assert.Equal(t, "com.android.settings", p, "both phones ran their share")
	}
}

// TestPlayShardsSkipsPhonesOfOtherAgents: --shards picks free devices;
// --devices naming a phone another agent has bound fails that suite.
func TestPlayShardsHonoursBindings(t *testing.T) {
	home := isolatedInstall(t)
	p1, p2 := simtest.Start(t), simtest.Start(t)
	code, _, errOut := runMain(t, home, "agents", "create", "owner")
	require.Equal(t, 0, code, errOut)
	code, _, errOut = runMain(t, home, "--agent", "owner", "target", "set", "--type", "emulator", "--device", p2.Serial())
	require.Equal(t, 0, code, errOut)
	dir := playFolder(t, "one", "two")
	report := filepath.Join(t.TempDir(), "junit.xml")
	code, out, errOut := runMain(t, home, "play", dir, "--devices", p1.Serial()+","+p2.Serial(), "--report", report)
	assert.Equal(t, ExitDevice, code, out+errOut)
	doc := readJUnit(t, report)
	require.Len(t, doc.Suites, 2)
	assert.Equal(t, 0, doc.Suites[0].Failures)
	require.NotNil(t, doc.Suites[1].Cases[0].Failure)
	assert.Contains(t, doc.Suites[1].Cases[0].Failure.Message, `bound to agent "owner"`)

	code, out, errOut = runMain(t, home, "play", dir, "--shards", "99")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "bound to other agents: "+p2.Serial()+" (agent owner)", out)
}
