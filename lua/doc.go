// Package lua hosts OpenPocket's sandboxed Lua VMs. It is the only package
// that knows gopher-lua's lifecycle: the sandbox, the explicit module
// registry, Go↔Lua conversion, error mapping, cancellation and the
// compiled-chunk cache. Every run (compiled playbook, agent loop, skill,
// REPL line) executes in a fresh [VM] bound to one engine session.
//
// # Lifecycle
//
//	reg := lua.NewRegistry(stdlibModules...)      // once per process
//	vm, err := lua.New(ctx, reg, lua.Options{       // once per run
//		Timeout:   10 * time.Minute,
//		Print:     func(line string) { log.Info(line) },
//		SourceMap: compiled.SourceMap,              // Lua line → YAML line
//	})
//	defer vm.Close()
//	err = vm.Run("flow.yaml", compiled.Lua)         // *ScriptError on failure
//
// [VM.Eval] serves the REPL (a bare expression returns its values),
// [VM.Call] calls a Lua function by (dotted) name, and the *Context variants
// bound one call (a REPL line's Ctrl-C) without ending the VM.
//
// # Sandbox
//
// New skips gopher-lua's default libraries and opens only base, table,
// string, math and package. Removed: dofile, loadfile, load, loadstring,
// collectgarbage, module, newproxy, _printregs, string.dump,
// package.loaders/preload/path/cpath/loadlib/seeall. Not opened at all: os,
// io, debug, channel and coroutine (coroutines would give a script a second
// LState to keep alive past cancellation; nothing in OpenPocket needs them).
// require finds only registered modules and sources; a file path fails with
// a clear error listing the available modules. print goes to Options.Print
// (or the slog logger). string.rep, string.format, string.gsub and
// table.concat refuse results over Options.MaxStringBytes (default 16 MiB),
// gsub runs in linear time, unpack refuses huge ranges, call depth and the
// data stack are bounded ("stack overflow", "registry overflow"), and a Go
// panic in a binding becomes a *ScriptError of KindPanic instead of
// crashing the process. The VM checks its context before every instruction,
// so an infinite loop stops at Options.Timeout or when ctx ends, and pcall
// cannot swallow that cancellation.
//
// # Limits
//
// The limits use gopher-lua's public API only. The compile path (the only
// one) rewrites every `..` chain into a call of a builtin that measures the
// result before building it and refuses one past MaxStringBytes (concat.go);
// the builtin is a hidden local of each chunk that scripts cannot name. Every
// protected call (the host's, pcall, xpcall, binding callbacks through
// [ProtectedCall]) passes an error handler that writes a bounded traceback
// (traceback.go), so an error after millions of chained tail calls is
// reported at once; a tail-recursive loop runs until its timeout like any
// other loop. The pattern functions run on an interruptible Lua 5.1 matcher
// (pattern.go, strlib.go) that checks the context every few thousand steps.
// A heap watchdog stops a run whose heap growth passes
// Options.MaxMemoryBytes (*MemoryError). Limits end the running call, not
// the VM. An error value whose __tostring raises is described, never a
// panic.
//
// # Errors
//
// Run, Eval and Call return *[ScriptError] with Chunk/Line (remapped by
// Options.SourceMap, e.g. to a playbook's YAML line), Message and a remapped
// Traceback. Cancellation has Kind [KindCanceled] and Cause the context
// cause: errors.Is(err, context.DeadlineExceeded) / context.Canceled hold.
// A Go error raised by a binding with [Raise] is the Cause, so errors.As
// finds custom error types even after a Lua pcall re-raised it.
//
// # Writing a module
//
// A [Module] is the root, registered once per process; Open creates the
// per-VM instance when a script first requires it. Follow gopher-lua-libs
// conventions: one api map per module, Check* every argument before any
// side effect, programmer errors raise ([Raise], L.ArgError), operational
// failures return nil, err ([ReturnErr]), blocking calls use [Context] or
// [Sleep] so cancellation interrupts them, options tables are read with
// [CheckOptions] (unknown keys are rejected, durations are *_ms integers),
// and Go types are exposed with [UserDataType] (namespaced metatables).
//
//	type Clock struct{ now func() time.Time } // root: engine-wide state
//
//	func (c *Clock) Name() string { return "clock" }
//
//	func (c *Clock) Open(vm *lua.VM) (lua.LValue, error) {
//		return vm.NewModule(map[string]lua.LGFunction{
//			"now_ms": func(L *lua.LState) int {
//				L.Push(lua.LNumber(c.now().UnixMilli()))
//				return 1
//			},
//			// clock.sleep(ms [, {jitter_ms = 0}]) raises on cancellation.
//			"sleep": func(L *lua.LState) int {
//				ms := L.CheckInt(1)
//				o := lua.CheckOptions(L, 2)
//				jitter := o.Duration("jitter", 0)
//				o.Check()
//				if err := lua.Sleep(L, time.Duration(ms)*time.Millisecond+jitter); err != nil {
//					return lua.Raise(L, err)
//				}
//				return 0
//			},
//		}), nil
//	}
//
//	var _ lua.Module = (*Clock)(nil)
//
// Pure-Lua helpers are registered with [Registry.RegisterSource] (compiled
// once per process) and tested like Go code with package luatest. Tests
// build registries with [Registry.With] / [Registry.Without] to swap a
// module for a fake.
package lua
