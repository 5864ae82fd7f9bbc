package stdlib

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/openpocket/openpocket/lua"
)

// maxCachedRegexps bounds a VM's compiled-pattern cache.
const maxCachedRegexps = 256

// MaxPatternBytes bounds a re pattern: Go compiles a pattern into a
// program many times its size (an 8 MiB pattern took 1.5 GB and overran
// its run's timeout while compiling).
const MaxPatternBytes = 32 << 10

// maxMatches bounds the matches re.gsub collects in one call (each costs
// a slice on the Go side, out of the Lua heap limit's sight).
const maxMatches = 1 << 20

// reHost is the re module's state in one VM: its compiled patterns.
type reHost struct {
	res map[string]*regexp.Regexp
}

func openRe(vm *lua.VM) (lua.LValue, error) {
	e := &reHost{res: map[string]*regexp.Regexp{}}
	return vm.NewModule(map[string]lua.LGFunction{
		// re.match(pattern, s) → boolean.
		"match": func(L *lua.LState) int {
			re := e.checkRe(L, "re.match")
			s := L.CheckString(2)
			L.Push(lua.LBool(re.MatchString(s)))
			return 1
		},
		// re.find(pattern, s) → match, group1, … or nil (unmatched groups
		// are nil).
		"find": func(L *lua.LState) int {
			re := e.checkRe(L, "re.find")
			s := L.CheckString(2)
			m := re.FindStringSubmatchIndex(s)
			if m == nil {
				L.Push(lua.LNil)
				return 1
			}
			for i := 0; i < len(m); i += 2 {
				if m[i] < 0 {
					L.Push(lua.LNil)
				} else {
					L.Push(lua.LString(s[m[i]:m[i+1]]))
				}
			}
			return len(m) / 2
		},
		// re.gsub(pattern, s, repl) → result, count. repl is a string with
		// $1 / ${name} expansions, or a function(match, groups…) returning
		// the replacement (nil or false keeps the match).
		"gsub": func(L *lua.LState) int { return e.gsub(L, vm.MaxStringBytes()) },
	}), nil
}

// gsub is re.gsub(pattern, s, repl) → result, count, its result bounded
// by limit bytes and its matches by maxMatches.
func (e *reHost) gsub(L *lua.LState, limit int) int {
	re := e.checkRe(L, "re.gsub")
	s := L.CheckString(2)
	repl := L.Get(3)
	tmpl, isStr := repl.(lua.LString)
	fn, isFn := repl.(*lua.LFunction)
	if !isStr && !isFn {
		L.ArgError(3, "re.gsub: replacement string or function expected, got "+repl.Type().String())
	}
	// One pass for both forms, capped like string.gsub: a template
	// or function output repeated per match could otherwise build a
	// string of matches × replacement bytes.
	tooBig := func() int {
		return lua.Raisef(L, "re.gsub: the result would exceed the string size limit of %d bytes", limit)
	}
	// Every $ reference expands to at most the match's length.
	refs := strings.Count(string(tmpl), "$")
	matches := re.FindAllStringSubmatchIndex(s, maxMatches+1)
	if len(matches) > maxMatches {
		return lua.Raisef(L, "re.gsub: more than %d matches in one call", maxMatches)
	}
	checkCtx(L)
	var out []byte
	last := 0
	for i, m := range matches {
		if i%4096 == 4095 {
			checkCtx(L)
		}
		out = append(out, s[last:m[0]]...)
		last = m[1]
		if isStr {
			if len(out)+len(tmpl)+refs*(m[1]-m[0]) > limit {
				return tooBig()
			}
			out = re.ExpandString(out, string(tmpl), s, m)
		} else {
			out = appendReplacement(L, out, fn, s, m)
		}
		if len(out)+len(s)-last > limit {
			return tooBig()
		}
	}
	out = append(out, s[last:]...)
	L.Push(lua.LString(out))
	L.Push(lua.LNumber(len(matches)))
	return 2
}

// appendReplacement calls fn(match, groups…) for match m of s and appends
// its result (nil or false keeps the match).
func appendReplacement(L *lua.LState, out []byte, fn *lua.LFunction, s string, m []int) []byte {
	L.Push(fn)
	for i := 0; i < len(m); i += 2 {
		if m[i] < 0 {
			L.Push(lua.LNil)
		} else {
			L.Push(lua.LString(s[m[i]:m[i+1]]))
		}
	}
	L.Call(len(m)/2, 1)
	r := L.Get(-1)
	L.Pop(1)
	switch rv := r.(type) {
	case lua.LString:
		return append(out, rv...)
	case lua.LNumber:
		return append(out, rv.String()...)
	}
	if r != lua.LNil && r != lua.LFalse {
		lua.Raisef(L, "re.gsub: the replacement function returned a %s (string, number, nil or false expected)", r.Type())
	}
	return append(out, s[m[0]:m[1]]...)
}

// checkRe compiles argument 1 (cached per VM); a bad pattern raises naming
// it.
func (e *reHost) checkRe(L *lua.LState, fn string) *regexp.Regexp {
	pat := L.CheckString(1)
	if re, ok := e.res[pat]; ok {
		return re
	}
	if len(pat) > MaxPatternBytes {
		lua.Raisef(L, "%s: the pattern is %d bytes, the limit is %d", fn, len(pat), MaxPatternBytes)
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		lua.Raise(L, fmt.Errorf("%s: invalid pattern %q: %v", fn, pat, err))
	}
	if len(e.res) >= maxCachedRegexps {
		clear(e.res)
	}
	e.res[pat] = re
	return re
}

// checkCtx raises when the run's context has ended (timeout, Ctrl-C), so a
// long re call stops where it stands.
func checkCtx(L *lua.LState) {
	if ctx := L.Context(); ctx != nil && ctx.Err() != nil {
		lua.Raise(L, context.Cause(ctx))
	}
}
