package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
)

// ActCmd executes one action.
type ActCmd struct {
	Action  string `arg:"" help:"Action JSON, e.g. '{\"type\":\"tap\",\"x\":540,\"y\":1200}'."`
	Observe bool   `help:"Observe the screen before and after, settle, and report state_delta."`
}

// Run normalizes the action, executes it and prints the result line.
func (c *ActCmd) Run(ctx context.Context, out Streams, phones *Phones) error {
	a, notes, err := action.Parse([]byte(c.Action), nil)
	if err != nil {
		return UsageError{fmt.Errorf("action JSON: %w", err)}
	}
	for _, n := range notes {
		fmt.Fprintf(out.Stderr, "note: %s\n", n)
	}
	if !device.IsDeviceAction(a) {
		return UsageError{fmt.Errorf("%s is not a device action; `openpocket act` runs device actions (tap, swipe, type, keyevent, launch_app, shell, wait, …)", a.Type)}
	}
	// act reads no config (it works without a home): the device layer's
	// own defaults.
	phone, err := phones.openPhone(ctx, device.Options{})
	if err != nil {
		return err
	}
	opts := device.ActOptions{Observe: c.Observe}
	if a.Type == "tap_element" {
		snap, err := phone.Capture(ctx, device.CaptureOptions{})
		if err != nil {
			return err
		}
		opts.Snapshot = snap
	}
	res, err := phone.Execute(ctx, a, opts)
	if err != nil {
		return err
	}
	fmt.Fprintln(out.Stdout, strings.TrimRight(res.Result, "\n"))
	return nil
}
