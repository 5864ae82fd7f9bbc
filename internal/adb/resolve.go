package adb

import (
	"context"
	"fmt"
	"strings"
)

// Source says which rule of Resolve chose the device.
type Source string

// The rules of Resolve, first match wins.
const (
	FromFlag     Source = "--device"
	FromEndpoint Source = "--target"
	FromSim      Source = "--sim"
	FromEnv      Source = "ANDROID_SERIAL"
	FromBinding  Source = "the agent's binding"
	FromConfig   Source = "config target"
	FromOnly     Source = "the only attached device"
)

// Selection is what the front ends know about the device a run should
// use, in the order Resolve honours it. Empty fields are absent.
type Selection struct {
	// Flag is --device; Endpoint is --target HOST:PORT; Sim the virtual
	// phone's serial when --sim started one.
	Flag, Endpoint, Sim string
	// Env is $ANDROID_SERIAL.
	Env string
	// Agent names the agent whose binding and config follow (messages).
	Agent string
	// BoundDevice, BoundEndpoint are the agent's binding.
	BoundDevice, BoundEndpoint string
	// ConfigDevice, ConfigEndpoint are config.json's target.
	ConfigDevice, ConfigEndpoint string
}

// Choice is the device Resolve picked: a serial, or an endpoint to
// connect first (its serial is the endpoint), and why.
type Choice struct {
	Serial, Endpoint string
	Source           Source
	// Note is worth a line to the user: $ANDROID_SERIAL overrides the
	// agent's bound target.
	Note string
}

// Name is the serial the choice drives ("" when it is the only attached
// device, not yet listed).
func (c Choice) Name() string {
	if c.Serial != "" {
		return c.Serial
	}
	return c.Endpoint
}

// Static resolves sel without asking the adb server: every rule but the
// last. ok is false when only the attached devices can decide.
func Static(sel Selection) (Choice, bool) {
	switch {
	case sel.Flag != "" || sel.Endpoint != "":
		src := FromFlag
		if sel.Flag == "" {
			src = FromEndpoint
		}
		return Choice{Serial: sel.Flag, Endpoint: sel.Endpoint, Source: src}, true
	case sel.Sim != "":
		return Choice{Serial: sel.Sim, Source: FromSim}, true
	case sel.Env != "":
		c := Choice{Serial: sel.Env, Source: FromEnv}
		if bound := first(sel.BoundDevice, sel.BoundEndpoint); bound != "" && bound != sel.Env {
			c.Note = fmt.Sprintf("note: ANDROID_SERIAL=%s overrides agent %s's bound target %s (unset ANDROID_SERIAL to drive %s)",
				sel.Env, agentName(sel.Agent), bound, bound)
		}
		return c, true
	case sel.BoundDevice != "" || sel.BoundEndpoint != "":
		return Choice{Serial: sel.BoundDevice, Endpoint: sel.BoundEndpoint, Source: FromBinding}, true
	case sel.ConfigDevice != "" || sel.ConfigEndpoint != "":
		return Choice{Serial: sel.ConfigDevice, Endpoint: sel.ConfigEndpoint, Source: FromConfig}, true
	}
	return Choice{Source: FromOnly}, false
}

// Resolve picks the device of one run: --device (or --target, or the
// virtual phone of --sim) › $ANDROID_SERIAL › the agent's binding ›
// config.json's target › the only attached device. With none of the
// first four and zero or several devices attached it fails naming the
// choices (ErrNoDevice, ErrMultipleDevices). list is asked only then.
func Resolve(ctx context.Context, sel Selection, list func(context.Context) ([]DeviceInfo, error)) (Choice, error) {
	if c, ok := Static(sel); ok {
		return c, nil
	}
	devs, err := list(ctx)
	if err != nil {
		return Choice{}, err
	}
	switch len(devs) {
	case 0:
		return Choice{}, fmt.Errorf("%w: connect a phone with USB debugging on (or `openpocket connect HOST` over Wi-Fi), start an emulator with `openpocket emulator start NAME`, or the virtual phone with `openpocket sim`", ErrNoDevice)
	case 1:
		return Choice{Serial: devs[0].Serial, Source: FromOnly}, nil
	}
	names := make([]string, len(devs))
	for i, d := range devs {
		names[i] = d.Serial + " (" + d.State + ")"
	}
	return Choice{}, fmt.Errorf("%w: %s; choose one with --device SERIAL (or ANDROID_SERIAL), or bind it to agent %s with `openpocket target set --type TYPE --device SERIAL`",
		ErrMultipleDevices, strings.Join(names, ", "), agentName(sel.Agent))
}

// OpenSelected resolves sel and opens the chosen device.
func (c *Client) OpenSelected(ctx context.Context, sel Selection) (*Device, Choice, error) {
	ch, err := Resolve(ctx, sel, func(ctx context.Context) ([]DeviceInfo, error) {
		if err := c.EnsureServer(ctx); err != nil {
			return nil, err
		}
		return c.Devices(ctx)
	})
	if err != nil {
		return nil, ch, err
	}
	d, err := c.Open(ctx, Target{Serial: ch.Serial, Endpoint: ch.Endpoint})
	if err != nil {
		return nil, ch, fmt.Errorf("%w (chosen by %s)", err, ch.Source)
	}
	return d, ch, nil
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func agentName(id string) string {
	if id == "" {
		return "default"
	}
	return id
}
