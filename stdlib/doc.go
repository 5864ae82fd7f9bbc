// Package stdlib is OpenPocket's Lua standard library: the modules of
// docs/lua-api.md bound to one engine session, plus the embedded pure-Lua
// helpers under lua/.
//
// Go modules: device (one function per device action of the action spec
// table, generated from engine/action, plus aliases, act, shell, size and
// info), screen (capture → snapshot userdata), ui (selectors, polling
// finds, element actions), app, wait, log, json, time, re, session and
// events. Pure-Lua modules (lua/*.lua, embedded): assert.
//
// Nothing registers itself: [Registry] builds a registry of every module
// explicitly ([Modules] lists them so tests can build With/Without
// registries), and [NewVM] creates a sandboxed VM bound to one
// *engine.Session:
//
//	vm, err := stdlib.NewVM(ctx, sess, lua.Options{Args: args})
//	defer vm.Close()
//	err = vm.Run("script.lua", src)
//
// # Conventions
//
// Each module runs against its VM's typed [Host] ([HostOf]: the VM and the
// *engine.Session NewVM bound, one per VM, as k6 gives its modules a VU);
// a VM without a session (luatest, pure helpers) can still use log, json,
// time, re and assert.eq/truthy, and device-bound functions raise a clear
// error. Bindings get what they need as (T, error) from their host
// (Host.Phone) and return nil, err themselves.
// Every blocking call passes the running call's context ([lua.Context]) to
// the device, so Ctrl-C, run timeouts and a REPL line's cancellation
// interrupt waits, polls and shell commands; NewVM additionally ends the
// VM's context when the session's context ends. Programmer errors (wrong
// argument types, unknown option keys, bad selectors or patterns) raise;
// operational failures (element not found, device command failed) return
// nil, err.
//
// Device actions run through the phone with the call's context
// (device.Phone.Execute, which is what engine.Session.Act does for device
// actions, but with the session's context); non-device actions given to
// device.act go through Session.Act and its executors.
//
// # ui polling
//
// ui finds poll the UI tree only (phone.Hierarchy, no screenshots) every
// [PollInterval] until the timeout (5 s unless ui.set_default_timeout
// changed it); each miss runs the ui.on_poll hook under pcall (an error in
// the hook is logged, not raised). Taps hit the centre of
// screen.ActionTarget (the nearest clickable ancestor-or-self of the match).
package stdlib
