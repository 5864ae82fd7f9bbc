package lua

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDeepExpressionRefusedBeforeCompile: a 400 KB chain of additions
// (which gopher-lua compiled in minutes) is refused at once with the line;
// a chain within the limit still compiles and runs.
func TestDeepExpressionRefusedBeforeCompile(t *testing.T) {
	src := "local a = 1\n\nreturn " + strings.Repeat("a+", 200_000) + "a"
	_, err := compileProto("deep.lua", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "expression nests deeper than 1000 levels") || !strings.Contains(err.Error(), ":3:") {
		t.Fatalf("want a compile error at line 3, got %v", err)
	}
	ok := "local a = 1\nreturn " + strings.Repeat("a+", 500) + "a"
	if _, err := compileProto("ok.lua", []byte(ok)); err != nil {
		t.Fatalf("500 additions: %v", err)
	}
}

// TestCompileCountsInsideTheTimeout: a chunk whose compile outlasts the
// run's timeout (60 chains of 999 additions, seconds of compiling) ends
// at the timeout with the timeout's error, while the compile is still
// going (its result is not yet in the cache).
func TestCompileCountsInsideTheTimeout(t *testing.T) {
	var b strings.Builder
	b.WriteString("local a = 1\n")
	for i := range 60 {
		b.WriteString("local x" + strconv.Itoa(i) + " = " + strings.Repeat("a+", 998) + "a\n")
	}
	cache := NewProtoCache(4)
	vm, err := New(context.Background(), nil, Options{Timeout: 100 * time.Millisecond, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	err = vm.Run("slow.lua", []byte(b.String()))
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "run exceeded its timeout of 100ms") {
		t.Fatalf("want the timeout, got %v", err)
	}
	if n := cache.Stats().Entries; n != 0 {
		t.Errorf("the run waited for the compile to finish (%d cached)", n)
	}
	// The compile goes on in the background: let it end here, not in the
	// next test's measurements.
	for cache.Stats().Entries == 0 {
		time.Sleep(20 * time.Millisecond)
	}
}
