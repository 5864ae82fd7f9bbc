package sim_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"image/png"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	adb "github.com/zach-klippenstein/goadb"
	"github.com/zach-klippenstein/goadb/wire"

	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// testTimeout bounds every adb interaction so a protocol bug fails the test
// instead of hanging it.
const testTimeout = 60 * time.Second

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// adbResult is one run of the adb binary.
type adbResult struct {
	stdout, stderr []byte
	exit           int
}

// runADB runs `adb -s serial args...`.
func runADB(t testing.TB, serial string, args ...string) adbResult {
	t.Helper()
	cmd := exec.CommandContext(testContext(t), "adb", append([]string{"-s", serial}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("adb %s: %v", strings.Join(args, " "), err)
	}
	return adbResult{stdout.Bytes(), stderr.Bytes(), cmd.ProcessState.ExitCode()}
}

func goadbClient(t testing.TB) *adb.Adb {
	t.Helper()
	client, err := adb.NewWithConfig(adb.ServerConfig{})
	require.NoError(t, err)
	return client
}

// openService switches a fresh adb server connection to serial and opens
// service on it, as internal/adb does for the services goadb lacks. The
// connection is closed when ctx ends, so reads cannot outlive it.
func openService(ctx context.Context, client *adb.Adb, serial, service string) (*wire.Conn, error) {
	conn, err := client.Dial()
	if err != nil {
		return nil, err
	}
	context.AfterFunc(ctx, func() { _ = conn.Close() })
	for _, req := range []string{"host:transport:" + serial, service} {
		if err := wire.SendMessageString(conn, req); err != nil {
			conn.Close()
			return nil, err
		}
		if _, err := conn.ReadStatus(req); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return conn, nil
}

// wireRun opens service and reads its output to the end.
func wireRun(ctx context.Context, client *adb.Adb, serial, service string) ([]byte, error) {
	conn, err := openService(ctx, client, serial, service)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return conn.ReadUntilEof()
}

// shellV2 runs command with `shell,v2,raw:` and decodes the framing.
func shellV2(t testing.TB, client *adb.Adb, serial, command string) adbResult {
	t.Helper()
	raw, err := wireRun(testContext(t), client, serial, "shell,v2,raw:"+command)
	require.NoError(t, err)
	var r adbResult
	r.exit = -1
	for len(raw) > 0 {
		require.GreaterOrEqual(t, len(raw), 5, "truncated shell v2 header")
		id, n := raw[0], int(binary.LittleEndian.Uint32(raw[1:]))
		require.GreaterOrEqual(t, len(raw)-5, n, "truncated shell v2 packet")
		body := raw[5 : 5+n]
		switch id {
		case 1:
			r.stdout = append(r.stdout, body...)
		case 2:
			r.stderr = append(r.stderr, body...)
		case 3:
			r.exit = int(body[0])
		}
		raw = raw[5+n:]
	}
	return r
}

func TestShellV2ExitCodeAndSeparateStderr(t *testing.T) {
	phone := simtest.Start(t)
	const script = "echo out; echo err >&2; exit 3"

	bin := runADB(t, phone.Serial(), "shell", script)
	assert.Equal(t, "out\n", string(bin.stdout), "adb binary stdout")
	assert.Equal(t, "err\n", string(bin.stderr), "adb binary stderr")
	assert.Equal(t, 3, bin.exit, "adb binary exit code")

	wired := shellV2(t, goadbClient(t), phone.Serial(), script)
	assert.Equal(t, "out\n", string(wired.stdout), "goadb wire stdout")
	assert.Equal(t, "err\n", string(wired.stderr), "goadb wire stderr")
	assert.Equal(t, 3, wired.exit, "goadb wire exit code")

	// goadb's own RunCommand uses the v1 shell: merged output, no status.
	out, err := goadbClient(t).Device(adb.DeviceWithSerial(phone.Serial())).RunCommand("echo", "v1")
	require.NoError(t, err)
	assert.Equal(t, "v1\n", out)
}

func TestExecOutScreencapIsAPNGOfTheConfiguredSize(t *testing.T) {
	phone := simtest.Start(t, simtest.WithSize(720, 1280), simtest.WithDensity(320))

	bin := runADB(t, phone.Serial(), "exec-out", "screencap", "-p")
	require.Equal(t, 0, bin.exit, string(bin.stderr))
	img, err := png.Decode(bytes.NewReader(bin.stdout))
	require.NoError(t, err, "adb exec-out output must be an intact PNG")
	assert.Equal(t, 720, img.Bounds().Dx())
	assert.Equal(t, 1280, img.Bounds().Dy())

	wired, err := wireRun(testContext(t), goadbClient(t), phone.Serial(), "exec:screencap -p")
	require.NoError(t, err)
	assert.Equal(t, bin.stdout, wired, "both paths return the same bytes")
	assert.Equal(t, phone.Phone().ScreenPNG(), wired, "byte-identical to the phone's render")
}

func randomFile(t testing.TB, size int) (string, []byte) {
	t.Helper()
	data := make([]byte, size)
	_, err := rand.Read(data)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "random.bin")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path, data
}

func TestPushPullRoundTripWithTheADBBinary(t *testing.T) {
	phone := simtest.Start(t)
	local, data := randomFile(t, 5<<20)

	push := runADB(t, phone.Serial(), "push", local, "/sdcard/random.bin")
	require.Equal(t, 0, push.exit, "push: %s%s", push.stdout, push.stderr)

	back := filepath.Join(t.TempDir(), "back.bin")
	pull := runADB(t, phone.Serial(), "pull", "/sdcard/random.bin", back)
	require.Equal(t, 0, pull.exit, "pull: %s%s", pull.stdout, pull.stderr)
	got, err := os.ReadFile(back)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data, got), "pulled %d bytes differ from the %d pushed", len(got), len(data))

	missing := runADB(t, phone.Serial(), "pull", "/sdcard/none.bin", back)
	assert.NotEqual(t, 0, missing.exit)
	assert.Contains(t, string(missing.stdout)+string(missing.stderr), "No such file or directory")
}

