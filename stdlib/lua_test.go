package stdlib_test

import (
	"strings"
	"testing"

	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/lua/luatest"
	"github.com/openpocket/openpocket/stdlib"
)

func TestLuaHelpers(t *testing.T) {
	luatest.RunFile(t, stdlib.Registry(), "lua/stdlib_test.lua")
}

// TestReGsubIsCapped checks re.gsub honours the VM's string size cap: a
// replacement repeated per match must not build matches × replacement bytes.
func TestReGsubIsCapped(t *testing.T) {
	vm, err := lua.New(t.Context(), stdlib.Registry(), lua.Options{MaxStringBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	for name, src := range map[string]string{
		"template":  `require("re").gsub("x", string.rep("x", 100), string.rep("y", 20))`,
		"expansion": `require("re").gsub(".*", string.rep("x", 100), string.rep("$0", 11))`,
		"function":  `require("re").gsub("x", string.rep("x", 100), function() return string.rep("y", 20) end)`,
	} {
		_, err := vm.Eval(src)
		if err == nil || !strings.Contains(err.Error(), "re.gsub: the result would exceed the string size limit of 1000 bytes") {
			t.Errorf("%s: want the size limit error, got %v", name, err)
		}
	}
	got, err := vm.Eval(`require("re").gsub("x", string.rep("x", 100), string.rep("y", 9))`)
	if err != nil || len(got[0].(string)) != 900 {
		t.Errorf("a result under the limit must pass: %v, %v", got, err)
	}
}

// TestSelectorStringUsesLuaNames checks tostring(sel) and selector errors
// use the Lua field names but leave quoted values alone.
func TestSelectorStringUsesLuaNames(t *testing.T) {
	vm, err := lua.New(t.Context(), stdlib.Registry(), lua.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	got, err := vm.Eval(`tostring(require("ui").sel{text = "leftOf \"textContains\"", desc_contains = "x", checked = true}:left_of{text_regex = "a"}:child_of("rightOf"))`)
	if err != nil {
		t.Fatal(err)
	}
	want := `text="leftOf \"textContains\"" desc_contains="x" checked=true left_of(text_regex="a") child_of(text="rightOf")`
	if got[0] != want {
		t.Errorf("tostring(sel)\n got: %s\nwant: %s", got[0], want)
	}
	_, err = vm.Eval(`require("ui").sel{below = {text_regex = "(leftOf"}}`)
	if err == nil || !strings.Contains(err.Error(), `below.text_regex: invalid regular expression "(leftOf"`) {
		t.Errorf("want the nested field by its Lua name and the pattern untouched, got %v", err)
	}
}

// TestRePatternAndMatchesBounded: an 8 MiB pattern is refused before Go
// compiles it (it took 1.5 GB), and re.gsub refuses to collect millions
// of matches.
func TestRePatternAndMatchesBounded(t *testing.T) {
	vm, err := lua.New(t.Context(), stdlib.Registry(), lua.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	_, err = vm.Eval(`require("re").match(string.rep("(a|b)", 8 * 1024 * 1024 / 5), "ab")`)
	if err == nil || !strings.Contains(err.Error(), "re.match: the pattern is 8388605 bytes, the limit is 32768") {
		t.Errorf("want the pattern size limit, got %v", err)
	}
	_, err = vm.Eval(`require("re").gsub("", string.rep("x", 2 * 1024 * 1024), "")`)
	if err == nil || !strings.Contains(err.Error(), "re.gsub: more than 1048576 matches in one call") {
		t.Errorf("want the match count limit, got %v", err)
	}
}
