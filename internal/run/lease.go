package run

import (
	"context"
	"errors"
	"sync"

	"github.com/openpocket/openpocket/engine"
)

// LeaseFunc takes the lease that keeps other drivers (other processes,
// other runs of this one) off the device serial; release gives it back.
// A device someone else holds is an error that wraps the lease package's
// ErrBusy, so front ends can tell "busy" from "broken".
type LeaseFunc func(ctx context.Context, serial string) (release func(), err error)

// errNoOpener is a device run on a service built without OpenDevice.
var errNoOpener = errors.New("no device: the run service has no device opener")

// leaseFor takes serial's lease for one holder: with Config.HoldLeases the
// service keeps it until Close (one command driving its device for all its
// runs) and the returned release does nothing; otherwise the caller owns
// the release. A service without Config.Lease takes no lease.
func (s *Service) leaseFor(ctx context.Context, serial string) (func(), error) {
	if s.cfg.Lease == nil {
		return func() {}, nil
	}
	if !s.cfg.HoldLeases {
		release, err := s.cfg.Lease(ctx, serial)
		if err != nil {
			return nil, err
		}
		return onceFunc(release), nil
	}
	// One holder at a time decides: two runs of one command opening the
	// same device at once must not both take (and so refuse) its lease.
	s.leaseMu.Lock()
	defer s.leaseMu.Unlock()
	if _, ok := s.held[serial]; ok {
		return func() {}, nil
	}
	release, err := s.cfg.Lease(ctx, serial)
	if err != nil {
		return nil, err
	}
	s.held[serial] = onceFunc(release)
	return func() {}, nil
}

// Close releases the leases a HoldLeases service kept and closes the
// devices of the phones it kept for direct use (Phone). Runs still going
// keep their devices open but no longer exclude other drivers, so close
// the service after its runs.
func (s *Service) Close() {
	defer s.closePhones()
	s.leaseMu.Lock()
	held := s.held
	s.held = map[string]func(){}
	s.leaseMu.Unlock()
	for _, release := range held {
		release()
	}
}

// onceFunc is fn made safe to call more than once (nil: a no-op).
func onceFunc(fn func()) func() {
	if fn == nil {
		return func() {}
	}
	return sync.OnceFunc(fn)
}

// Claim is a device opened and leased before a run starts (Service.Claim).
// The run started with Claim.Target adopts it: it drives that device and
// releases the lease when it ends, on every exit path.
type Claim struct {
	serial  string
	dev     engine.Device
	release func()
	mu      sync.Mutex
	adopted bool
}

// Claim opens t's device and takes its lease now, so a device another
// driver holds refuses the run before anything of it starts (the error
// wraps the lease's ErrBusy) instead of failing it midway. Start exactly
// one run with c.Target(); call c.Release if none was started (it is safe
// to call after the run too).
func (s *Service) Claim(ctx context.Context, t Target) (*Claim, error) {
	if s.cfg.OpenDevice == nil {
		return nil, errNoOpener
	}
	d, closeDev, err := s.cfg.OpenDevice(ctx, t.Device)
	if err != nil {
		return nil, err
	}
	closeDev = onceFunc(closeDev)
	release, err := s.leaseFor(ctx, d.Serial())
	if err != nil {
		closeDev()
		return nil, err
	}
	return &Claim{serial: d.Serial(), dev: d, release: onceFunc(func() { release(); closeDev() })}, nil
}

// Target is the target a run uses to adopt the claim.
func (c *Claim) Target() Target { return Target{Device: c.serial, claim: c} }

// Serial is the claimed device's serial.
func (c *Claim) Serial() string { return c.serial }

// Release gives the device back (once; later calls do nothing).
func (c *Claim) Release() { c.release() }

// device hands the claimed device to the run's first open; later opens
// (there are none today: one session per run) open it again.
func (c *Claim) device() (engine.Device, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.adopted {
		return nil, false
	}
	c.adopted = true
	return c.dev, true
}

// openDevice is the engine's device opener for this run's target: the
// claimed device first, then the opener; each device's lease is taken
// once per run and released when the run ends.
func (lc *lifecycle) openDevice(ctx context.Context) (engine.Device, error) {
	if c := lc.claim; c != nil {
		if d, ok := c.device(); ok {
			return d, nil
		}
	}
	if lc.svc.cfg.OpenDevice == nil {
		return nil, errNoOpener
	}
	d, closeDev, err := lc.svc.cfg.OpenDevice(ctx, lc.target)
	if err != nil {
		return nil, err
	}
	lc.addRelease(closeDev)
	serial := d.Serial()
	lc.mu.Lock()
	leased := lc.leased[serial]
	lc.mu.Unlock()
	if leased {
		return d, nil
	}
	release, err := lc.svc.leaseFor(ctx, serial)
	if err != nil {
		return nil, err
	}
	lc.mu.Lock()
	lc.leased[serial] = true
	lc.mu.Unlock()
	lc.addRelease(release)
	return d, nil
}

// addRelease registers work to do when the run ends (nil: none).
func (lc *lifecycle) addRelease(fn func()) {
	if fn == nil {
		return
	}
	lc.mu.Lock()
	lc.releases = append(lc.releases, fn)
	lc.mu.Unlock()
}
