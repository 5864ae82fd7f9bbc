package script

import (
	"context"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// hostDevices is the real adb server's device list, read by the host's adb.
func hostDevices(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("adb", "devices").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}

// TestScriptADBReachesOnlyItsPhone: with three virtual phones attached to
// the real adb server, a script whose phone is the first one (here the
// ANDROID_SERIAL openpocket was started with) drives that phone and no
// other: another serial, forward, reverse, connect, disconnect, another
// server and kill-server are refused, and the server keeps every phone.
func TestScriptADBReachesOnlyItsPhone(t *testing.T) {
	needSandbox(t)
	needADB(t)
	mine, other, third := simtest.Start(t), simtest.Start(t), simtest.Start(t)
	t.Setenv("ANDROID_SERIAL", mine.Serial())
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer probe.Close()
	probed := make(chan struct{}, 1)
	go func() {
		if c, err := probe.Accept(); err == nil {
			c.Close()
			probed <- struct{}{}
		}
	}()
	probePort := strconv.Itoa(probe.Addr().(*net.TCPAddr).Port)
	script := strings.Join([]string{
		"adb devices",
		"adb shell echo mine-says-hi",
		"adb get-state",
		"adb -s " + other.Serial() + " shell echo other-reached",
		"adb forward tcp:0 tcp:9",
		"adb reverse tcp:9 tcp:9",
		"adb connect 127.0.0.1:" + probePort,
		"adb disconnect " + third.Serial(),
		"adb kill-server",
		"adb -P 5038 devices",
		"adb -H 127.0.0.1 -P 5037 shell echo direct-reached",
		"adb shell echo still-mine",
		"echo pushed-and-pulled > mine.txt",
		"adb push mine.txt /sdcard/mine.txt && adb pull /sdcard/mine.txt back.txt && cat back.txt",
		"adb push /etc/shadow /sdcard/shadow",
	}, "\n")
	res, err := New(t.TempDir(), Config{}).Run(context.Background(), script, 30*time.Second)
	require.NoError(t, err)
	out := res.Stdout + res.Stderr
	t.Log(out)
	assert.Contains(t, res.Stdout, mine.Serial()+"\tdevice")
	assert.NotContains(t, out, other.Serial()+"\tdevice", "the device list shows only the script's phone")
	assert.NotContains(t, out, third.Serial()+"\tdevice")
	assert.Contains(t, res.Stdout, "mine-says-hi")
	assert.Contains(t, res.Stdout, "still-mine", "the refused requests left the script's adb working")
	assert.Contains(t, res.Stdout, "pushed-and-pulled", "push and pull within the workspace work")
	assert.Contains(t, out, "cannot stat '/etc/shadow': No such file or directory", "push sees only what the sandbox sees")
	assert.NotContains(t, res.Stdout, "other-reached")
	assert.NotContains(t, res.Stdout, "direct-reached")
	assert.Contains(t, res.Stderr, `host-serial:`+other.Serial()+`:features": the device named is not this run's phone (`+mine.Serial()+`)`)
	for _, what := range []string{`refused "forward"`, `refused "reverse"`, `refused "connect"`, `refused "disconnect"`} {
		assert.Contains(t, res.Stderr, what)
	}
	select {
	case <-probed:
		t.Error("adb connect reached a host port")
	default:
	}
	list := hostDevices(t)
	for _, s := range []string{mine.Serial(), other.Serial(), third.Serial()} {
		assert.Contains(t, list, s+"\tdevice", "the server lost a phone (kill-server or disconnect went through)")
	}
	fw, err := exec.Command("adb", "forward", "--list").CombinedOutput()
	require.NoError(t, err)
	assert.NotContains(t, string(fw), mine.Serial(), "a forward was opened")
}
