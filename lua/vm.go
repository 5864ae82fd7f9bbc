package lua

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	glua "github.com/yuin/gopher-lua"
)

// Defaults for [Options].
const (
	DefaultMaxStringBytes  = 16 << 20
	DefaultCallStackSize   = 512
	DefaultRegistrySize    = 1024
	DefaultRegistryMaxSize = 256 * 1024
)

// Options configure one VM. The zero value is usable.
type Options struct {
	// Timeout bounds the VM's whole life (one run); 0 means only ctx.
	// When it fires, running code stops with a *ScriptError whose Cause is
	// a *TimeoutError (errors.Is(err, context.DeadlineExceeded) is true).
	Timeout time.Duration
	// Print receives each line of Lua's print. If nil, lines go to Logger
	// (or slog.Default()) at Info level with attribute source=lua.
	Print  func(line string)
	Logger *slog.Logger
	// MaxStringBytes caps strings built by string.rep, string.format,
	// string.gsub and table.concat (default 16 MiB).
	MaxStringBytes int
	// MaxMemoryBytes stops the run (a *MemoryError cause) when the heap has
	// grown by more than this since the VM started (default 64 MiB; < 0
	// disables the check).
	MaxMemoryBytes int64
	// CallStackSize bounds Lua call depth (default 512): deeper recursion
	// fails with "stack overflow".
	CallStackSize int
	// RegistrySize is the initial data stack size in slots (default 1024);
	// it grows up to RegistryMaxSize (default 256Ki slots, 4 MiB), beyond
	// which a script fails with "registry overflow".
	RegistrySize    int
	RegistryMaxSize int
	// Globals are set as Lua globals (converted with ToLua; an LGFunction
	// becomes a Lua function).
	Globals map[string]any
	// Args become the global table arg (arg[1]..arg[n], arg.n) and the
	// varargs (...) of every chunk Run executes.
	Args []string
	// SourceMap maps a generated Lua position to the user's source
	// (playbook YAML). It is applied to ScriptError.Chunk/Line and to
	// traceback lines; ok=false keeps the Lua position.
	SourceMap func(chunk string, line int) (file string, mappedLine int, ok bool)
	// AutoRequire makes registered module names resolve as globals on
	// first use (device.tap() without require), as the REPL wants.
	AutoRequire bool
	// Cache holds compiled chunks; nil means DefaultProtoCache.
	Cache *ProtoCache
}

// VM is one sandboxed Lua state bound to one run. It is not safe for
// concurrent use: one goroutine drives it (bindings it calls may block, and
// are interrupted through Context). Close it when the run ends.
type VM struct {
	L       *glua.LState
	reg     *Registry
	opts    Options
	cache   *ProtoCache
	ctx     context.Context
	cancel  context.CancelFunc
	callCtx context.Context

	loaded  *glua.LTable
	loading map[string]bool
	raised  map[string]error
	onClose []func()
	closed  bool
	unwatch func()
	// stopCalls ends the running call with a cause (limits); guarded by mu
	// because the memory watchdog calls it from its own goroutine.
	mu        sync.Mutex
	stopCalls context.CancelCauseFunc
	// tostring is the base library's, kept from before any script runs.
	tostring LValue
	// env holds per-VM state that modules share (Env), freed with the VM.
	env map[any]any
	// The protected-call handlers (traceback.go) and the `..` builtin
	// (concat.go), built once per VM.
	hostErr, keepErr, concatFn, varargsFn *glua.LFunction
	// What hostErr saw of the last error: its bounded traceback, and the
	// Go stack when a Go panic caused it.
	lastTraceback, lastGoPanic string
}

const vmRegistryKey = "openpocket.vm"

