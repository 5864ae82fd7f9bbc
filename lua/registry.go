package lua

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	glua "github.com/yuin/gopher-lua"
)

// Module is the root of a Lua module: one value registered once per process
// in a [Registry]. It holds engine-wide state (clients, caches, config).
//
// Open creates the module's per-VM instance and returns its exports (usually
// a table built with [VM.NewModule]). It runs lazily, the first time a script
// requires the module in a VM (at most once per VM), inside the script's
// protected call: a returned error becomes a script error that keeps the Go
// error chain. Per-VM state lives in closures over vm (or in the instance
// struct Open creates); release it with [VM.OnClose].
type Module interface {
	Name() string
	Open(vm *VM) (LValue, error)
}

// ModuleFunc adapts a function to [Module]:
//
//	reg.Register(lua.ModuleFunc("greet", func(vm *lua.VM) (lua.LValue, error) {
//		return vm.NewModule(map[string]lua.LGFunction{"hello": hello}), nil
//	}))
func ModuleFunc(name string, open func(vm *VM) (LValue, error)) Module {
	return funcModule{name: name, open: open}
}

type funcModule struct {
	name string
	open func(vm *VM) (LValue, error)
}

func (m funcModule) Name() string                { return m.name }
func (m funcModule) Open(vm *VM) (LValue, error) { return m.open(vm) }

var _ Module = funcModule{}

// sourceModule is a pure-Lua module compiled once at registration.
type sourceModule struct {
	proto *glua.FunctionProto
}

// Registry is the explicit set of modules a VM's require can find: Go
// modules ([Module]) and embedded pure-Lua sources ([Registry.RegisterSource]).
// Nothing registers itself: the composition root builds one registry and
// passes it to every [New]. A Registry is safe for concurrent use; VMs see
// registrations made before they require a name.
type Registry struct {
	mu      sync.RWMutex
	modules map[string]Module
	sources map[string]*sourceModule
}

// NewRegistry returns a registry holding mods; it panics on an invalid or
// duplicate name (a programming error in the composition root).
func NewRegistry(mods ...Module) *Registry {
	r := &Registry{modules: map[string]Module{}, sources: map[string]*sourceModule{}}
	for _, m := range mods {
		if err := r.Register(m); err != nil {
			panic(err)
		}
	}
	return r
}

// Register adds a Go module. The name must be a dotted Lua identifier path
// ("device", "openpocket.flow") not already registered.
func (r *Registry) Register(m Module) error {
	if m == nil {
		return fmt.Errorf("lua: register: nil module")
	}
	name := m.Name()
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.checkNameLocked(name); err != nil {
		return err
	}
	r.modules[name] = m
	return nil
}

// RegisterSource adds an embedded pure-Lua module. The source is compiled
// now (a syntax error is returned with its line) and the compiled prototype
// is shared by every VM: require runs it once per VM, with the module name
// as its first vararg, and caches its return value like Lua's require.
func (r *Registry) RegisterSource(name, src string) error {
	proto, err := compileProto(name+".lua", []byte(src))
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.checkNameLocked(name); err != nil {
		return err
	}
	r.sources[name] = &sourceModule{proto: proto}
	return nil
}

// MustRegisterSource is [Registry.RegisterSource] for embedded sources
// known at build time; it panics on error and returns r for chaining.
func (r *Registry) MustRegisterSource(name, src string) *Registry {
	if err := r.RegisterSource(name, src); err != nil {
		panic(err)
	}
	return r
}

func (r *Registry) checkNameLocked(name string) error {
	if !validModuleName(name) {
		return fmt.Errorf("lua: register: invalid module name %q (want identifiers joined by dots, like \"device\" or \"openpocket.flow\")", name)
	}
	if _, ok := r.modules[name]; ok {
		return fmt.Errorf("lua: register: module %q already registered", name)
	}
	if _, ok := r.sources[name]; ok {
		return fmt.Errorf("lua: register: module %q already registered (as Lua source)", name)
	}
	return nil
}

// With returns a copy of r with mods added, replacing modules (Go or source)
// of the same name. It is meant for tests: swap a module for a fake.
func (r *Registry) With(mods ...Module) *Registry {
	c := r.clone()
	for _, m := range mods {
		delete(c.sources, m.Name())
		delete(c.modules, m.Name())
		if err := c.Register(m); err != nil {
			panic(err)
		}
	}
	return c
}

// WithSource returns a copy of r with the Lua source module added or
// replaced. It panics on a syntax error.
func (r *Registry) WithSource(name, src string) *Registry {
	c := r.clone()
	delete(c.sources, name)
	delete(c.modules, name)
	return c.MustRegisterSource(name, src)
}

// Without returns a copy of r without the named modules (unknown names are
// ignored).
func (r *Registry) Without(names ...string) *Registry {
	c := r.clone()
	for _, n := range names {
		delete(c.modules, n)
		delete(c.sources, n)
	}
	return c
}

func (r *Registry) clone() *Registry {
	c := NewRegistry()
	if r == nil {
		return c
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for k, v := range r.modules {
		c.modules[k] = v
	}
	for k, v := range r.sources {
		c.sources[k] = v
	}
	return c
}

// Names lists the registered module names, sorted.
func (r *Registry) Names() []string {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.modules)+len(r.sources))
	for n := range r.modules {
		names = append(names, n)
	}
	for n := range r.sources {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Has reports whether name is registered.
func (r *Registry) Has(name string) bool {
	m, s := r.lookup(name)
	return m != nil || s != nil
}

func (r *Registry) lookup(name string) (Module, *sourceModule) {
	if r == nil {
		return nil, nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.modules[name], r.sources[name]
}

func validModuleName(name string) bool {
	if name == "" {
		return false
	}
	for _, part := range strings.Split(name, ".") {
		if !isIdent(part) {
			return false
		}
	}
	return true
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9' {
			continue
		}
		return false
	}
	return true
}
