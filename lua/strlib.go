package lua

import (
	"strings"

	glua "github.com/yuin/gopher-lua"
)

// The string library's pattern functions, on the interruptible matcher of
// pattern.go (Lua 5.1 semantics): string.find, string.match, string.gmatch
// and string.gsub stop within a few milliseconds of the run's timeout or
// cancellation, and gsub's result is capped at MaxStringBytes.

// newMatcher prepares a matcher whose checks read the VM's context.
func (vm *VM) newMatcher(L *LState, src, pat string) *matcher {
	return &matcher{src: src, pat: pat, check: func() error {
		if err := L.Context().Err(); err != nil {
			return contextCause(L)
		}
		return nil
	}}
}

// protect runs fn and turns a matcher abort into a Lua error.
func protect(L *LState, fn func() int) (n int) {
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(patternError)
			if !ok {
				panic(r)
			}
			Raise(L, pe.err)
		}
	}()
	return fn()
}

// startIndex converts a 1-based, possibly negative init to a 0-based
// offset clamped to [0, len].
func startIndex(init, length int) int {
	if init < 0 {
		init = length + init + 1
	}
	init--
	if init < 0 {
		return 0
	}
	if init > length {
		return length
	}
	return init
}

func (vm *VM) strFind(L *LState) int { return vm.findAux(L, true) }

func (vm *VM) strMatch(L *LState) int { return vm.findAux(L, false) }

func (vm *VM) findAux(L *LState, find bool) int {
	src := L.CheckString(1)
	pat := L.CheckString(2)
	init := startIndex(L.OptInt(3, 1), len(src))
	if find && (glua.LVAsBool(L.Get(4)) || !strings.ContainsAny(pat, patternSpecial)) {
		if i := strings.Index(src[init:], pat); i >= 0 {
			L.Push(LNumber(init + i + 1))
			L.Push(LNumber(init + i + len(pat)))
			return 2
		}
		L.Push(LNil)
		return 1
	}
	m := vm.newMatcher(L, src, pat)
	return protect(L, func() int {
		p, anchor := 0, len(pat) > 0 && pat[0] == '^'
		if anchor {
			p = 1
		}
		for s := init; ; s++ {
			m.level = 0
			if e := m.match(s, p); e != -1 {
				if find {
					L.Push(LNumber(s + 1))
					L.Push(LNumber(e))
					caps := m.captures(s, e, false)
					for _, c := range caps {
						L.Push(c)
					}
					return 2 + len(caps)
				}
				caps := m.captures(s, e, true)
				for _, c := range caps {
					L.Push(c)
				}
				return len(caps)
			}
			if s >= len(src) || anchor {
				break
			}
		}
		L.Push(LNil)
		return 1
	})
}

func (vm *VM) strGmatch(L *LState) int {
	src := L.CheckString(1)
	pat := L.CheckString(2)
	pos := 0
	L.Push(L.NewFunction(func(L *LState) int {
		m := vm.newMatcher(L, src, pat)
		return protect(L, func() int {
			for s := pos; s <= len(src); s++ {
				m.level = 0
				if e := m.match(s, 0); e != -1 {
					pos = e
					if e == s {
						pos++
					}
					caps := m.captures(s, e, true)
					for _, c := range caps {
						L.Push(c)
					}
					return len(caps)
				}
			}
			pos = len(src) + 1
			return 0
		})
	}))
	return 1
}

// strGsub is string.gsub: linear in the result, capped at MaxStringBytes.
func (vm *VM) strGsub(L *LState) int {
	src := L.CheckString(1)
	pat := L.CheckString(2)
	L.CheckTypes(3, glua.LTString, glua.LTNumber, glua.LTTable, glua.LTFunction)
	repl := L.Get(3)
	maxN := L.OptInt(4, len(src)+1)
	m := vm.newMatcher(L, src, pat)
	return protect(L, func() int {
		p, anchor := 0, len(pat) > 0 && pat[0] == '^'
		if anchor {
			p = 1
		}
		var b strings.Builder
		s, n := 0, 0
	loop:
		for n < maxN {
			m.level = 0
			e := m.match(s, p)
			if e != -1 {
				n++
				vm.addValue(L, m, &b, s, e, repl)
			}
			switch {
			case e != -1 && e > s:
				s = e
			case s < len(src):
				b.WriteByte(src[s])
				s++
			default:
				break loop // end of subject
			}
			if b.Len() > vm.opts.MaxStringBytes {
				vm.tooBig(L, "string.gsub", int64(b.Len()))
			}
			if anchor {
				break
			}
		}
		if s < len(src) {
			b.WriteString(src[s:])
		}
		if b.Len() > vm.opts.MaxStringBytes {
			vm.tooBig(L, "string.gsub", int64(b.Len()))
		}
		L.Push(LString(b.String()))
		L.Push(LNumber(n))
		return 2
	})
}

// addValue appends the replacement of the match src[s:e].
func (vm *VM) addValue(L *LState, m *matcher, b *strings.Builder, s, e int, repl LValue) {
	var v LValue
	switch r := repl.(type) {
	case LString, LNumber:
		rs := r.String()
		for i := 0; i < len(rs); i++ {
			c := rs[i]
			if c != '%' || i == len(rs)-1 {
				b.WriteByte(c)
				continue
			}
			i++
			switch d := rs[i]; {
			case d == '%':
				b.WriteByte('%')
			case d == '0':
				b.WriteString(m.src[s:e])
			case d >= '1' && d <= '9':
				b.WriteString(glua.LVAsString(m.captureValue(int(d-'1'), s, e)))
			default: // gopher-lua keeps unknown escapes as written
				b.WriteByte('%')
				b.WriteByte(d)
			}
		}
		return
	case *LTable:
		v = L.GetTable(r, m.captureValue(0, s, e))
	case *LFunction:
		L.Push(r)
		caps := m.captures(s, e, true)
		for _, c := range caps {
			L.Push(c)
		}
		L.Call(len(caps), 1)
		v = L.Get(-1)
		L.Pop(1)
	}
	switch {
	case glua.LVIsFalse(v):
		b.WriteString(m.src[s:e])
	case v.Type() == glua.LTString || v.Type() == glua.LTNumber:
		b.WriteString(glua.LVAsString(v))
	default:
		L.RaiseError("invalid replacement value (a %s)", v.Type().String())
	}
}
