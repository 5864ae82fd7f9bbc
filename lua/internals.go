package lua

import (
	"fmt"
	"reflect"
	"unsafe"

	glua "github.com/yuin/gopher-lua"
)

// gopher-lua has no instruction hook and does not export its frames or
// registers, so the VM reads them in place: the offsets are found by
// reflection once, checked against the expected field types (go.mod pins
// gopher-lua; a version whose layout differs disables the hook and the
// test of the concatenation limit fails), and read with unsafe only from
// the goroutine running the VM.
var internals struct {
	ok                          bool
	frame, reg                  uintptr // in LState
	fn, pc, localBase, tailCall uintptr // in callFrame
	array                       uintptr // in registry
	err                         error
}

func init() {
	internals.err = findInternals()
	internals.ok = internals.err == nil
}

func findInternals() error {
	field := func(t reflect.Type, name string, kind reflect.Kind) (reflect.StructField, error) {
		f, ok := t.FieldByName(name)
		if !ok || f.Type.Kind() != kind {
			return f, fmt.Errorf("gopher-lua %s.%s is not a %s", t.Name(), name, kind)
		}
		return f, nil
	}
	st := reflect.TypeOf(LState{})
	cf, err := field(st, "currentFrame", reflect.Pointer)
	if err != nil {
		return err
	}
	rg, err := field(st, "reg", reflect.Pointer)
	if err != nil {
		return err
	}
	frameT, regT := cf.Type.Elem(), rg.Type.Elem()
	fn, err := field(frameT, "Fn", reflect.Pointer)
	if err != nil || fn.Type != reflect.TypeOf(&LFunction{}) {
		return fmt.Errorf("gopher-lua callFrame.Fn is not a *LFunction")
	}
	var ints [3]reflect.StructField
	for i, name := range []string{"Pc", "LocalBase", "TailCall"} {
		if ints[i], err = field(frameT, name, reflect.Int); err != nil {
			return err
		}
	}
	arr, err := field(regT, "array", reflect.Slice)
	if err != nil || arr.Type.Elem() != reflect.TypeOf((*LValue)(nil)).Elem() {
		return fmt.Errorf("gopher-lua registry.array is not a []LValue")
	}
	internals.frame, internals.reg = cf.Offset, rg.Offset
	internals.fn, internals.pc, internals.localBase, internals.tailCall = fn.Offset, ints[0].Offset, ints[1].Offset, ints[2].Offset
	internals.array = arr.Offset
	return nil
}

// beforeInstruction runs before each instruction (see stepContext).
func (vm *VM) beforeInstruction(periodic bool) {
	frame := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(vm.L), internals.frame))
	if frame == nil {
		return
	}
	if periodic {
		if n := *(*int)(unsafe.Add(frame, internals.tailCall)); n > MaxTailCalls {
			vm.stopCall(&LimitError{Limit: "tail calls", Max: MaxTailCalls, Text: fmt.Sprintf("tail calls limit exceeded: more than %d chained tail calls (lua.MaxTailCalls)", MaxTailCalls)})
		}
	}
	fn := *(**LFunction)(unsafe.Add(frame, internals.fn))
	if fn == nil || fn.IsG || fn.Proto == nil {
		return
	}
	// The loop has fetched the instruction and advanced Pc before it polls.
	pc := *(*int)(unsafe.Add(frame, internals.pc)) - 1
	if pc < 0 || pc >= len(fn.Proto.Code) {
		return
	}
	inst := fn.Proto.Code[pc]
	if int(inst>>26) != glua.OP_CONCAT {
		return
	}
	base := *(*int)(unsafe.Add(frame, internals.localBase))
	reg := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(vm.L), internals.reg))
	regs := *(*[]LValue)(unsafe.Add(reg, internals.array))
	b, c := int(inst&0x1ff), int(inst>>9)&0x1ff
	var total int64
	for i := base + b; i <= base+c && i < len(regs); i++ {
		switch v := regs[i].(type) {
		case LString:
			total += int64(len(v))
		case LNumber:
			total += 24
		}
	}
	if total > int64(vm.opts.MaxStringBytes) {
		vm.stopCall(&LimitError{Limit: "string size", Max: vm.opts.MaxStringBytes,
			Text: fmt.Sprintf("concatenation: result of %d bytes exceeds the string size limit of %d bytes (lua Options.MaxStringBytes)", total, vm.opts.MaxStringBytes)})
	}
}