func goadbDevice(t testing.TB, serial string) *adb.Device {
	return goadbClient(t).Device(adb.DeviceWithSerial(serial))
}

// pushPull writes data with goadb's sync client, reads it back and checks
// that the bytes and the size survived.
func pushPull(t testing.TB, device *adb.Device, path string, data []byte) {
	t.Helper()
	mtime := time.Unix(1700000000, 0)
	w, err := device.OpenWrite(path, 0o644, mtime)
	require.NoError(t, err)
	_, err = io.Copy(w, bytes.NewReader(data))
	require.NoError(t, err)
	require.NoError(t, w.Close())

	// goadb does not wait for the push's OKAY: this Stat is the next stream.
	entry, err := device.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, int32(len(data)), entry.Size)
	assert.Equal(t, mtime.Unix(), entry.ModifiedAt.Unix())

	r, err := device.OpenRead(path)
	require.NoError(t, err)
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	require.True(t, bytes.Equal(data, got), "read %d bytes differ from the %d written", len(got), len(data))
}

func TestPushPullRoundTripWithGoadb(t *testing.T) {
	phone := simtest.Start(t)
	_, data := randomFile(t, 5<<20)
	device := goadbDevice(t, phone.Serial())
	pushPull(t, device, "/sdcard/goadb.bin", data)

	_, err := device.OpenRead("/sdcard/none.bin")
	assert.Error(t, err)
}

// uiNode is the part of a uiautomator dump the tests look at.
type uiNode struct {
	ResourceID string   `xml:"resource-id,attr"`
	Checked    string   `xml:"checked,attr"`
	Bounds     string   `xml:"bounds,attr"`
	Children   []uiNode `xml:"node"`
}

type uiHierarchy struct {
	XMLName xml.Name `xml:"hierarchy"`
	Nodes   []uiNode `xml:"node"`
}

// dumpUI runs `uiautomator dump /dev/tty` and parses the XML before the
// trailing status line.
func dumpUI(t testing.TB, serial string) uiHierarchy {
	t.Helper()
	res := runADB(t, serial, "exec-out", "uiautomator", "dump", "/dev/tty")
	require.Equal(t, 0, res.exit, string(res.stderr))
	out := string(res.stdout)
	i := strings.LastIndex(out, "UI hierchary dumped to")
	require.GreaterOrEqual(t, i, 0, "missing the status line uiautomator prints: %q", out)
	var h uiHierarchy
	require.NoError(t, xml.Unmarshal([]byte(out[:i]), &h), "dump must be XML")
	require.NotEmpty(t, h.Nodes)
	return h
}

func findNode(nodes []uiNode, resourceID string) (uiNode, bool) {
	for _, n := range nodes {
		if n.ResourceID == resourceID {
			return n, true
		}
		if found, ok := findNode(n.Children, resourceID); ok {
			return found, true
		}
	}
	return uiNode{}, false
}

var boundsPattern = regexp.MustCompile(`^\[(\d+),(\d+)\]\[(\d+),(\d+)\]$`)

