package stdlib

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/lua"
)

//go:embed lua/*.lua
var luaFS embed.FS

// Modules returns a fresh instance of every Go module of the library, in
// docs order. Pure-Lua modules are added by [Registry].
func Modules() []lua.Module {
	return []lua.Module{
		lua.ModuleFunc("device", openDevice),
		lua.ModuleFunc("screen", openScreen),
		lua.ModuleFunc("ui", openUI),
		lua.ModuleFunc("app", openApp),
		lua.ModuleFunc("wait", openWait),
		lua.ModuleFunc("log", openLog),
		lua.ModuleFunc("json", openJSON),
		lua.ModuleFunc("time", openTime),
		lua.ModuleFunc("re", openRe),
		lua.ModuleFunc("session", openSession),
		lua.ModuleFunc("events", openEvents),
	}
}

// SourceNames lists the embedded pure-Lua modules (lua/NAME.lua, test
// files excluded).
func SourceNames() []string {
	entries, err := fs.ReadDir(luaFS, "lua")
	if err != nil {
		panic(err) // embedded at build time
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasSuffix(n, "_test.lua") || path.Ext(n) != ".lua" {
			continue
		}
		names = append(names, strings.TrimSuffix(n, ".lua"))
	}
	return names
}

// Source returns the embedded source of a pure-Lua module.
func Source(name string) (string, bool) {
	b, err := luaFS.ReadFile("lua/" + name + ".lua")
	return string(b), err == nil
}

var (
	sourcesOnce sync.Once
	baseReg     *lua.Registry
)

// Registry returns a registry holding every module of the library (Go
// modules and embedded Lua sources) plus extra (which replace library
// modules of the same name). The embedded sources are compiled once per
// process.
func Registry(extra ...lua.Module) *lua.Registry {
	sourcesOnce.Do(func() {
		r := lua.NewRegistry(Modules()...)
		for _, n := range SourceNames() {
			src, _ := Source(n)
			r.MustRegisterSource(n, src)
		}
		baseReg = r
	})
	return baseReg.With(extra...)
}

// NewVM creates a sandboxed VM over [Registry] bound to sess: o.Session is
// set to sess, print goes to the session's logger unless o.Print is set,
// and the VM's context also ends when the session's context ends.
func NewVM(ctx context.Context, sess *engine.Session, o lua.Options) (*lua.VM, error) {
	return NewVMWith(ctx, Registry(), sess, o)
}

// NewVMWith is [NewVM] over a given registry (tests swap modules with
// Registry(fake) or Registry().Without(...)).
func NewVMWith(ctx context.Context, reg *lua.Registry, sess *engine.Session, o lua.Options) (*lua.VM, error) {
	if sess == nil {
		return nil, errors.New("stdlib: NewVM needs a session")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if o.Logger == nil {
		o.Logger = sess.Logger()
	}
	if o.Print == nil {
		logger := sess.Logger()
		o.Print = func(line string) { logger.Info(line, "source", "lua") }
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(sess.Context(), func() { cancel(context.Cause(sess.Context())) })
	vm, err := lua.New(ctx, reg, o)
	if err != nil {
		stop()
		cancel(nil)
		return nil, err
	}
	vm.OnClose(func() { stop(); cancel(nil) })
	Bind(vm, sess)
	if o.AutoRequire {
		if err := UseAssertModule(vm); err != nil {
			vm.Close()
			return nil, err
		}
	}
	return vm, nil
}

// UseAssertModule makes the global assert the assert module in a VM whose
// modules resolve as globals (lua.Options.AutoRequire): Lua's builtin
// assert would shadow it, and the module is callable like the builtin, so
// it can take its place (assert(x) and assert.visible(sel)). Every VM that
// auto-requires — runs, and scripts started with script.run — calls it, so
// a script sees the same assert wherever it runs. A registry without the
// module keeps the builtin.
func UseAssertModule(vm *lua.VM) error {
	if !vm.Registry().Has("assert") {
		return nil
	}
	_, err := vm.Eval(`assert = require("assert")`)
	return err
}

// PollInterval is the pause between two UI tree polls of ui finds.
const PollInterval = 150 * time.Millisecond

// DefaultTimeout is ui's default find timeout.
const DefaultTimeout = 5 * time.Second

// phoneHost is the host of the modules that drive the phone (device,
// screen, ui, app, wait, session, events): the VM's [Host] and the last
// snapshot screen.capture took, which device.tap_element resolves element
// ids against. One per VM.
type phoneHost struct {
	*Host
	lastSnap *screen.Snapshot
}

type phoneHostKey struct{}

// phoneHostOf is vm's phone host.
func phoneHostOf(vm *lua.VM) *phoneHost {
	return vm.Env(phoneHostKey{}, func() any { return &phoneHost{Host: HostOf(vm)} }).(*phoneHost)
}

// fail returns nil, "fn: err" (or raises on cancellation).
func fail(L *lua.LState, fn string, err error) int {
	return lua.ReturnErr(L, fmt.Errorf("%s: %w", fn, err))
}

// pushStr pushes one string and returns 1.
func pushStr(L *lua.LState, s string) int {
	L.Push(lua.LString(s))
	return 1
}
