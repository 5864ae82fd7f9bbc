package lua

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type inner struct {
	Z int `json:"z"`
}

type sample struct {
	Name    string         `json:"name"`
	Count   int            `json:"count"`
	Skip    string         `json:"-"`
	Empty   string         `json:"empty,omitempty"`
	Tags    []string       `json:"tags"`
	Attrs   map[string]any `json:"attrs"`
	Ptr     *inner         `json:"ptr"`
	NilPtr  *inner         `json:"nil_ptr"`
	Wait    time.Duration  `json:"wait"`
	At      time.Time      `json:"at"`
	private int
	inner
}

func TestToLuaToGoRoundTrip(t *testing.T) {
	vm := newTestVM(t, nil, Options{})
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	v := sample{Name: "n", Count: 2, Skip: "x", Tags: []string{"a", "b"}, Attrs: map[string]any{"k": true},
		Ptr: &inner{Z: 1}, Wait: 1500 * time.Millisecond, At: at, private: 9, inner: inner{Z: 7}}
	vm.SetGlobal("v", v)
	got, err := vm.Eval(`v`)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"name": "n", "count": 2.0, "tags": []any{"a", "b"}, "attrs": map[string]any{"k": true},
		"ptr": map[string]any{"z": 1.0}, "wait": 1500.0, "at": "2025-01-02T03:04:05Z", "z": 7.0,
	}, got[0])

	got, err = vm.Eval(`{}, {1, nil, 3}, {[1] = "a", x = 1}, 1.5, true`)
	require.NoError(t, err)
	assert.Equal(t, []any{map[string]any{}, map[string]any{"1": 1.0, "3": 3.0}, map[string]any{"1": "a", "x": 1.0}, 1.5, true}, got)

	got, err = vm.Eval(`(function() local t = {} t.self = t return t end)()`)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"self": nil}, got[0], "cycles become nil")

	var dst struct {
		Name string `json:"name"`
		N    int    `json:"n"`
	}
	require.NoError(t, vm.Run("d", []byte(`d = {name = "x", n = 3}`)))
	require.NoError(t, Decode(vm.L.GetGlobal("d"), &dst))
	assert.Equal(t, "x", dst.Name)
	assert.Equal(t, 3, dst.N)
	assert.Error(t, Decode(LString("s"), &dst))

	for in, want := range map[any]LValue{int8(3): LNumber(3), uint(4): LNumber(4), float32(0.5): LNumber(0.5), "s": LString("s")} {
		assert.Equal(t, want, ToLua(vm.L, in))
	}
	assert.Equal(t, LNil, ToLua(vm.L, (*inner)(nil)))
	assert.Equal(t, LString("ab"), ToLua(vm.L, []byte("ab")))
}