// New creates a fresh sandboxed VM: only base, table, string, math and
// package (require) are opened, and dangerous functions removed (see the
// package documentation). ctx bounds every call; Options.Timeout adds a
// deadline for the VM's life.
func New(ctx context.Context, reg *Registry, opts Options) (*VM, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if reg == nil {
		reg = NewRegistry()
	}
	if opts.MaxStringBytes <= 0 {
		opts.MaxStringBytes = DefaultMaxStringBytes
	}
	if opts.CallStackSize <= 0 {
		opts.CallStackSize = DefaultCallStackSize
	}
	if opts.RegistrySize <= 0 {
		opts.RegistrySize = DefaultRegistrySize
	}
	if opts.RegistryMaxSize <= 0 {
		opts.RegistryMaxSize = DefaultRegistryMaxSize
	}
	if opts.RegistryMaxSize < opts.RegistrySize {
		opts.RegistryMaxSize = opts.RegistrySize
	}
	vm := &VM{reg: reg, opts: opts, cache: opts.Cache, loading: map[string]bool{}, raised: map[string]error{}}
	if vm.cache == nil {
		vm.cache = DefaultProtoCache
	}
	if opts.MaxMemoryBytes == 0 {
		opts.MaxMemoryBytes = DefaultMaxMemoryBytes
		vm.opts.MaxMemoryBytes = opts.MaxMemoryBytes
	}
	base, stop := context.WithCancelCause(ctx)
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		vm.ctx, cancel = context.WithTimeoutCause(base, opts.Timeout, &TimeoutError{Timeout: opts.Timeout})
		vm.cancel = func() { cancel(); stop(nil) }
	} else {
		vm.ctx, vm.cancel = base, func() { stop(nil) }
	}
	vm.unwatch = func() {}
	if opts.MaxMemoryBytes > 0 {
		vm.unwatch = watchMemory(opts.MaxMemoryBytes, vm.stopCall)
	}
	vm.callCtx = vm.ctx
	vm.L = glua.NewState(glua.Options{
		SkipOpenLibs:        true,
		CallStackSize:       opts.CallStackSize,
		RegistrySize:        opts.RegistrySize,
		RegistryMaxSize:     opts.RegistryMaxSize,
		RegistryGrowStep:    4096,
		MinimizeStackMemory: true,
	})
	if err := vm.setup(); err != nil {
		vm.Close()
		return nil, err
	}
	vm.L.SetContext(vm.ctx)
	return vm, nil
}

// Context is the VM's context (including Options.Timeout).
func (vm *VM) Context() context.Context { return vm.ctx }

// MaxStringBytes is the cap on strings a binding builds from script input
// (Options.MaxStringBytes after defaults); bindings that grow strings
// (replacements, joins) raise beyond it like string.rep does.
func (vm *VM) MaxStringBytes() int { return vm.opts.MaxStringBytes }

// Registry returns the registry the VM requires from.
func (vm *VM) Registry() *Registry { return vm.reg }

// OnClose registers fn to run when the VM closes (last registered runs
// first); module instances release per-run resources with it.
func (vm *VM) OnClose(fn func()) { vm.onClose = append(vm.onClose, fn) }

// Env is the VM's own environment for modules: the value stored under key,
// created by create on first use. All modules of a VM that use the same key
// share one value (the standard library's last snapshot, timeouts, poll
// hook); it lives exactly as long as the VM, so no process-wide map keyed by
// VM is needed. Like the VM itself, it is for the VM's goroutine.
func (vm *VM) Env(key any, create func() any) any {
	if v, ok := vm.env[key]; ok {
		return v
	}
	if vm.env == nil {
		vm.env = map[any]any{}
	}
	v := create()
	vm.env[key] = v
	return v
}

// Close cancels the VM's context, runs OnClose hooks and frees the state.
// It is idempotent.
func (vm *VM) Close() {
	if vm.closed {
		return
	}
	vm.closed = true
	vm.unwatch()
	vm.cancel()
	for i := len(vm.onClose) - 1; i >= 0; i-- {
		vm.onClose[i]()
	}
	vm.L.Close()
}

