package sandbox

import (
	"fmt"
	"slices"
	"strings"
)

// The adb gate's rules. A script's adb client speaks the adb server's host
// protocol (one length-prefixed request per connection, then, after a
// transport switch, one device service). The gate never forwards a
// request it did not build itself: each client request is matched against
// the closed set below and, when allowed, replaced by the canonical
// request for the run's own device. Anything else is answered FAIL.

// gateQueries are the device-scoped host queries a script may make
// (`adb get-state`, `adb get-serialno`, `adb wait-for-device`, features
// the client asks before `shell` and `install`).
var gateQueries = func() map[string]bool {
	m := map[string]bool{"get-state": true, "get-serialno": true, "get-devpath": true, "features": true}
	for _, t := range []string{"any", "usb", "local"} {
		for _, s := range []string{"device", "recovery", "rescue", "sideload", "bootloader", "disconnect"} {
			m["wait-for-"+t+"-"+s] = true
		}
	}
	return m
}()

// gateServices are the device services a script may open on its own
// phone: shells (`adb shell`, v1 and v2), `adb exec-out`, the sync service
// (`adb push`, `adb pull`, both reading and writing only what the sandbox
// sees: the workspace and its private /tmp) and package manager calls
// (`adb install`). Port tunnels (tcp:, localabstract:, reverse:), tcpip:,
// usb:, root:, remount:, reboot: and the rest are refused.
var gateServices = []string{"shell:", "shell,", "exec:", "sync:", "abb_exec:", "abb:"}

// gateRequest is a classified client request.
type gateRequest struct {
	kind  gateKind
	tport bool   // the client used host:tport:, which answers a transport id
	query string // the device query for gateQuery
}

type gateKind int

const (
	gateServer    gateKind = iota + 1 // a server query with no device: passed as is
	gateDevices                       // the device list, filtered to the run's phone
	gateQuery                         // a device-scoped host query
	gateTransport                     // a transport switch, then one device service
)

// classify matches req against the rules for a script whose phone is own
// ("" when the run has none). The error is the refusal the client prints.
func classify(req, own string) (gateRequest, error) {
	switch req {
	case "host:version", "host:host-features":
		return gateRequest{kind: gateServer}, nil
	case "host:devices", "host:devices-l":
		return gateRequest{kind: gateDevices}, nil
	case "host:transport-any":
		return gateRequest{kind: gateTransport}, ownOr(own)
	case "host:tport:any":
		return gateRequest{kind: gateTransport, tport: true}, ownOr(own)
	}
	if s, ok := strings.CutPrefix(req, "host:transport:"); ok {
		return gateRequest{kind: gateTransport}, sameDevice(s, own)
	}
	if s, ok := strings.CutPrefix(req, "host:tport:serial:"); ok {
		return gateRequest{kind: gateTransport, tport: true}, sameDevice(s, own)
	}
	if q, ok := strings.CutPrefix(req, "host:"); ok && gateQueries[q] {
		return gateRequest{kind: gateQuery, query: q}, ownOr(own)
	}
	if rest, ok := strings.CutPrefix(req, "host-serial:"); ok {
		if own != "" {
			if q, ok := strings.CutPrefix(rest, own+":"); ok && gateQueries[q] {
				return gateRequest{kind: gateQuery, query: q}, nil
			}
		}
		if own == "" || !strings.HasPrefix(rest, own+":") {
			return gateRequest{}, fmt.Errorf("%s %q: the device named is not this run's phone (%s)", refusedPrefix, req, own)
		}
		return gateRequest{}, refusal(strings.TrimPrefix(rest, own+":"))
	}
	return gateRequest{}, refusal(strings.TrimPrefix(req, "host:"))
}

// refusedPrefix starts every refusal, so a script's stderr says who refused.
const refusedPrefix = "openpocket sandbox: refused"

// verbs name a refused request in the message (the decision never rests
// on them: whatever classify does not allow is refused).
var verbs = []string{"forward", "killforward", "list-forward", "reverse", "kill", "connect", "disconnect", "reconnect", "pair", "mdns", "tcpip", "usb", "root", "unroot", "remount", "reboot", "tcp", "localabstract", "localfilesystem", "localreserved", "jdwp", "track-devices", "transport-id", "tport", "transport-usb", "transport-local"}

// refusal names the refused request by its verb ("forward", "kill",
// "connect", "reverse") or its first word.
func refusal(req string) error {
	what, _, _ := strings.Cut(req, ":")
	for _, w := range strings.FieldsFunc(req, func(r rune) bool { return r == ':' || r == ',' }) {
		if slices.Contains(verbs, w) {
			what = w
			break
		}
	}
	return fmt.Errorf("%s %q: a script's adb reaches only its own phone (shell, exec-out, push, pull, install, devices, get-state); forward, reverse, connect, disconnect, kill-server and other devices are not available", refusedPrefix, what)
}

// serviceAllowed reports whether a device service may be opened.
func serviceAllowed(service string) error {
	for _, p := range gateServices {
		if strings.HasPrefix(service, p) {
			return nil
		}
	}
	return refusal(service)
}

// errNoPhone refuses device requests of a run without a phone; the gate
// adds why there is none.
var errNoPhone = fmt.Errorf("%s: this script has no phone of its own", refusedPrefix)

func ownOr(own string) error {
	if own == "" {
		return errNoPhone
	}
	return nil
}

func sameDevice(serial, own string) error {
	if err := ownOr(own); err != nil {
		return err
	}
	if serial != own {
		return fmt.Errorf("%s: device %q is not this run's phone (%s)", refusedPrefix, serial, own)
	}
	return nil
}

// filterDevices keeps the lines of an adb device list that name own.
func filterDevices(list, own string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(list, "\n") {
		if f := strings.Fields(line); own != "" && len(f) > 0 && f[0] == own {
			b.WriteString(line)
		}
	}
	return b.String()
}
