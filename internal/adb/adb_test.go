package adb_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"image/png"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// privateServer starts an adb server of our own on a free port, so tests
// that depend on which devices are attached are not disturbed by virtual
// phones other test packages attach to the shared server.
func privateServer(t *testing.T) string {
	t.Helper()
	simtest.RequireADB(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	l.Close()
	// A private server still scans 127.0.0.1:5555-5585 for emulators, and
	// other packages' tests run virtual emulators there (internal/emulator):
	// a scan limit below the first port keeps this server to what the test
	// attaches.
	t.Setenv("ADB_LOCAL_TRANSPORT_MAX_PORT", "5553")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, sim.EnsureADBServer(ctx, addr))
	_, port, _ := net.SplitHostPort(addr)
	t.Cleanup(func() { exec.Command("adb", "-P", port, "kill-server").Run() })
	return addr
}

func startOn(t *testing.T, server string) *sim.Sim {
	return simtest.Start(t, func(o *sim.Options) { o.ADBServer = server })
}

func TestTargetSelection(t *testing.T) {
	server := privateServer(t)
	client := adb.NewClient(server)
	ctx := context.Background()

	_, err := client.Open(ctx, adb.Target{})
	assert.ErrorIs(t, err, adb.ErrNoDevice)
	assert.ErrorContains(t, err, "openpocket sim")

	a := startOn(t, server)
	d, err := client.Open(ctx, adb.Target{})
	require.NoError(t, err, "the only attached device is picked")
	assert.Equal(t, a.Serial(), d.Serial())

	b := startOn(t, server)
	_, err = client.Open(ctx, adb.Target{})
	assert.ErrorIs(t, err, adb.ErrMultipleDevices)
	assert.ErrorContains(t, err, a.Serial())
	assert.ErrorContains(t, err, b.Serial())
	assert.ErrorContains(t, err, "--device")

	d, err = client.Open(ctx, adb.Target{Serial: b.Serial()})
	require.NoError(t, err)
	assert.Equal(t, b.Serial(), d.Serial())

	_, err = client.Open(ctx, adb.Target{Serial: "emulator-9999"})
	assert.ErrorIs(t, err, adb.ErrDeviceNotFound)

	devs, err := client.Devices(ctx)
	require.NoError(t, err)
	require.Len(t, devs, 2)
	assert.Equal(t, "device", devs[0].State)
	assert.NotEmpty(t, devs[0].Model)
}

func TestTargetEndpointConnectsFirst(t *testing.T) {
	server := privateServer(t)
	phone := simtest.Start(t, func(o *sim.Options) { o.ADBServer = server; o.Attach = false })
	client := adb.NewClient(server)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var d *adb.Device
	var err error
	// The server reports a freshly connected device after its handshake.
	for ctx.Err() == nil {
		if d, err = client.Open(ctx, adb.Target{Endpoint: phone.Addr()}); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	require.NoError(t, err)
	res, err := d.Shell(ctx, "getprop ro.build.version.sdk")
	require.NoError(t, err)
	assert.Equal(t, "34", strings.TrimSpace(string(res.Stdout)))
	require.NoError(t, client.Disconnect(ctx, phone.Addr()))

	_, err = client.Open(ctx, adb.Target{Endpoint: "127.0.0.1:1"})
	assert.ErrorIs(t, err, adb.ErrConnectionFailed)
}

func TestNoServer(t *testing.T) {
	client := adb.NewClient("127.0.0.1:1")
	_, err := client.Devices(context.Background())
	assert.ErrorIs(t, err, adb.ErrNoServer)
	assert.ErrorContains(t, err, "adb start-server")
}

func openShared(t testing.TB) (*sim.Sim, *adb.Device) {
	s := simtest.Start(t)
	d, err := adb.NewClient("").Open(context.Background(), adb.Target{Serial: s.Serial()})
	require.NoError(t, err)
	return s, d
}

func TestShellV2ExitCodeAndStreams(t *testing.T) {
	_, d := openShared(t)
	res, err := d.Shell(context.Background(), "echo out; echo err >&2; exit 3")
	require.NoError(t, err)
	assert.Equal(t, "out\n", string(res.Stdout))
	assert.Equal(t, "err\n", string(res.Stderr))
	assert.Equal(t, 3, res.ExitCode)

	res, err = d.Shell(context.Background(), "nosuchcmd")
	require.NoError(t, err)
	assert.Equal(t, 127, res.ExitCode)
	assert.Contains(t, string(res.Stderr), "nosuchcmd: not found")
}

func TestLongRequestsPassGoadbsLimit(t *testing.T) {
	s, d := openShared(t)
	long := strings.Repeat("x", 2000)
	res, err := d.Shell(context.Background(), "cmd clipboard set text "+long)
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode, string(res.Stderr))
	assert.Equal(t, long, s.Phone().Clipboard())
}

func TestExecOutScreencapIsBinarySafe(t *testing.T) {
	s, d := openShared(t)
	b, err := d.ExecOut(context.Background(), "screencap -p")
	require.NoError(t, err)
	assert.Equal(t, s.Phone().ScreenPNG(), b)
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	assert.Equal(t, 1080, img.Bounds().Dx())
}

func TestPushPullRoundTrip(t *testing.T) {
	_, d := openShared(t)
	data := make([]byte, 3<<20)
	_, err := rand.Read(data)
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, d.Push(ctx, "/data/local/tmp/blob.bin", data, 0o644))
	got, err := d.Pull(ctx, "/data/local/tmp/blob.bin")
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data, got), "pulled bytes differ")

	_, err = d.Pull(ctx, "/data/local/tmp/missing.bin")
	assert.Error(t, err)
}