// NewModule builds a module's export table from an api map
// (gopher-lua-libs style).
func (vm *VM) NewModule(api map[string]LGFunction) *LTable {
	t := vm.L.CreateTable(0, len(api))
	for k, fn := range api {
		t.RawSetString(k, vm.L.NewFunction(fn))
	}
	return t
}

// SetGlobal sets a Lua global from a Go value (see ToLua).
func (vm *VM) SetGlobal(name string, v any) { vm.L.SetGlobal(name, ToLua(vm.L, v)) }

// Run compiles (or fetches from the proto cache) and runs one chunk; src
// is Lua source. chunkName names the chunk in errors and tracebacks (a file
// path, or "playbook:flow.yaml"). Options.Args are passed as varargs.
func (vm *VM) Run(chunkName string, src []byte) error {
	return vm.RunContext(nil, chunkName, src)
}

// RunContext is Run bounded additionally by ctx (for example one REPL
// line's Ctrl-C) without ending the VM.
func (vm *VM) RunContext(ctx context.Context, chunkName string, src []byte) error {
	if vm.closed {
		return ErrClosed
	}
	proto, err := vm.compile(ctx, chunkName, src)
	if err != nil {
		return vm.mapCompileError(err)
	}
	args := make([]LValue, len(vm.opts.Args))
	for i, a := range vm.opts.Args {
		args[i] = LString(a)
	}
	_, err = vm.pcall(ctx, chunkName, vm.L.NewFunctionFromProto(proto), vm.chunkArgs(args...))
	return err
}

// compile compiles src (or fetches it from the cache) within the run's
// time: when ctx or the VM's context (Options.Timeout) ends first, it
// returns the same canceled error a running chunk would. The compile
// itself cannot be interrupted; it goes on in the background, bounded by
// MaxExprDepth, and its result is cached.
func (vm *VM) compile(ctx context.Context, chunk string, src []byte) (*glua.FunctionProto, error) {
	type compiled struct {
		proto *glua.FunctionProto
		err   error
	}
	ch := make(chan compiled, 1)
	go func() {
		p, err := vm.cache.compile(chunk, src)
		ch <- compiled{p, err}
	}()
	var done <-chan struct{}
	if ctx != nil {
		done = ctx.Done()
	}
	var cause error
	select {
	case c := <-ch:
		return c.proto, c.err
	case <-vm.ctx.Done():
		cause = context.Cause(vm.ctx)
	case <-done:
		cause = context.Cause(ctx)
	}
	return nil, &ScriptError{Kind: KindCanceled, Chunk: chunk, LuaChunk: chunk, Message: cause.Error(), Cause: cause}
}

func isCanceled(err error) bool {
	var se *ScriptError
	return errors.As(err, &se) && se.Kind == KindCanceled
}

// Eval runs one REPL line in the VM's global environment. A bare
// expression ("1+1", "device.info()") is evaluated first as "return "+src
// so its values come back; otherwise src runs as statements. Results are
// converted with ToGo.
func (vm *VM) Eval(src string) ([]any, error) { return vm.EvalContext(nil, src) }

// EvalContext is Eval bounded additionally by ctx.
func (vm *VM) EvalContext(ctx context.Context, src string) ([]any, error) {
	if vm.closed {
		return nil, ErrClosed
	}
	const chunk = "repl"
	proto, err := vm.compile(ctx, chunk, []byte("return "+src))
	if err != nil && !isCanceled(err) {
		proto, err = vm.compile(ctx, chunk, []byte(src))
	}
	if err != nil {
		return nil, vm.mapCompileError(err)
	}
	rets, err := vm.pcall(ctx, chunk, vm.L.NewFunctionFromProto(proto), vm.chunkArgs())
	if err != nil {
		return nil, err
	}
	return toGoSlice(rets), nil
}

