package lua

import (
	"fmt"
	"log/slog"
	"strings"

	glua "github.com/yuin/gopher-lua"
)

// removedGlobals are base functions a run must not have: file and chunk
// loading, GC control, gopher-lua debugging and Lua 5.0 module().
var removedGlobals = []string{"dofile", "loadfile", "load", "loadstring", "collectgarbage", "_printregs", "module", "newproxy"}

func (vm *VM) setup() error {
	L := vm.L
	vm.hostErr, vm.keepErr = L.NewFunction(vm.hostHandler), L.NewFunction(keepError)
	vm.concatFn, vm.varargsFn = L.NewFunction(vm.concat), L.NewFunction(varargs)
	for _, lib := range []struct {
		name string
		fn   LGFunction
	}{
		{glua.LoadLibName, glua.OpenPackage},
		{glua.BaseLibName, glua.OpenBase},
		{glua.TabLibName, glua.OpenTable},
		{glua.StringLibName, glua.OpenString},
		{glua.MathLibName, glua.OpenMath},
	} {
		L.Push(L.NewFunction(lib.fn))
		L.Push(LString(lib.name))
		if err := L.PCall(1, 0, vm.keepErr); err != nil {
			return fmt.Errorf("lua: open %q library: %w", lib.name, err)
		}
	}
	g := L.G.Global
	vm.tostring = g.RawGetString("tostring")
	for _, name := range removedGlobals {
		g.RawSetString(name, LNil)
	}

	// package: keep only package.loaded; require is ours.
	pkg := L.GetGlobal("package").(*LTable)
	vm.loaded = L.GetField(pkg, "loaded").(*LTable)
	for _, k := range []string{"loaders", "searchers", "preload", "path", "cpath", "loadlib", "seeall", "config"} {
		pkg.RawSetString(k, LNil)
	}
	L.SetField(L.Get(glua.RegistryIndex), "_LOADERS", L.NewTable())
	g.RawSetString("require", L.NewFunction(vm.require))

	// string: no dump; allocation-capped rep, format, gsub.
	str := L.GetGlobal("string").(*LTable)
	str.RawSetString("dump", LNil)
	origRep := str.RawGetString("rep").(*LFunction).GFunction
	origFormat := str.RawGetString("format").(*LFunction).GFunction
	str.RawSetString("rep", L.NewFunction(vm.capRep(origRep)))
	str.RawSetString("format", L.NewFunction(vm.capFormat(origFormat)))
	str.RawSetString("gsub", L.NewFunction(vm.strGsub))
	str.RawSetString("find", L.NewFunction(vm.strFind))
	str.RawSetString("match", L.NewFunction(vm.strMatch))
	str.RawSetString("gmatch", L.NewFunction(vm.strGmatch))
	tbl := L.GetGlobal("table").(*LTable)
	origConcat := tbl.RawGetString("concat").(*LFunction).GFunction
	tbl.RawSetString("concat", L.NewFunction(vm.capConcat(origConcat)))

	// pcall/xpcall with bounded error handling (traceback.go) that must
	// not swallow cancellation.
	g.RawSetString("pcall", L.NewFunction(vm.cancelAware(vm.pcallBuiltin)))
	g.RawSetString("xpcall", L.NewFunction(vm.cancelAware(vm.xpcallBuiltin)))

	g.RawSetString("print", L.NewFunction(vm.print))
	origUnpack := g.RawGetString("unpack").(*LFunction).GFunction
	g.RawSetString("unpack", L.NewFunction(vm.capUnpack(origUnpack)))

	ud := L.NewUserData()
	ud.Value = vm
	L.SetField(L.Get(glua.RegistryIndex), vmRegistryKey, ud)

	if vm.opts.Args != nil {
		arg := L.CreateTable(len(vm.opts.Args), 1)
		for i, a := range vm.opts.Args {
			arg.RawSetInt(i+1, LString(a))
		}
		arg.RawSetString("n", LNumber(len(vm.opts.Args)))
		g.RawSetString("arg", arg)
	}
	for name, v := range vm.opts.Globals {
		g.RawSetString(name, ToLua(L, v))
	}
	if vm.opts.AutoRequire {
		mt := L.NewTable()
		mt.RawSetString("__index", L.NewFunction(vm.autoRequire))
		L.SetMetatable(g, mt)
	}
	return nil
}

// vmOf returns the VM owning L, or nil for a foreign state.
func vmOf(L *LState) *VM {
	ud, ok := L.GetField(L.Get(glua.RegistryIndex), vmRegistryKey).(*LUserData)
	if !ok {
		return nil
	}
	vm, _ := ud.Value.(*VM)
	return vm
}

// VMOf returns the VM that owns L (nil if L was not created by New).
// Bindings that close over their vm in Open do not need it.
func VMOf(L *LState) *VM { return vmOf(L) }

func (vm *VM) print(L *LState) int {
	top := L.GetTop()
	parts := make([]string, top)
	for i := 1; i <= top; i++ {
		parts[i-1] = L.ToStringMeta(L.Get(i)).String()
	}
	line := strings.Join(parts, "\t")
	switch {
	case vm.opts.Print != nil:
		vm.opts.Print(line)
	default:
		lg := vm.opts.Logger
		if lg == nil {
			lg = slog.Default()
		}
		lg.InfoContext(vm.callCtx, line, "source", "lua")
	}
	return 0
}

func (vm *VM) cancelAware(orig LGFunction) LGFunction {
	return func(L *LState) int {
		n := orig(L)
		if err := L.Context().Err(); err != nil {
			Raise(L, contextCause(L))
		}
		return n
	}
}