func center(t testing.TB, bounds string) (int, int) {
	t.Helper()
	m := boundsPattern.FindStringSubmatch(bounds)
	require.NotNil(t, m, "bounds %q", bounds)
	v := make([]int, 4)
	for i := range v {
		v[i], _ = strconv.Atoi(m[i+1])
	}
	return (v[0] + v[2]) / 2, (v[1] + v[3]) / 2
}

func TestUIAutomatorDumpParsesAsXML(t *testing.T) {
	phone := simtest.Start(t)
	h := dumpUI(t, phone.Serial())
	_, ok := findNode(h.Nodes, "com.android.systemui:id/clock")
	assert.True(t, ok, "the status bar is part of every dump")
}

func TestTappingTheWifiSwitchTogglesIt(t *testing.T) {
	phone := simtest.Start(t)
	const switchID = "com.android.settings:id/wifi_switch"
	start := runADB(t, phone.Serial(), "shell", "am start -n com.android.settings/.Settings")
	require.Equal(t, 0, start.exit, "%s%s", start.stdout, start.stderr)

	before, ok := findNode(dumpUI(t, phone.Serial()).Nodes, switchID)
	require.True(t, ok, "Settings shows the Wi-Fi switch")
	wasOn := phone.Phone().WifiOn()
	assert.Equal(t, strconv.FormatBool(wasOn), before.Checked)

	x, y := center(t, before.Bounds)
	tap := runADB(t, phone.Serial(), "shell", fmt.Sprintf("input tap %d %d", x, y))
	require.Equal(t, 0, tap.exit, string(tap.stderr))

	after, ok := findNode(dumpUI(t, phone.Serial()).Nodes, switchID)
	require.True(t, ok)
	assert.Equal(t, strconv.FormatBool(!wasOn), after.Checked, "the dump shows the new state")
	assert.Equal(t, !wasOn, phone.Phone().WifiOn(), "the phone's state changed")
}

func TestTwoPhonesStayIndependent(t *testing.T) {
	first := simtest.Start(t, simtest.WithModel("First"), simtest.WithSize(720, 1280))
	second := simtest.Start(t, simtest.WithModel("Second"), simtest.WithSize(1080, 1920))
	require.NotEqual(t, first.Serial(), second.Serial())

	res := runADB(t, first.Serial(), "shell", "settings put global wifi_on 0")
	require.Equal(t, 0, res.exit, string(res.stderr))
	assert.False(t, first.Phone().WifiOn())
	assert.True(t, second.Phone().WifiOn(), "a change on one phone must not reach the other")

	assert.Equal(t, "First\n", string(runADB(t, first.Serial(), "shell", "getprop ro.product.model").stdout))
	assert.Equal(t, "Second\n", string(runADB(t, second.Serial(), "shell", "getprop ro.product.model").stdout))

	for _, p := range []struct {
		s    *sim.Sim
		w, h int
	}{{first, 720, 1280}, {second, 1080, 1920}} {
		img, err := png.Decode(bytes.NewReader(runADB(t, p.s.Serial(), "exec-out", "screencap", "-p").stdout))
		require.NoError(t, err)
		assert.Equal(t, p.w, img.Bounds().Dx(), p.s.Serial())
		assert.Equal(t, p.h, img.Bounds().Dy(), p.s.Serial())
	}
}

// trackDevices subscribes to the adb server's device list changes
// (host:track-devices) and delivers each new list until ctx ends.
func trackDevices(ctx context.Context, t testing.TB) <-chan string {
	t.Helper()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", sim.DefaultADBServer)
	require.NoError(t, err)
	context.AfterFunc(ctx, func() { _ = nc.Close() })
	const req = "host:track-devices"
	_, err = fmt.Fprintf(nc, "%04x%s", len(req), req)
	require.NoError(t, err)
	status := make([]byte, 4)
	_, err = io.ReadFull(nc, status)
	require.NoError(t, err)
	require.Equal(t, "OKAY", string(status))
	lists := make(chan string, 64)
	go func() {
		defer close(lists)
		for {
			size := make([]byte, 4)
			if _, err := io.ReadFull(nc, size); err != nil {
				return
			}
			n, err := strconv.ParseUint(string(size), 16, 16)
			if err != nil {
				return
			}
			list := make([]byte, n)
			if _, err := io.ReadFull(nc, list); err != nil {
				return
			}
			lists <- string(list)
		}
	}()
	return lists
}

// stateIn finds serial's state in a device list ("" when absent).
func stateIn(list, serial string) string {
	for _, line := range strings.Split(list, "\n") {
		if s, state, ok := strings.Cut(line, "\t"); ok && s == serial {
			return state
		}
	}
	return ""
}