// Call calls the global function fn (a dotted path such as "agent.run"
// is looked up through tables) with args converted by ToLua, and returns
// its results converted by ToGo.
func (vm *VM) Call(fn string, args ...any) ([]any, error) {
	return vm.CallContext(nil, fn, args...)
}

// CallContext is Call bounded additionally by ctx.
func (vm *VM) CallContext(ctx context.Context, fn string, args ...any) ([]any, error) {
	if vm.closed {
		return nil, ErrClosed
	}
	f := vm.lookupPath(fn)
	if f == LNil {
		return nil, &ScriptError{Kind: KindRuntime, Message: fmt.Sprintf("function %q is not defined", fn)}
	}
	largs := make([]LValue, len(args))
	for i, a := range args {
		largs[i] = ToLua(vm.L, a)
	}
	rets, err := vm.pcall(ctx, "", f, largs)
	if err != nil {
		return nil, err
	}
	return toGoSlice(rets), nil
}

// PCall calls a Lua value in protected mode with the VM's context and
// error mapping (ScriptError, cancellation, source map). It is the
// primitive under Run/Eval/Call for hosts that hold Lua values (luatest).
func (vm *VM) PCall(fn LValue, args ...LValue) ([]LValue, error) {
	if vm.closed {
		return nil, ErrClosed
	}
	return vm.pcall(nil, "", fn, args)
}

func (vm *VM) lookupPath(path string) LValue {
	var cur LValue = vm.L.Get(glua.GlobalsIndex)
	for _, part := range strings.Split(path, ".") {
		t, ok := cur.(*LTable)
		if !ok {
			return LNil
		}
		cur = vm.L.GetField(t, part)
	}
	return cur
}

func toGoSlice(vs []LValue) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = ToGo(v)
	}
	return out
}

// pcall runs fn under callCtx (vm.ctx, narrowed by ctx if given).
func (vm *VM) pcall(ctx context.Context, chunk string, fn LValue, args []LValue) ([]LValue, error) {
	callCtx, cancel := context.WithCancelCause(vm.ctx)
	stop := func() { cancel(nil) }
	if ctx != nil {
		stopAfter := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
		stop = func() { stopAfter(); cancel(nil) }
	}
	defer stop()
	vm.mu.Lock()
	prevStop := vm.stopCalls
	vm.stopCalls = cancel
	vm.mu.Unlock()
	defer func() {
		vm.mu.Lock()
		vm.stopCalls = prevStop
		vm.mu.Unlock()
	}()
	if callCtx.Err() != nil {
		cause := context.Cause(callCtx)
		return nil, &ScriptError{Kind: KindCanceled, Chunk: chunk, LuaChunk: chunk, Message: cause.Error(), Cause: cause}
	}
	L := vm.L
	prevCtx := vm.callCtx
	vm.callCtx = callCtx
	L.SetContext(callCtx)
	defer func() {
		vm.callCtx = prevCtx
		L.SetContext(prevCtx)
	}()
	clear(vm.raised)

	base := L.GetTop()
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	vm.lastTraceback, vm.lastGoPanic = "", ""
	if err := L.PCall(len(args), glua.MultRet, vm.hostErr); err != nil {
		L.SetTop(base)
		return nil, vm.mapError(err, chunk, callCtx)
	}
	n := L.GetTop() - base
	out := make([]LValue, n)
	for i := range n {
		out[i] = L.Get(base + 1 + i)
	}
	L.SetTop(base)
	return out, nil
}

func (vm *VM) mapCompileError(err error) error {
	var se *ScriptError
	if errors.As(err, &se) {
		c := *se
		remap(&c, vm.opts.SourceMap)
		return &c
	}
	return err
}