// --- require -------------------------------------------------------------

func looksLikePath(name string) bool {
	return strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".lua")
}

func (vm *VM) require(L *LState) int {
	name := L.CheckString(1)
	if v := vm.loaded.RawGetString(name); v != LNil {
		L.Push(v)
		return 1
	}
	if looksLikePath(name) {
		L.RaiseError("require %q: file paths cannot be required; only registered modules can (available: %s)", name, vm.available())
	}
	v, err := vm.open(name)
	if err != nil {
		Raise(L, err)
	}
	L.Push(v)
	return 1
}

func (vm *VM) available() string {
	names := vm.reg.Names()
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// open loads a registered module into package.loaded; called inside a
// protected call (a source module's errors propagate as Lua errors).
func (vm *VM) open(name string) (LValue, error) {
	m, src := vm.reg.lookup(name)
	if m == nil && src == nil {
		return nil, fmt.Errorf("module %q not found: only registered modules can be required (available: %s)", name, vm.available())
	}
	if vm.loading[name] {
		return nil, fmt.Errorf("module %q requires itself (require loop)", name)
	}
	vm.loading[name] = true
	defer delete(vm.loading, name)
	L := vm.L
	var v LValue
	if m != nil {
		var err error
		v, err = m.Open(vm)
		if err != nil {
			return nil, fmt.Errorf("open module %q: %w", name, err)
		}
	} else {
		L.Push(L.NewFunctionFromProto(src.proto))
		for _, a := range vm.chunkArgs(LString(name)) {
			L.Push(a)
		}
		L.Call(hiddenArgs+1, 1)
		v = L.Get(-1)
		L.Pop(1)
	}
	if v == nil || v == LNil {
		v = LTrue
	}
	vm.loaded.RawSetString(name, v)
	return v, nil
}

func (vm *VM) autoRequire(L *LState) int {
	key, ok := L.Get(2).(LString)
	if !ok || !isIdent(string(key)) || !vm.reg.Has(string(key)) {
		L.Push(LNil)
		return 1
	}
	v, err := vm.open(string(key))
	if err != nil {
		Raise(L, err)
	}
	L.G.Global.RawSetString(string(key), v)
	L.Push(v)
	return 1
}

// --- allocation caps -------------------------------------------------------

func (vm *VM) tooBig(L *LState, fn string, n int64) {
	L.RaiseError("%s: result of %d bytes exceeds the string size limit of %d bytes", fn, n, vm.opts.MaxStringBytes)
}

func (vm *VM) capRep(orig LGFunction) LGFunction {
	return func(L *LState) int {
		s := L.CheckString(1)
		n := L.CheckInt(2)
		if n > 0 && len(s) > 0 {
			if int64(n) > int64(vm.opts.MaxStringBytes)/int64(len(s)) {
				vm.tooBig(L, "string.rep", int64(len(s))*int64(n))
			}
		}
		return orig(L)
	}
}

// capFormat bounds string.format's output before formatting: the format
// text plus, per directive, its width, precision and argument length.
// capUnpack fails fast instead of growing the data stack to its limit.
func (vm *VM) capUnpack(orig LGFunction) LGFunction {
	return func(L *LState) int {
		t := L.CheckTable(1)
		i := L.OptInt(2, 1)
		j := L.OptInt(3, t.Len())
		// Counted in float64: j-i overflows int for ranges like
		// unpack({}, -5e18, 5e18).
		if limit := vm.opts.RegistryMaxSize / 4; float64(j)-float64(i) >= float64(limit) {
			L.RaiseError("too many results to unpack (%.0f, limit %d)", float64(j)-float64(i)+1, limit)
		}
		return orig(L)
	}
}

func (vm *VM) capFormat(orig LGFunction) LGFunction {
	return func(L *LState) int {
		f := L.CheckString(1)
		est := int64(len(f))
		arg := 2
		for i := 0; i < len(f); i++ {
			if f[i] != '%' {
				continue
			}
			i++
			if i < len(f) && f[i] == '%' {
				continue
			}
			var width, prec int64
			num, seenDot := int64(0), false
			for ; i < len(f) && strings.IndexByte("-+ #0123456789.", f[i]) >= 0; i++ {
				switch c := f[i]; {
				case c == '.':
					width, num, seenDot = num, 0, true
				case c >= '0' && c <= '9':
					if num < 1<<40 {
						num = num*10 + int64(c-'0')
					}
				}
			}
			if seenDot {
				prec = num
			} else {
				width = num
			}
			est += width + prec + 32
			if v := L.Get(arg); v != LNil {
				est += int64(len(L.ToStringMeta(v).String()))*2 + 2 // %q escapes
			}
			arg++
		}
		if est > int64(vm.opts.MaxStringBytes) {
			vm.tooBig(L, "string.format", est)
		}
		return orig(L)
	}
}

func (vm *VM) capConcat(orig LGFunction) LGFunction {
	return func(L *LState) int {
		t := L.CheckTable(1)
		sep := L.OptString(2, "")
		i := L.OptInt(3, 1)
		j := L.OptInt(4, t.Len())
		var total int64
		for k := i; k <= j && k >= 1; k++ {
			switch v := t.RawGetInt(k).(type) {
			case LString:
				total += int64(len(v))
			case LNumber:
				total += 24
			}
			if k != j {
				total += int64(len(sep))
			}
			if total > int64(vm.opts.MaxStringBytes) {
				vm.tooBig(L, "table.concat", total)
			}
		}
		return orig(L)
	}
}