func TestDropConnectionsFailsRunningCallsAndTakesTheDeviceOffline(t *testing.T) {
	phone := simtest.Start(t)
	client := goadbClient(t)
	ctx := testContext(t)
	lists := trackDevices(ctx, t)
	for list := range lists { // the subscription starts with the current list
		if stateIn(list, phone.Serial()) == "device" {
			break
		}
	}

	conn, err := openService(ctx, client, phone.Serial(), "shell,v2,raw:sleep 60")
	require.NoError(t, err)
	result := make(chan []byte, 1)
	go func() {
		out, _ := conn.ReadUntilEof()
		result <- out
	}()

	phone.DropConnections()
	select {
	case out := <-result:
		// The adb server ends the client's stream when the transport dies:
		// no exit status ever arrives for the interrupted sleep.
		assert.NotContains(t, string(out), "\x03\x01\x00\x00\x00", "sleep cannot have exited normally")
	case <-ctx.Done():
		t.Fatal("a goadb call was still blocked after the device was dropped")
	}

	// The adb server reports the loss (it may reconnect right after, as it
	// does for any network device, since the phone still listens).
	sawLoss := false
	for list := range lists {
		if state := stateIn(list, phone.Serial()); state != "device" {
			sawLoss = true
			break
		}
	}
	assert.True(t, sawLoss, "host:track-devices never showed the device leaving the \"device\" state")
}

func TestCloseDetachesFromTheADBServer(t *testing.T) {
	simtest.RequireADB(t)
	ctx := testContext(t)
	phone, err := sim.Start(ctx, sim.Options{Attach: true})
	require.NoError(t, err)
	device := goadbDevice(t, phone.Serial())
	state, err := device.State()
	require.NoError(t, err)
	require.Equal(t, adb.StateOnline, state)

	require.NoError(t, phone.Close())
	_, err = device.State()
	assert.Error(t, err, "a closed phone must no longer be listed")
	require.NoError(t, phone.Close(), "Close is idempotent")
}

func TestStartWithoutAttachServesTheProtocolOnly(t *testing.T) {
	ctx := testContext(t)
	phone, err := sim.Start(ctx, sim.Options{Width: 320, Height: 640})
	require.NoError(t, err)
	defer phone.Close()
	assert.Equal(t, phone.Addr(), phone.Serial())
	nc, err := net.Dial("tcp", phone.Addr())
	require.NoError(t, err, "the adbd server must listen even when not attached")
	_ = nc.Close()
	assert.Equal(t, 320, phone.Phone().Screenshot().Bounds().Dx())
}

func TestEnsureADBServerStartsOneWhenNoneListens(t *testing.T) {
	simtest.RequireADB(t)
	ctx := testContext(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())

	require.NoError(t, sim.EnsureADBServer(ctx, addr))
	// Stop the server this test started, through its own protocol.
	t.Cleanup(func() {
		client, err := adb.NewWithConfig(adb.ServerConfig{Host: "127.0.0.1", Port: portOf(t, addr)})
		if err == nil {
			_ = client.KillServer()
		}
	})
	client, err := adb.NewWithConfig(adb.ServerConfig{Host: "127.0.0.1", Port: portOf(t, addr)})
	require.NoError(t, err)
	version, err := client.ServerVersion()
	require.NoError(t, err, "a server must answer on %s", addr)
	assert.Positive(t, version)
}

func portOf(t testing.TB, addr string) int {
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	n, err := strconv.Atoi(port)
	require.NoError(t, err)
	return n
}

func TestStartOnThePortOfAPhoneThatLeftAStaleTransport(t *testing.T) {
	simtest.RequireADB(t)
	ctx := testContext(t)
	earlier, err := sim.Start(ctx, sim.Options{})
	require.NoError(t, err)
	out, err := exec.CommandContext(ctx, "adb", "connect", earlier.Addr()).CombinedOutput()
	require.NoError(t, err, "adb connect: %s", out)
	// Closed without host:disconnect, as by a killed test process: the adb
	// server keeps the transport and tries to reconnect it.
	require.NoError(t, earlier.Close())
	t.Cleanup(func() { _ = exec.Command("adb", "disconnect", earlier.Addr()).Run() })

	phone, err := sim.Start(ctx, sim.Options{Attach: true, Port: portOf(t, earlier.Addr())})
	require.NoError(t, err)
	defer phone.Close()
	for range 3 {
		out, err := goadbDevice(t, phone.Serial()).RunCommand("echo", "fresh")
		require.NoError(t, err)
		assert.Equal(t, "fresh\n", out)
	}
}