func TestCancellationStopsACall(t *testing.T) {
	_, d := openShared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := d.Shell(ctx, "sleep 30")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 10*time.Second, "returns promptly, not after the command")
}

func TestDeviceLostIsReportedNotHung(t *testing.T) {
	s, d := openShared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := d.Shell(ctx, "sleep 30")
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	s.DropConnections()
	select {
	case err := <-done:
		require.Error(t, err)
		assert.True(t, errors.Is(err, device.ErrDeviceLost), "got %v", err)
	case <-time.After(15 * time.Second):
		t.Fatal("shell call hung after the device was lost")
	}
}

// TestPhoneOverADBDrivesTheVirtualPhone runs the device layer through the
// real adb server: actions change the simulated state as expected.
func TestPhoneOverADBDrivesTheVirtualPhone(t *testing.T) {
	s, d := openShared(t)
	p := device.NewPhone(d, device.Options{})
	ctx := context.Background()

	res, err := p.LaunchApp(ctx, "com.android.settings")
	require.NoError(t, err)
	assert.Equal(t, "Launched com.android.settings via monkey", res)
	snap, err := p.Capture(ctx, device.CaptureOptions{Scaled: true, SOM: true})
	require.NoError(t, err)
	assert.Equal(t, "com.android.settings", snap.CurrentApp)
	wifi := findByID(snap.UIElements, "wifi_switch")
	require.NotNil(t, wifi, "the Wi-Fi switch is a numbered element")
	before := s.Phone().WifiOn()
	// The model taps in scaled space; the phone maps it back.
	tap := fmt.Sprintf(`{"type":"tap","x":%d,"y":%d}`, wifi.ScaledCenter.X, wifi.ScaledCenter.Y)
	a := mustParse(t, tap)
	out, err := p.Execute(ctx, a, device.ActOptions{Snapshot: snap, Scaled: true, Observe: true})
	require.NoError(t, err)
	assert.NotEqual(t, before, s.Phone().WifiOn(), "the scaled center tapped the switch")
	assert.Contains(t, out.Result, "state_delta changed=true app=com.android.settings->com.android.settings")

	// A label inside a clickable container: the container is numbered.
	row := findByText(snap.UIElements, "About phone")
	require.NotNil(t, row)
	assert.True(t, row.Clickable, "the clickable row (a container) is kept, labelled by its child")
}

func TestTypeUnicodeThroughClipboardAndMonkeyFallback(t *testing.T) {
	s, d := openShared(t)
	p := device.NewPhone(d, device.Options{})
	ctx := context.Background()
	s.Phone().FailMonkey(true)
	res, err := p.LaunchApp(ctx, "com.openpocket.notes")
	require.NoError(t, err)
	assert.Contains(t, res, "via am start -n com.openpocket.notes/")
	s.Phone().FailMonkey(false)
	snap, err := p.Capture(ctx, device.CaptureOptions{})
	require.NoError(t, err)
	if allow := findByText(snap.UIElements, "Allow"); allow != nil {
		_, err = p.Execute(ctx, mustParse(t, fmt.Sprintf(`{"type":"tap","x":%d,"y":%d}`, allow.Center.X, allow.Center.Y)), device.ActOptions{})
		require.NoError(t, err)
		snap, err = p.Capture(ctx, device.CaptureOptions{NoCache: true})
		require.NoError(t, err)
	}
	field := findByID(snap.UIElements, "note_input")
	require.NotNil(t, field)
	_, err = p.Execute(ctx, mustParse(t, fmt.Sprintf(`{"type":"tap","x":%d,"y":%d}`, field.Center.X, field.Center.Y)), device.ActOptions{})
	require.NoError(t, err)
	res, err = p.Type(ctx, "日本語 ✓ café")
	require.NoError(t, err)
	assert.Contains(t, res, "clipboard")
	assert.Equal(t, "日本語 ✓ café", s.Phone().FocusedText())
}

func mustParse(t *testing.T, js string) action.Action { return mustParseB(t, js) }

func mustParseB(t testing.TB, js string) action.Action {
	t.Helper()
	a, _, err := action.Parse([]byte(js), nil)
	require.NoError(t, err)
	return a
}

func findByID(els []screen.UIElement, id string) *screen.UIElement {
	for i := range els {
		if strings.HasSuffix(els[i].ResourceID, ":id/"+id) {
			return &els[i]
		}
	}
	return nil
}

func findByText(els []screen.UIElement, text string) *screen.UIElement {
	for i := range els {
		if els[i].Text == text || els[i].ContentDesc == text {
			return &els[i]
		}
	}
	return nil
}

func TestDetachedMidCaptureIsAnErrorNotAHang(t *testing.T) {
	s, d := openShared(t)
	p := device.NewPhone(d, device.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		for {
			if _, err := p.Capture(ctx, device.CaptureOptions{NoCache: true}); err != nil {
				done <- err
				return
			}
		}
	}()
	time.Sleep(200 * time.Millisecond)
	require.NoError(t, s.Close())
	select {
	case err := <-done:
		require.Error(t, err)
		assert.NotErrorIs(t, err, context.DeadlineExceeded, "failed because the device went away, not by timing out")
	case <-time.After(25 * time.Second):
		t.Fatal("capture hung after the device was detached")
	}
}
