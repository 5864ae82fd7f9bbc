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
// the lease back. The service keeps one Phone per device and budget for
// its lifetime (until Close): its frame and element caches and its
// capture-path choice carry over from one call to the next, so a front
// end that looks at a screen again and again (an MCP client, a dashboard's
// live screen) pays a round trip, not a decode and a UI dump, for a
// static screen. The device is opened again on every call (a quick adb
// server query): a detached phone, or one bound to another agent, is
// refused as before. A claimed target gets a phone of its own.
func (s *Service) Phone(ctx context.Context, t Target, elementBudget int) (*device.Phone, func(), error) {
	opts := s.cfg.PhoneOptions
	if elementBudget > 0 {
		opts.ElementBudget = elementBudget
	}
	if c := t.claim; c != nil {
		if cd, ok := c.device(); ok {
			return device.NewPhone(cd, opts), onceFunc(c.Release), nil
		}
	}
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
	phone, kept := s.keptPhone(od, closeDev, opts)
	release := unlease
	if !kept {
		// This open's handle is not the one the kept phone drives.
		release = func() { unlease(); closeDev() }
	}
	return phone, onceFunc(release), nil
}

// phoneKey names a kept phone: its serial and element budget.
type phoneKey struct {
	serial string
	budget int
}

// keptPhone returns the service's phone for d's serial and opts' budget,
// making it (over d, whose closeDev then runs at Close) on first use;
// kept reports that d became the phone's transport.
func (s *Service) keptPhone(d engine.Device, closeDev func(), opts device.Options) (phone *device.Phone, kept bool) {
	key := phoneKey{d.Serial(), opts.ElementBudget}
	s.phonesMu.Lock()
	defer s.phonesMu.Unlock()
	if p := s.phones[key]; p != nil {
		return p, false
	}
	p := device.NewPhone(d, opts)
	s.phones[key] = p
	s.phoneClose = append(s.phoneClose, closeDev)
	return p, true
}

// closePhones forgets the kept phones and closes their devices.
func (s *Service) closePhones() {
	s.phonesMu.Lock()
	closers := s.phoneClose
	s.phones, s.phoneClose = map[phoneKey]*device.Phone{}, nil
	s.phonesMu.Unlock()
	for _, c := range closers {
		c()
	}
}
