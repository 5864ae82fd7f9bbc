package sandbox

import (
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// TestGateRules: the gate's decision for each request an adb client may
// send, for a script whose phone has a serial with colons (a TCP device).
func TestGateRules(t *testing.T) {
	const own = "127.0.0.1:5555"
	allowed := map[string]gateKind{
		"host:version":                                gateServer,
		"host:devices-l":                              gateDevices,
		"host:tport:any":                              gateTransport,
		"host:transport-any":                          gateTransport,
		"host:tport:serial:" + own:                    gateTransport,
		"host:transport:" + own:                       gateTransport,
		"host-serial:" + own + ":get-state":           gateQuery,
		"host:get-serialno":                           gateQuery,
		"host-serial:" + own + ":wait-for-any-device": gateQuery,
	}
	for req, kind := range allowed {
		r, err := classify(req, own)
		if err != nil || r.kind != kind {
			t.Errorf("%s: got %v %v, want kind %d", req, r.kind, err, kind)
		}
	}
	for _, req := range []string{
		"host:kill", "host:connect:127.0.0.1:1", "host:disconnect:" + own, "host:forward:tcp:1;tcp:2",
		"host-serial:" + own + ":forward:tcp:1;tcp:2", "host-serial:" + own + ":killforward-all",
		"host-serial:127.0.0.1:5556:get-state", "host-serial:127.0.0.1:5555:5:get-state",
		"host:tport:serial:127.0.0.1:55555", "host:transport:emulator-5554", "host:transport-id:1",
		"host-transport-id:1:get-state", "host:tport:usb", "host-usb:get-state", "host:track-devices",
		"host:list-forward", "host:reconnect-offline", "host:pair:1:2", "host:mdns:check",
	} {
		if r, err := classify(req, own); err == nil || !strings.HasPrefix(err.Error(), refusedPrefix) {
			t.Errorf("%s: allowed as %v", req, r.kind)
		}
	}
	if _, err := classify("host:tport:any", ""); err != errNoPhone {
		t.Errorf("a run without a phone got %v", err)
	}
	for _, svc := range []string{"reverse:forward:tcp:1;tcp:2", "tcp:8080", "localabstract:x", "tcpip:5555", "root:", "reboot:", "remount:", "jdwp:1", "usb:"} {
		if serviceAllowed(svc) == nil {
			t.Errorf("service %s allowed", svc)
		}
	}
	for _, svc := range []string{"shell:id", "shell,v2,raw:id", "exec:screencap", "sync:", "abb_exec:package\x00install"} {
		if err := serviceAllowed(svc); err != nil {
			t.Errorf("service %s refused: %v", svc, err)
		}
	}
	list := "127.0.0.1:5555\tdevice\n127.0.0.1:55555\tdevice\nemulator-5554\tdevice\n"
	if got := filterDevices(list, own); got != "127.0.0.1:5555\tdevice\n" {
		t.Errorf("filtered list %q", got)
	}
}

// TestGateFollowsTheConfiguredServer: the gate talks to the server its
// phone is attached to (the device's, else ADB_SERVER_SOCKET or
// ANDROID_ADB_SERVER_PORT as adb picks it), not always 5037.
func TestGateFollowsTheConfiguredServer(t *testing.T) {
	srv := versionServer(t)
	_, port, _ := net.SplitHostPort(srv.Addr().String())
	t.Setenv("ADB_SERVER_SOCKET", "")
	t.Setenv("ANDROID_ADB_SERVER_PORT", port)
	if got := ADBServerAddr(""); got != "127.0.0.1:"+port {
		t.Fatalf("ADBServerAddr with ANDROID_ADB_SERVER_PORT=%s: %s", port, got)
	}
	t.Setenv("ADB_SERVER_SOCKET", "tcp:127.0.0.1:"+port)
	t.Setenv("ANDROID_ADB_SERVER_PORT", "1")
	for _, dev := range []GateDevice{{Serial: "x"}, {Serial: "x", Server: srv.Addr().String()}} {
		g, err := NewADBGate(func() (GateDevice, error) { return dev, nil })
		if err != nil {
			t.Fatal(err)
		}
		c, err := net.Dial("unix", filepath.Join(g.Dir(), gateSocket))
		if err != nil {
			t.Fatal(err)
		}
		writeRequest(c, "host:version")
		b, _ := io.ReadAll(c)
		c.Close()
		g.Close()
		if string(b) != "OKAY00040029" {
			t.Errorf("%+v: the gate answered %q", dev, b)
		}
	}
}

// versionServer is a stand-in adb server that answers host:version only
// (the gate's tests need to know a request reached it, nothing more).
func versionServer(t *testing.T) net.Listener {
	t.Helper()
	srv, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	go func() {
		for {
			c, err := srv.Accept()
			if err != nil {
				return
			}
			if req, err := readRequest(c); err == nil && req == "host:version" {
				c.Write([]byte("OKAY00040029"))
			}
			c.Close()
		}
	}()
	return srv
}
