package lua

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hostile runs src in a fresh VM and returns the error and how long the
// run took.
func hostile(t *testing.T, src string, opts Options) (error, time.Duration) {
	t.Helper()
	vm, err := New(context.Background(), nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	start := time.Now()
	err = vm.Run("hostile.lua", []byte(src))
	return err, time.Since(start)
}

// TestHostileScriptsEndAtTheirLimit: each script from the issue ends with
// an error naming the limit it hit, never a Go panic, and promptly (the
// bounds are generous sanity checks, not speed targets).
func TestHostileScriptsEndAtTheirLimit(t *testing.T) {
	cases := []struct {
		name, src string
		opts      Options
		want      string
	}{
		{"doubling concatenation", `local s = "x" while true do s = s .. s end`, Options{Timeout: 30 * time.Second}, "concatenation: result of 33554432 bytes exceeds the string size limit of 16777216 bytes"},
		{"concatenation in a pcall", `local s = "x" local ok, err = pcall(function() while true do s = s .. s end end) return ok, err`, Options{}, "exceeds the string size limit"},
		{"table growth", `local t = {} local i = 0 while true do i = i + 1 t[i] = {i} end`, Options{Timeout: 30 * time.Second}, "memory limit exceeded"},
		{"string table growth", `local t = {} for i = 1, 1e9 do t[i] = string.rep("y", 1000) .. i end`, Options{Timeout: 30 * time.Second}, "memory limit exceeded"},
		{"string.rep", `return string.rep("x", 1e12)`, Options{}, "string.rep: result of 1000000000000 bytes exceeds the string size limit"},
		{"pathological find", `return string.find(string.rep("a", 3000), string.rep("a-", 12) .. "b")`, Options{Timeout: 300 * time.Millisecond}, "timeout"},
		{"pathological gsub", `return (string.rep("a", 3000)):gsub(string.rep("a*", 12) .. "b", "")`, Options{Timeout: 300 * time.Millisecond}, "timeout"},
		{"pathological gmatch", `for x in string.gmatch(string.rep("a", 3000), string.rep(".-", 12) .. "b") do end`, Options{Timeout: 300 * time.Millisecond}, "timeout"},
		{"tail recursion", `local function f(n) return f(n + 1) end return f(1)`, Options{Timeout: 2 * time.Second}, "run exceeded its timeout of 2s"},
		{"tail recursion in a pcall", `local function f(n) return f(n + 1) end return pcall(f, 1)`, Options{Timeout: 2 * time.Second}, "run exceeded its timeout of 2s"},
		{"deep recursion", `local function f(n) return 1 + f(n + 1) end return f(1)`, Options{}, "stack overflow (call depth exceeds 512)"},
		{"__tostring raising in error()", `error(setmetatable({}, {__tostring = function() error("boom") end}))`, Options{}, "error object: (a table whose __tostring failed)"},
		{"__tostring raising in print", `print(setmetatable({}, {__tostring = function() error("boom") end}))`, Options{Print: func(string) {}}, "boom"},
		{"__tostring raising in tostring", `return tostring(setmetatable({}, {__tostring = function() error("boom") end}))`, Options{}, "boom"},
		{"__tostring returning a table", `error(setmetatable({}, {__tostring = function() return {} end}))`, Options{}, "error object:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err, took := hostile(t, c.src, c.opts)
			if err == nil {
				t.Fatal("the hostile script ended without an error")
			}
			var se *ScriptError
			if !errors.As(err, &se) || se.Kind == KindPanic {
				t.Fatalf("want a script error, got %T %v", err, err)
			}
			msg := err.Error()
			if c.want == "" {
				if !strings.Contains(msg, "timeout") && !strings.Contains(msg, "memory limit") {
					t.Fatalf("want the timeout or the memory limit, got %v", err)
				}
			} else if !strings.Contains(msg, c.want) {
				t.Fatalf("want %q in %q", c.want, msg)
			}
			limit := c.opts.Timeout
			if limit == 0 || strings.Contains(msg, "memory") {
				limit = 0
			}
			if took > limit+5*time.Second {
				t.Errorf("ended %v after start (limit %v)", took, limit)
			}
		})
	}
	if hwm := peakRSS(t); hwm > rssFactor*300<<20 {
		t.Errorf("peak RSS %d MiB, want under %d MiB", hwm>>20, rssFactor*300)
	}
}

func TestMemoryErrorIsTheCause(t *testing.T) {
	err, _ := hostile(t, `local t = {} for i = 1, 1e9 do t[i] = string.rep("y", 1000) .. i end`, Options{MaxMemoryBytes: 32 << 20})
	var me *MemoryError
	if !errors.As(err, &me) || me.Limit != 32<<20 {
		t.Fatalf("want a *MemoryError cause, got %v", err)
	}
}

