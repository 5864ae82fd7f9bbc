package run

import (
	"context"
	"errors"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
)

// SnapshotOptions name one screen capture.
type SnapshotOptions struct {
	Target
	Capture device.CaptureOptions
	// ElementBudget sizes the element block in characters (0 = default).
	ElementBudget int
}

// Snapshot captures the target device's screen: current app, size,
// numbered elements, screenshots as asked.
func (s *Service) Snapshot(ctx context.Context, o SnapshotOptions) (*screen.Snapshot, error) {
	phone, release, err := s.Phone(ctx, o.Target, o.ElementBudget)
	if err != nil {
		return nil, err
	}
	defer release()
	return phone.Capture(ctx, o.Capture)
}

// ActOptions name one device action.
type ActOptions struct {
	Target
	Action action.Action
	// Observe captures before and after, settles and reports state_delta.
	Observe bool
}

// ErrNotDeviceAction is returned by Act for executor actions (run_script,
// read, memory_search…), which need a run.
var ErrNotDeviceAction = errors.New("not a device action")

// Act executes one normalized device action on the target device.
// tap_element resolves against a fresh capture.
func (s *Service) Act(ctx context.Context, o ActOptions) (device.Outcome, error) {
	if !device.IsDeviceAction(o.Action) {
		return device.Outcome{}, ErrNotDeviceAction
	}
	phone, release, err := s.Phone(ctx, o.Target, 0)
	if err != nil {
		return device.Outcome{}, err
	}
	defer release()
	opts := device.ActOptions{Observe: o.Observe}
	if o.Action.Type == "tap_element" {
		snap, err := phone.Capture(ctx, device.CaptureOptions{})
		if err != nil {
			return device.Outcome{}, err
		}
		opts.Snapshot = snap
	}
	return phone.Execute(ctx, o.Action, opts)
}

// Phone opens the target device for direct use (elementBudget 0 = the
// configured default) and takes its lease like a run does; release gives
// both back.
func (s *Service) Phone(ctx context.Context, t Target, elementBudget int) (*device.Phone, func(), error) {
	var (
		d       engine.Device
		release func()
	)
	if c := t.claim; c != nil {
		if cd, ok := c.device(); ok {
			d, release = cd, c.Release
		}
	}
	if d == nil {
		if s.cfg.OpenDevice == nil {
			return nil, nil, errNoOpener
		}
		od, closeDev, err := s.cfg.OpenDevice(ctx, t.Device)
		if err != nil {
			return nil, nil, err
		}
		closeDev = onceFunc(closeDev)
		unlease, err := s.leaseFor(ctx, od.Serial())
		if err != nil {
			closeDev()
			return nil, nil, err
		}
		d, release = od, func() { unlease(); closeDev() }
	}
	opts := s.cfg.PhoneOptions
	if elementBudget > 0 {
		opts.ElementBudget = elementBudget
	}
	return device.NewPhone(d, opts), onceFunc(release), nil
}
