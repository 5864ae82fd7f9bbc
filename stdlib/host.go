package stdlib

import (
	"fmt"
	"log/slog"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/lua"
)

// Host is what the modules of one VM run against, as k6's VU is for its
// modules: the VM and the engine session bound to it. There is exactly one
// per VM (it lives in the VM: lua.VM.Env), so the modules of this package
// and of stdlib/... read the session typed instead of asserting a value
// handed through lua.Options.
type Host struct {
	// sess is nil in a VM created without NewVM (luatest, pure helpers):
	// device-bound functions raise, the rest work.
	sess *engine.Session
}

type hostKey struct{}

// HostOf is vm's host.
func HostOf(vm *lua.VM) *Host {
	return vm.Env(hostKey{}, func() any { return &Host{} }).(*Host)
}

// Bind binds sess to vm's host: NewVM does it, and VMs a script starts
// (script.run) inherit their caller's session with it.
func Bind(vm *lua.VM, sess *engine.Session) { HostOf(vm).sess = sess }

// Session is the session bound to the VM, or nil.
func (h *Host) Session() *engine.Session { return h.sess }

// MustSession is the session, or raises naming fn: a device-bound module
// used in a VM without one is a programmer error.
func (h *Host) MustSession(L *lua.LState, fn string) *engine.Session {
	if h.sess == nil {
		lua.Raisef(L, "%s: no engine session is bound to this VM (create it with stdlib.NewVM)", fn)
	}
	return h.sess
}

// Phone is the session's phone; an unavailable phone is an operational
// error naming fn, which the binding returns as nil, err.
func (h *Host) Phone(L *lua.LState, fn string) (*device.Phone, error) {
	p, err := h.MustSession(L, fn).Phone()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fn, err)
	}
	return p, nil
}

// Logger is the session's logger, or the default one without a session.
func (h *Host) Logger() *slog.Logger {
	if h.sess != nil {
		return h.sess.Logger()
	}
	return slog.Default()
}
