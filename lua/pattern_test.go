package lua

import (
	"context"
	"fmt"
	"testing"

	glua "github.com/yuin/gopher-lua"
)

// TestPatternsMatchGopherLua runs the same pattern calls through the
// sandbox's interruptible matcher and gopher-lua's own string library and
// compares the results.
func TestPatternsMatchGopherLua(t *testing.T) {
	calls := []string{
		`string.find("hello world", "o w")`, `string.find("hello world", "l+")`, `string.find("hello", "l", 1, true)`,
		`string.find("hello", "xyz")`, `string.find("hello", "^h(.)")`, `string.find("hello", "^e")`,
		`string.find("a.b", ".", 1, true)`, `string.find("abc", "b", -1)`,
		`string.find("key = value", "(%w+)%s*=%s*(%w+)")`, `string.find("  x", "%S")`, `string.find("THE (quick) fox", "%((%a+)%)")`,
		`string.match("hello 123 world", "%d+")`, `string.match("2024-01-02", "(%d+)-(%d+)-(%d+)")`,
		`string.match("abc", "()b()")`, `string.match("[[x]]", "%[(.-)%]")`, `string.match("f(a(b)c)", "%b()")`,
		`string.match("aaab", "a-b")`,
		`string.match("x=1, y=2", "y=(%d)")`, `string.match("abc", "[a-b]+")`, `string.match("a]b", "[]]")`,
		`string.match("a-b", "[a%-]+")`, `string.match("hello", ".-$")`, `string.match("hello", "l?lo$")`,
		`string.match("abab", "(ab)%1")`, `string.match("", ".*")`, `string.match("x", "[^%s]")`,
		`string.gsub("hello world", "o", "0")`, `string.gsub("hello world", "(%w+)", "<%1>")`,
		`string.gsub("hello", "", "-")`, `string.gsub("abc", "%w", "%0%0")`, `string.gsub("abc", "b", "%%")`,
		`string.gsub("hello world", "%w+", {hello = "HI"})`, `string.gsub("abc", ".", function(c) return c:upper() end)`,
		`string.gsub("abc", "^a", "x")`, `string.gsub("aaa", "a", "b", 2)`, `string.gsub("x y z", "%s", "")`,
		`string.gsub("$1.50", "%$(%d+)", "%1")`, `string.gsub("abc", "(a)(b)", "%2%1")`,
	}
	ref := glua.NewState()
	defer ref.Close()
	vm, err := New(context.Background(), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	for _, c := range calls {
		if err := ref.DoString("return " + c); err != nil {
			t.Fatalf("reference %s: %v", c, err)
		}
		var want []any
		for i := 1; i <= ref.GetTop(); i++ {
			want = append(want, ToGo(ref.Get(i)))
		}
		ref.SetTop(0)
		got, err := vm.Eval(c)
		if err != nil {
			t.Errorf("%s: %v", c, err)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s = %v, gopher-lua gives %v", c, got, want)
		}
	}
	// Where gopher-lua departs from Lua 5.1, the sandbox follows Lua 5.1:
	// frontier patterns, a nil result from match, find's clamped init.
	for call, want := range map[string]string{
		`string.match("THE END", "%f[%w]%w+")`: "[THE]",
		`string.match("aaa", "a-b")`:           "[<nil>]",
		`string.find("abc", "", 10)`:           "[4 3]",
	} {
		got, err := vm.Eval(call)
		if err != nil || fmt.Sprint(got) != want {
			t.Errorf("%s = %v (%v), Lua 5.1 gives %s", call, got, err, want)
		}
	}
	it, err := vm.Eval(`(function() local t = {} for k, v in string.gmatch("a=1, b=2", "(%w+)=(%w+)") do t[#t+1] = k .. v end return table.concat(t, ",") end)()`)
	if err != nil || it[0] != "a1,b2" {
		t.Errorf("gmatch: %v %v", it, err)
	}
}

func TestPatternErrors(t *testing.T) {
	vm, err := New(context.Background(), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	for call, want := range map[string]string{
		`string.find("a", "%")`:                          "malformed pattern (ends with '%')",
		`string.find("a", "[a")`:                         "malformed pattern (missing ']')",
		`string.find("a", "(a")`:                         "unfinished capture",
		`string.match("a", "a)")`:                        "invalid pattern capture",
		`string.gsub("a", "a", "%2")`:                    "invalid capture index",
		`string.find("a", "%b")`:                         "missing arguments to '%b'",
		`string.find("a", "%fx")`:                        "missing '[' after '%f' in pattern",
		`string.rep("x", 300):find(string.rep("(", 40))`: "too many captures",
	} {
		_, err := vm.Eval(call)
		if err == nil || !contains(err.Error(), want) {
			t.Errorf("%s: want %q, got %v", call, want, err)
		}
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub))
}
