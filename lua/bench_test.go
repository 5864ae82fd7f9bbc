package lua

import (
	"context"
	"fmt"
	glua "github.com/yuin/gopher-lua"
	"strings"
	"testing"
	"time"
)

// twelveModules mimics stdlib.All(): 12 Go modules with a few functions each.
func twelveModules() *Registry {
	reg := NewRegistry()
	for _, name := range []string{"device", "screen", "ui", "app", "model", "session", "fs", "memory", "script", "log", "json", "time"} {
		reg.Register(ModuleFunc(name, func(vm *VM) (LValue, error) {
			return vm.NewModule(map[string]LGFunction{
				"a": func(L *LState) int { return 0 }, "b": func(L *LState) int { return 0 },
				"c": func(L *LState) int { return 0 }, "d": func(L *LState) int { return 0 },
			}), nil
		}))
	}
	return reg
}

// BenchmarkNewVM measures creating and closing a sandboxed VM with the 12
// stdlib-sized modules registered (opened lazily on require).
func BenchmarkNewVM(b *testing.B) {
	reg := twelveModules()
	b.ReportAllocs()
	for b.Loop() {
		vm, err := New(context.Background(), reg, Options{Timeout: time.Minute})
		if err != nil {
			b.Fatal(err)
		}
		vm.Close()
	}
}

// BenchmarkNewVMRequireAll also opens all 12 modules, the worst case of a run.
func BenchmarkNewVMRequireAll(b *testing.B) {
	reg := twelveModules()
	src := []byte(`for _, n in ipairs({"device","screen","ui","app","model","session","fs","memory","script","log","json","time"}) do require(n) end`)
	b.ReportAllocs()
	for b.Loop() {
		vm, err := New(context.Background(), reg, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := vm.Run("req.lua", src); err != nil {
			b.Fatal(err)
		}
		vm.Close()
	}
}

//go:noinline
func add(a, b float64) float64 { return a + b }

// BenchmarkBindingCall compares a Lua → Go binding call (argument checks
// and result push included, plus the Lua loop) with calling the Go function
// directly; reports ns per call for both and their ratio.
func BenchmarkBindingCall(b *testing.B) {
	vm := newTestVM(b, nil, Options{Globals: map[string]any{
		"add": LGFunction(func(L *LState) int {
			L.Push(LNumber(add(float64(L.CheckNumber(1)), float64(L.CheckNumber(2)))))
			return 1
		}),
	}})
	const calls = 100_000
	src := []byte(fmt.Sprintf("local add = add local s = 0 for i = 1, %d do s = add(s, i) end", calls))
	if err := vm.Run("bind.lua", src); err != nil { // warm the cache
		b.Fatal(err)
	}
	var direct time.Duration
	for b.Loop() {
		if err := vm.Run("bind.lua", src); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		s := 0.0
		for i := 1; i <= calls; i++ {
			s = add(s, float64(i))
		}
		direct += time.Since(start)
		_ = s
	}
	total := b.Elapsed() - direct
	luaNs := float64(total.Nanoseconds()) / float64(b.N*calls)
	goNs := float64(direct.Nanoseconds()) / float64(b.N*calls)
	b.ReportMetric(luaNs, "lua-ns/call")
	b.ReportMetric(goNs, "go-ns/call")
	b.ReportMetric(luaNs/goNs, "ratio")
	b.ReportMetric(0, "ns/op")
}

var chunk50 = func() []byte {
	var sb strings.Builder
	for i := range 50 {
		fmt.Fprintf(&sb, "local v%d = {x = %d, name = %q} if v%d.x > 100 then error('x') end\n", i, i, fmt.Sprint("step", i), i)
	}
	return []byte(sb.String())
}()

// BenchmarkRunCached runs a 50-line chunk whose prototype is cached.
func BenchmarkRunCached(b *testing.B) {
	vm := newTestVM(b, nil, Options{})
	b.ReportAllocs()
	for b.Loop() {
		if err := vm.Run("c.lua", chunk50); err != nil {
			b.Fatal(err)
		}
	}
	st := vm.cache.Stats()
	b.ReportMetric(float64(st.Hits)/float64(st.Hits+st.Misses), "hit-rate")
}

// BenchmarkRunUncached runs the same chunk with a cold cache each time.
func BenchmarkRunUncached(b *testing.B) {
	vm := newTestVM(b, nil, Options{})
	b.ReportAllocs()
	for b.Loop() {
		vm.cache = NewProtoCache(1)
		if err := vm.Run("c.lua", chunk50); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInstructionOverhead reports the VM's cost per instruction (no
// hook: limits live in the compile path and the error handlers) as a
// ratio against bare gopher-lua with a plain context (the floor), both
// running the same loop in this run.
func BenchmarkInstructionOverhead(b *testing.B) {
	benchAgainstBare(b, `local x, s = 0, "" for i = 1, 20000 do x = x + i if i % 100 == 0 then s = s .. "y" end end`)
}

// BenchmarkConcatOverhead: the same ratio for a loop of `..` chains, each
// a call of the measuring builtin instead of OP_CONCAT.
func BenchmarkConcatOverhead(b *testing.B) {
	benchAgainstBare(b, `local n = 0 for i = 1, 5000 do local s = "k" .. i .. "=" .. (i * 2) .. ";" n = n + #s end`)
}

func benchAgainstBare(b *testing.B, src string) {
	bare := glua.NewState()
	defer bare.Close()
	bare.SetContext(context.Background())
	fn, err := bare.LoadString(src)
	if err != nil {
		b.Fatal(err)
	}
	vm, err := New(context.Background(), nil, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer vm.Close()
	// The floor runs interleaved with the VM, so load on the machine
	// weighs on both sides of the ratio alike.
	var floor, ours time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		bare.Push(fn)
		if err := bare.PCall(0, 0, nil); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if err := vm.Run("hook.lua", []byte(src)); err != nil {
			b.Fatal(err)
		}
		floor, ours = floor+mid.Sub(start), ours+time.Since(mid)
	}
	b.ReportMetric(float64(ours)/float64(floor), "x-floor")
}
