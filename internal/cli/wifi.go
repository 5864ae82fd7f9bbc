package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/openpocket/openpocket/internal/adb"
)

// PairCmd pairs the adb server with a phone's wireless debugging
// (Android 11+), as `adb pair` does.
type PairCmd struct {
	Endpoint string `arg:"" help:"The IP address & port the phone's \"Pair device with pairing code\" dialog shows." placeholder:"HOST:PORT"`
	Code     string `arg:"" help:"The six-digit pairing code of that dialog." placeholder:"CODE"`
}

func (c *PairCmd) Help() string {
	return exampleBlock("openpocket pair 192.168.1.23:37123 482913", "openpocket connect 192.168.1.23:40111   (then connect: the port on the Wireless debugging screen)")
}

// Run pairs, then says how to connect.
func (c *PairCmd) Run(ctx context.Context, out Streams, phones *Phones) error {
	if _, _, err := splitHostPortStrict(c.Endpoint); err != nil {
		return UsageError{fmt.Errorf("pair: %w (the pairing dialog shows IP address & port)", err)}
	}
	if len(c.Code) != 6 || strings.Trim(c.Code, "0123456789") != "" {
		return UsageError{errors.New("pair: expected the six-digit code the pairing dialog shows")}
	}
	if err := phones.adbClient().Pair(ctx, c.Endpoint, c.Code); err != nil {
		return err
	}
	fmt.Fprintf(out.Stdout, "paired with %s; now connect to the address on the Wireless debugging screen: openpocket connect HOST:PORT\n", c.Endpoint)
	return nil
}

// ConnectCmd attaches a phone over Wi-Fi (`adb connect`).
type ConnectCmd struct {
	Endpoint string `arg:"" help:"The phone's address; the port defaults to 5555." placeholder:"HOST[:PORT]"`
}

func (c *ConnectCmd) Help() string {
	return exampleBlock("openpocket connect 192.168.1.23", "openpocket connect 192.168.1.23:40111", "openpocket --agent shop target set --type physical-phone --endpoint 192.168.1.23:40111")
}

// Run connects and names the new serial.
func (c *ConnectCmd) Run(ctx context.Context, out Streams, phones *Phones) error {
	ep, err := adb.WithDefaultPort(c.Endpoint)
	if err != nil {
		return UsageError{fmt.Errorf("connect: %w", err)}
	}
	client := phones.adbClient()
	if err := client.EnsureServer(ctx); err != nil {
		return err
	}
	if err := client.Connect(ctx, ep); err != nil {
		return fmt.Errorf("%w; is Wireless debugging on and the phone on this network? Android 11+: pair first (openpocket pair HOST:PORT CODE) and connect to the port the Wireless debugging screen shows; Android 10 and older: run `adb tcpip 5555` over USB first", err)
	}
	fmt.Fprintf(out.Stdout, "connected to %s (its serial); bind it with: openpocket target set --type physical-phone --endpoint %s\n", ep, ep)
	return nil
}

// splitHostPortStrict splits HOST:PORT, requiring both.
func splitHostPortStrict(endpoint string) (string, string, error) {
	ep, err := adb.WithDefaultPort(endpoint)
	if err != nil {
		return "", "", err
	}
	if ep != endpoint {
		return "", "", fmt.Errorf("%q: expected HOST:PORT", endpoint)
	}
	host, port, _ := strings.Cut(ep, ":")
	return host, port, nil
}