// peakRSS reads the process's peak resident set size (VmHWM).
func peakRSS(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatalf("no /proc/self/status (peak RSS is read there): %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestVMUsableAfterALimit: a limit ends the call, not the VM (a REPL line
// that hits it leaves the session usable).
func TestVMUsableAfterALimit(t *testing.T) {
	vm, err := New(context.Background(), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	if _, err := vm.Eval(`(function() local s = "x" while true do s = s .. s end end)()`); err == nil || !strings.Contains(err.Error(), "string size limit") {
		t.Fatalf("want the string size limit, got %v", err)
	}
	got, err := vm.Eval("1 + 1")
	if err != nil || got[0] != float64(2) {
		t.Fatalf("VM after the limit: %v %v", got, err)
	}
}

// TestConcurrentVMsWithinTheirLimitsRunOn: the heap is shared, so two VMs
// that each stay within their limit — together past one limit — must not
// stop each other (a gateway running two agents' jobs at once).
func TestConcurrentVMsWithinTheirLimitsRunOn(t *testing.T) {
	const limit = 64 << 20
	// Each grows the heap by ~40 MiB (20,000 strings and their garbage):
	// within its own limit, but the pair together is past one limit.
	src := `local t = {} for i = 1, 20000 do t[i] = string.rep("z", 1000) .. i end
	local n = 0 for i = 1, 2e6 do n = n + 1 end return #t`
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			err, _ := hostile(t, src, Options{MaxMemoryBytes: limit, Timeout: 30 * time.Second})
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("a VM within its limit was stopped: %v", err)
		}
	}
	// And one VM alone past its limit still stops (the budget is the sum of
	// the running VMs' limits, not unlimited).
	err, _ := hostile(t, `local t = {} for i = 1, 1e9 do t[i] = string.rep("y", 1000) .. i end`, Options{MaxMemoryBytes: limit, Timeout: 30 * time.Second})
	var me *MemoryError
	if !errors.As(err, &me) {
		t.Fatalf("want a *MemoryError, got %v", err)
	}
}

// TestErrorsAfterLongTailCallChainsAreBounded: an error raised after
// millions of chained tail calls is reported at once with a short
// traceback, by the host and by pcall and xpcall (gopher-lua's own
// traceback would write a line per tail call).
func TestErrorsAfterLongTailCallChainsAreBounded(t *testing.T) {
	const chain = `local function f(n) if n > 3e6 then error("deep") end return f(n + 1) end `
	for name, src := range map[string]string{
		"host":   chain + `return f(1)`,
		"pcall":  chain + `local ok, err = pcall(f, 1) error("caught: " .. tostring(err), 0)`,
		"xpcall": chain + `local ok, err = xpcall(function() return f(1) end, function(e) error("handler fails") end) error("caught: " .. tostring(err), 0)`,
	} {
		t.Run(name, func(t *testing.T) {
			err, _ := hostile(t, src, Options{Timeout: 60 * time.Second})
			var se *ScriptError
			if !errors.As(err, &se) || se.Kind != KindRuntime {
				t.Fatalf("want a runtime script error, got %T %v", err, err)
			}
			if !strings.Contains(se.Message, "deep") && !strings.Contains(se.Message, "caught: error in error handling") {
				t.Fatalf("unexpected message %q", se.Message)
			}
			if lines := strings.Count(se.Traceback, "\n"); lines > maxTracebackLevels+2 {
				t.Fatalf("traceback of %d lines:\n%.2000s", lines, se.Traceback)
			}
		})
	}
	if hwm := peakRSS(t); hwm > rssFactor*300<<20 {
		t.Errorf("peak RSS %d MiB, want under %d MiB", hwm>>20, rssFactor*300)
	}
}

// TestConcatRewriteKeepsLuaSemantics: the `..` builtin and the hidden
// chunk arguments behave as Lua's own operator and `...` do.
func TestConcatRewriteKeepsLuaSemantics(t *testing.T) {
	vm, err := New(context.Background(), nil, Options{Args: []string{"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	cases := map[string]any{
		`return 1 .. 2 .. "x"`: "12x",
		`return "n=" .. 1.5`:   "n=1.5",
		`local function two() return "p", "q" end return "<" .. two() .. ">"`:                              "<p>",
		`local t = setmetatable({}, {__concat = function(a, b) return "meta" end}) return "x" .. t .. "y"`: "xmeta",
		`local ok, e = pcall(function() return "x" .. {} end) return e`:                                    "",
		`return ("a"):rep(3) .. #"abc"`:                                                                    "aaa3",
		`local f = function(...) return ... .. "!" end return f("v", "w")`:                                 "v!",
		// A function's last parameter assigned its own concatenation
		// (flow.screenshot's `name = name .. ".png"`).
		`local function f(name) name = name .. ".png" return name end return f("x")`:      "x.png",
		`local function f(a, b) if a then b = b .. a end return b end return f("!", "y")`: "y!",
	}
	for src, want := range cases {
		got, err := vm.Eval(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if want == "" {
			if s, _ := got[0].(string); !strings.Contains(s, "cannot perform concat operation between string and table") {
				t.Fatalf("%s: got %v", src, got)
			}
			continue
		}
		if len(got) != 1 || got[0] != want {
			t.Fatalf("%s: got %#v, want %#v", src, got, want)
		}
	}
	// A chunk's own `...` and arg are its arguments, not the hidden ones.
	if err := vm.Run("args.lua", []byte(`assert(select("#", ...) == 2) assert((...) .. "|" .. arg[2] == "a|b")`)); err != nil {
		t.Fatal(err)
	}
	// Scripts cannot name the builtin.
	if _, err := vm.Eval(`return _G["(concat)"]`); err != nil {
		t.Fatal(err)
	}
	got, _ := vm.Eval(`return _G["(concat)"] == nil and _G["(varargs)"] == nil`)
	if got[0] != true {
		t.Fatalf("the builtins are reachable as globals: %v", got)
	}
}
