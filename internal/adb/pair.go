package adb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// ErrPairingFailed is a failed `adb pair` (Android 11+ wireless debugging).
var ErrPairingFailed = errors.New("pairing failed")

// DefaultTCPPort is the port `adb connect HOST` and `adb tcpip` use.
const DefaultTCPPort = "5555"

// WithDefaultPort is endpoint as HOST:PORT, with DefaultTCPPort for a bare
// host; a port that is no number from 1 to 65535 is an error.
func WithDefaultPort(endpoint string) (string, error) {
	if _, port, err := net.SplitHostPort(endpoint); err == nil {
		if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
			return "", fmt.Errorf("%q: the port must be a number from 1 to 65535", endpoint)
		}
		return endpoint, nil
	}
	host := strings.Trim(endpoint, "[]")
	if host == "" || strings.ContainsAny(host, " /") {
		return "", fmt.Errorf("%q: expected HOST or HOST:PORT", endpoint)
	}
	return net.JoinHostPort(host, DefaultTCPPort), nil
}

// pairingHelp is where the pairing port and code come from.
const pairingHelp = "on the phone: Settings › Developer options › Wireless debugging › Pair device with pairing code; " +
	"give the IP address & port and the six-digit code that dialog shows (its port is not the connect port, " +
	"and the code expires when the dialog closes); phone and computer must share the network"

// Pair pairs the adb server with a phone's wireless debugging (`adb pair
// HOST:PORT CODE`). The code never appears in an error.
func (c *Client) Pair(ctx context.Context, endpoint, code string) error {
	if err := c.EnsureServer(ctx); err != nil {
		return err
	}
	reply, err := c.query(ctx, "host:pair:"+code+":"+endpoint)
	if err != nil {
		var se *ServerError
		if errors.As(err, &se) {
			msg := strings.ReplaceAll(se.Message, code, "******")
			if strings.Contains(msg, "unknown host service") {
				return fmt.Errorf("%w: the adb server at %s is too old to pair (pairing needs Android platform-tools 30 or newer: install a current adb and restart its server with `adb kill-server`)", ErrPairingFailed, c.addr)
			}
			return fmt.Errorf("%w with %s: %s; %s", ErrPairingFailed, endpoint, msg, pairingHelp)
		}
		return fmt.Errorf("%w with %s: %s", ErrPairingFailed, endpoint, strings.ReplaceAll(err.Error(), code, "******"))
	}
	reply = strings.TrimSpace(strings.ReplaceAll(reply, code, "******"))
	if !strings.HasPrefix(reply, "Successfully paired") {
		return fmt.Errorf("%w with %s: %s; %s", ErrPairingFailed, endpoint, reply, pairingHelp)
	}
	return nil
}
