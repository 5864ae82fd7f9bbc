package adb

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// DeviceInfo is one line of `adb devices -l`.
type DeviceInfo struct {
	Serial  string `json:"serial"`
	State   string `json:"state"`
	Product string `json:"product,omitempty"`
	Model   string `json:"model,omitempty"`
	Device  string `json:"device,omitempty"`
}

// Devices lists attached devices with state and model, sorted by serial.
func (c *Client) Devices(ctx context.Context) ([]DeviceInfo, error) {
	list, err := c.query(ctx, "host:devices-l")
	if err != nil {
		return nil, err
	}
	return parseDevicesLong(list), nil
}

// noSerial and noPermissions are the two values adb prints with spaces in
// them: a device that reports no serial, and a USB device the host may not
// open ("no permissions (…); see [URL]").
const (
	noSerial      = "(no serial number)"
	noPermissions = "no permissions"
)

func parseDevicesLong(list string) []DeviceInfo {
	var out []DeviceInfo
	for _, line := range strings.Split(list, "\n") {
		line = strings.TrimSpace(line)
		var d DeviceInfo
		if rest, ok := strings.CutPrefix(line, noSerial); ok {
			d.Serial, line = noSerial, rest
		} else if serial, rest, ok := strings.Cut(line, " "); ok {
			d.Serial, line = serial, rest
		} else if serial, rest, ok := strings.Cut(line, "\t"); ok {
			d.Serial, line = serial, rest
		}
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, noPermissions) {
			end := strings.IndexByte(line, ']') + 1
			if end == 0 {
				end = len(line)
			}
			d.State, line = line[:end], line[end:]
		} else {
			d.State, line, _ = strings.Cut(line, " ")
		}
		if d.Serial == "" || d.State == "" {
			continue
		}
		for _, kv := range strings.Fields(line) {
			k, v, ok := strings.Cut(kv, ":")
			if !ok {
				continue
			}
			switch k {
			case "product":
				d.Product = v
			case "model":
				d.Model = v
			case "device":
				d.Device = v
			}
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Serial < out[j].Serial })
	return out
}

// Connect attaches a TCP device (`adb connect host:port`).
func (c *Client) Connect(ctx context.Context, endpoint string) error {
	msg, err := c.query(ctx, "host:connect:"+endpoint)
	if err != nil {
		return fmt.Errorf("%w %s: %v", ErrConnectionFailed, endpoint, err)
	}
	if !strings.Contains(msg, "connected to") {
		return fmt.Errorf("%w %s: %s", ErrConnectionFailed, endpoint, strings.TrimSpace(msg))
	}
	return nil
}

// Disconnect detaches a TCP device.
func (c *Client) Disconnect(ctx context.Context, endpoint string) error {
	_, err := c.query(ctx, "host:disconnect:"+endpoint)
	return err
}
