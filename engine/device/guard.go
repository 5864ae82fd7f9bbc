package device

import (
	"context"
	"time"

	"github.com/openpocket/openpocket/engine/screen"
)

// A Guard sees every UI tree the phone dumps before its caller does: the
// agent's capture, a playbook's wait and tap, a replayed skill. It may act
// on the phone first (engine/capability answers the permission
// controller's dialogs by policy) and reports whether it did; the phone
// then waits for the screen to settle and dumps again, so the caller — a
// model included — never sees, and cannot press, what the guard answered.
type Guard interface {
	Screen(ctx context.Context, p *Phone, root *screen.Node) (acted bool, err error)
}

// guardBox lets an interface live in an atomic.Pointer.
type guardBox struct{ g Guard }

// maxGuardRounds bounds how many screens in a row a guard may answer in
// one dump (a request for several groups shows one dialog per group).
const maxGuardRounds = 4

// SetGuard installs g (nil removes it). A session binds its own guard
// when it opens the phone.
func (p *Phone) SetGuard(g Guard) {
	if g == nil {
		p.guard.Store(nil)
		return
	}
	p.guard.Store(&guardBox{g})
}

// guarded runs the guard over a fresh dump and dumps again after each
// screen it answered.
func (p *Phone) guarded(ctx context.Context, root *screen.Node, timedOut bool, err error) (*screen.Node, bool, error) {
	box := p.guard.Load()
	for i := 0; err == nil && box != nil && i < maxGuardRounds; i++ {
		acted, gerr := box.g.Screen(ctx, p, root)
		if gerr != nil {
			return nil, false, gerr
		}
		if !acted {
			break
		}
		// The screen changed under every cached look; wait until the
		// dialog is gone before the next dump.
		p.Invalidate()
		if _, serr := p.Settle(ctx, time.Second); serr != nil {
			return nil, false, serr
		}
		root, timedOut, err = p.dump(ctx)
	}
	return root, timedOut, err
}
