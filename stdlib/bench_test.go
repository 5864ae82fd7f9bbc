package stdlib

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/lua"
)

func benchVM(b *testing.B, reg *lua.Registry) *lua.VM {
	b.Helper()
	vm, err := lua.New(context.Background(), reg, lua.Options{AutoRequire: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(vm.Close)
	return vm
}

// VM creation with every module registered (modules open lazily).
func BenchmarkNewVM(b *testing.B) {
	reg := Registry()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		vm, err := lua.New(ctx, reg, lua.Options{})
		if err != nil {
			b.Fatal(err)
		}
		vm.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/vm")
}

// VM creation plus requiring every module (what a script using them all
// pays).
func BenchmarkNewVMRequireAll(b *testing.B) {
	reg := Registry()
	ctx := context.Background()
	src := []byte(`for _, n in ipairs({"device","screen","ui","app","wait","log","json","time","re","session","events","assert"}) do require(n) end`)
	b.ReportAllocs()
	for b.Loop() {
		vm, err := lua.New(ctx, reg, lua.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := vm.Run("bench", src); err != nil {
			b.Fatal(err)
		}
		vm.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/vm")
}

// loopNs runs body n times in a Lua for loop and returns ns per iteration.
func loopNs(b *testing.B, vm *lua.VM, setup, body string, n int) float64 {
	b.Helper()
	src := fmt.Sprintf("%s\nfunction __bench(n) for i = 1, n do %s end end", setup, body)
	if err := vm.Run("bench", []byte(src)); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if _, err := vm.Call("__bench", n); err != nil {
		b.Fatal(err)
	}
	return float64(time.Since(start).Nanoseconds()) / float64(n)
}

// A binding call's overhead over the direct Go call: json.encode of a
// small table, and a no-op-like binding (time.now_ms).
func BenchmarkBindingOverhead(b *testing.B) {
	b.Run("json.encode", func(b *testing.B) {
		vm := benchVM(b, Registry())
		setup := `local enc = json.encode; T = {name = "Wi-Fi", on = true, n = 3, tags = {"a", "b"}}; local t = T`
		if err := vm.Run("bench", []byte(setup)); err != nil {
			b.Fatal(err)
		}
		t := vm.L.GetGlobal("T") // direct Go on the same Lua value
		n := max(b.N, 50000)
		luaNs := loopNs(b, vm, setup, "enc(t)", n)
		start := time.Now()
		for range n {
			if _, err := EncodeJSON(t, false); err != nil {
				b.Fatal(err)
			}
		}
		goNs := float64(time.Since(start).Nanoseconds()) / float64(n)
		b.ReportMetric(luaNs, "lua-ns/call")
		b.ReportMetric(goNs, "go-ns/call")
		b.ReportMetric(luaNs-goNs, "overhead-ns/call")
	})
	b.Run("time.now_ms", func(b *testing.B) {
		vm := benchVM(b, Registry())
		n := max(b.N, 500000)
		luaNs := loopNs(b, vm, `local now = time.now_ms`, "now()", n)
		emptyNs := loopNs(b, vm, ``, "", n)
		start := time.Now()
		var sink int64
		for range n {
			sink += time.Now().UnixMilli()
		}
		_ = sink
		goNs := float64(time.Since(start).Nanoseconds()) / float64(n)
		b.ReportMetric(luaNs-emptyNs, "lua-ns/call")
		b.ReportMetric(goNs, "go-ns/call")
		b.ReportMetric(luaNs-emptyNs-goNs, "overhead-ns/call")
	})
}

// fixtureTree builds a 300-node tree: a list of 99 rows (row, name,
// detail) under a window root.
func fixtureTree(tb testing.TB) *screen.Node {
	tb.Helper()
	var sb strings.Builder
	sb.WriteString(`<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">`)
	node := func(attrs string, bounds [4]int, selfClose bool) {
		fmt.Fprintf(&sb, `<node index="0" %s package="com.openpocket.contacts" checkable="false" checked="false" focusable="false" focused="false" long-clickable="false" password="false" selected="false" enabled="true" bounds="[%d,%d][%d,%d]"`,
			attrs, bounds[0], bounds[1], bounds[2], bounds[3])
		if selfClose {
			sb.WriteString(` />`)
		} else {
			sb.WriteString(`>`)
		}
	}
	node(`text="" resource-id="" class="android.widget.FrameLayout" content-desc="" clickable="false" scrollable="false"`, [4]int{0, 0, 1080, 2400}, false)
	node(`text="" resource-id="com.openpocket.contacts:id/list" class="androidx.recyclerview.widget.RecyclerView" content-desc="" clickable="false" scrollable="true"`, [4]int{0, 100, 1080, 2300}, false)
	for i := range 99 {
		top := 100 + i*22
		node(`text="" resource-id="com.openpocket.contacts:id/row" class="android.widget.LinearLayout" content-desc="" clickable="true" scrollable="false"`, [4]int{0, top, 1080, top + 22}, false)
		node(fmt.Sprintf(`text="Person %03d" resource-id="com.openpocket.contacts:id/name" class="android.widget.TextView" content-desc="" clickable="false" scrollable="false"`, i), [4]int{20, top, 700, top + 22}, true)
		node(fmt.Sprintf(`text="+1 555-01%02d" resource-id="com.openpocket.contacts:id/detail" class="android.widget.TextView" content-desc="" clickable="false" scrollable="false"`, i%100), [4]int{700, top, 1060, top + 22}, true)
		sb.WriteString(`</node>`)
	}
	sb.WriteString(`</node></node></hierarchy>`)
	root, err := screen.ParseHierarchy([]byte(sb.String()))
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	root.Walk(func(*screen.Node) bool { n++; return true })
	if n < 300 {
		tb.Fatalf("fixture has %d nodes, want >= 300", n)
	}
	return root
}

// ui-style finds on a cached snapshot tree of 300 nodes: FindAll through
// Lua (snap:find_all with a table selector, and with a prebuilt ui.sel)
// vs the same Matcher in Go.
func BenchmarkFindOnSnapshot(b *testing.B) {
	root := fixtureTree(b)
	sel := screen.Selector{ID: "name", TextContains: "person 09"}
	m := sel.MustCompile()
	if got := len(m.FindAll(root)); got != 9 {
		b.Fatalf("fixture: %d matches, want 9", got)
	}
	b.Run("go", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if len(m.FindAll(root)) != 9 {
				b.Fatal("bad match count")
			}
		}
	})
	for _, tc := range []struct{ name, setup, body string }{
		{"lua-table-selector", ``, `snap:find_all({id = "name", text_contains = "person 09"})`},
		{"lua-ui.sel", `local s = ui.sel{id = "name", text_contains = "person 09"}`, `snap:find_all(s)`},
		{"lua-find-first", `local s = ui.sel{id = "name", text = "Person 098"}`, `snap:find(s)`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			vm := benchVM(b, Registry())
			vm.L.SetGlobal("snap", snapType.New(vm.L, &Snap{S: &screen.Snapshot{Tree: root}}))
			b.ResetTimer()
			ns := loopNs(b, vm, `local snap = snap; `+tc.setup, tc.body, b.N)
			b.ReportMetric(ns, "ns/find")
		})
	}
}