// mapError turns a gopher-lua error into a *ScriptError.
func (vm *VM) mapError(err error, chunk string, callCtx context.Context) error {
	se := &ScriptError{Kind: KindRuntime, LuaChunk: chunk}
	var ae *glua.ApiError
	if errors.As(err, &ae) {
		se.Traceback = vm.lastTraceback
		if ae.Type == glua.ApiErrorPanic || vm.lastGoPanic != "" {
			se.Kind = KindPanic
		}
		if s, ok := ae.Object.(LString); ok {
			msg := string(s)
			if c, l, rest, ok := splitPosition(msg); ok {
				se.LuaChunk, se.LuaLine, se.Message = c, l, rest
			} else {
				se.Message = msg
			}
			if se.Message == "stack overflow" {
				se.Message = fmt.Sprintf("stack overflow (call depth exceeds %d)", vm.opts.CallStackSize)
			}
			se.Cause = vm.raisedCause(msg)
			if se.Kind == KindPanic && strings.HasSuffix(msg, "lua callstack overflow") {
				// gopher-lua's growable call stack panics instead of raising.
				se.Kind = KindRuntime
				se.Message = fmt.Sprintf("stack overflow (call depth exceeds %d)", vm.opts.CallStackSize)
			} else if se.Kind == KindPanic {
				se.Message = "Go panic in a binding: " + se.Message
				se.Traceback = vm.lastGoPanic + "\n" + vm.lastTraceback
			}
		} else if ae.Object != nil {
			se.Value = ToGo(ae.Object)
			se.Message = "error object: " + vm.safeString(ae.Object)
		} else {
			se.Message = err.Error()
		}
		if se.LuaLine == 0 {
			if c, l, ok := firstTracebackPos(se.Traceback); ok {
				se.LuaChunk, se.LuaLine = c, l
			}
		}
	} else {
		se.Message = err.Error()
	}
	if callCtx.Err() != nil {
		cause := context.Cause(callCtx)
		se.Kind = KindCanceled
		se.Cause = cause
		se.Message = cause.Error()
	}
	remap(se, vm.opts.SourceMap)
	return se
}

// stopCall ends the running call (and the calls it nests in) with cause;
// without a running call it does nothing.
func (vm *VM) stopCall(cause error) {
	vm.mu.Lock()
	stop := vm.stopCalls
	vm.mu.Unlock()
	if stop != nil {
		stop(cause)
	}
}

// safeString is tostring(v) run in protected mode: a __tostring that
// raises (or returns a non-string) gives a placeholder instead of a Go
// panic outside any Lua call.
func (vm *VM) safeString(v LValue) string {
	L := vm.L
	top := L.GetTop()
	defer L.SetTop(top)
	L.Push(vm.tostring)
	L.Push(v)
	if err := L.PCall(1, 1, vm.keepErr); err != nil {
		return fmt.Sprintf("(a %s whose __tostring failed)", v.Type())
	}
	return L.Get(-1).String()
}

func firstTracebackPos(tb string) (string, int, bool) {
	m := tracebackPos.FindStringSubmatch(tb)
	if m == nil {
		return "", 0, false
	}
	var n int
	if _, err := fmt.Sscanf(m[3], "%d", &n); err != nil {
		return "", 0, false
	}
	return m[2], n, true
}

// raisedCause finds the Go error behind a Lua error message: the message
// Raise produced, possibly re-raised with more position prefixes.
func (vm *VM) raisedCause(msg string) error {
	if err, ok := vm.raised[msg]; ok {
		return err
	}
	for k, err := range vm.raised {
		if strings.HasSuffix(msg, ": "+k) {
			return err
		}
	}
	return nil
}

const maxRaised = 64

func (vm *VM) recordRaised(msg string, err error) {
	if len(vm.raised) >= maxRaised {
		clear(vm.raised)
	}
	vm.raised[msg] = err
}

// chunkArgs is what every call of a compiled chunk passes: the hidden
// builtins of concat.go, then the chunk's own arguments.
func (vm *VM) chunkArgs(args ...LValue) []LValue {
	return append([]LValue{vm.concatFn, vm.varargsFn}, args...)
}
