package lua

import (
	"errors"
	"fmt"
)

// A Lua 5.1 pattern matcher (the algorithm of lstrlib.c) that counts its
// steps and asks check every stepsPerCheck steps whether to go on:
// gopher-lua's own matcher cannot be interrupted, so one string.find with a
// pathological pattern could outlive every timeout. Depth is bounded too.

const (
	maxCaptures    = 32
	maxMatchDepth  = 200
	stepsPerCheck  = 1 << 12
	capUnfinished  = -1
	capPosition    = -2
	patternSpecial = "^$*+?.([%-"
)

// errPatternDepth is raised for patterns that nest too deeply.
var errPatternDepth = errors.New("pattern too complex (matching nests deeper than 200 levels)")

type capture struct{ init, len int }

// matcher holds one match attempt over src with pattern pat.
type matcher struct {
	src, pat string
	level    int
	capture  [maxCaptures]capture
	depth    int
	steps    int
	check    func() error // nil: never interrupted
}

// patternError aborts matching; recovered by the callers in strlib.go.
type patternError struct{ err error }

func (m *matcher) fail(format string, args ...any) {
	panic(patternError{fmt.Errorf(format, args...)})
}

func (m *matcher) step() {
	m.steps++
	if m.steps%stepsPerCheck == 0 && m.check != nil {
		if err := m.check(); err != nil {
			panic(patternError{err})
		}
	}
}

func (m *matcher) classEnd(p int) int {
	pat := m.pat
	c := pat[p]
	p++
	if c == '%' {
		if p >= len(pat) {
			m.fail("malformed pattern (ends with '%%')")
		}
		return p + 1
	}
	if c == '[' {
		if p < len(pat) && pat[p] == '^' {
			p++
		}
		for { // look for a ']'; the first character is always part of the set
			if p >= len(pat) {
				m.fail("malformed pattern (missing ']')")
			}
			c := pat[p]
			p++
			if c == '%' && p < len(pat) {
				p++
			}
			if p >= len(pat) {
				m.fail("malformed pattern (missing ']')")
			}
			if pat[p] == ']' {
				break
			}
		}
		return p + 1
	}
	return p
}

func matchClass(c byte, cl byte) bool {
	var res bool
	lower := cl | 0x20
	switch lower {
	case 'a':
		res = isAlpha(c)
	case 'c':
		res = c < 32 || c == 127
	case 'd':
		res = c >= '0' && c <= '9'
	case 'l':
		res = c >= 'a' && c <= 'z'
	case 'p':
		res = isPunct(c)
	case 's':
		res = c == ' ' || (c >= '\t' && c <= '\r')
	case 'u':
		res = c >= 'A' && c <= 'Z'
	case 'w':
		res = isAlpha(c) || (c >= '0' && c <= '9')
	case 'x':
		res = (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'f')
	case 'z':
		res = c == 0
	default:
		return cl == c
	}
	if cl >= 'A' && cl <= 'Z' {
		return !res
	}
	return res
}

func isAlpha(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

func isPunct(c byte) bool {
	return c > 32 && c < 127 && !isAlpha(c) && !(c >= '0' && c <= '9')
}

// matchBracketClass: p is the '[' and ec the closing ']'.
func (m *matcher) matchBracketClass(c byte, p, ec int) bool {
	pat := m.pat
	sig := true
	if pat[p+1] == '^' {
		sig = false
		p++
	}
	for p++; p < ec; p++ {
		switch {
		case pat[p] == '%':
			p++
			if matchClass(c, pat[p]) {
				return sig
			}
		case pat[p+1] == '-' && p+2 < ec:
			p += 2
			if pat[p-2] <= c && c <= pat[p] {
				return sig
			}
		case pat[p] == c:
			return sig
		}
	}
	return !sig
}

func (m *matcher) singleMatch(s, p, ep int) bool {
	if s >= len(m.src) {
		return false
	}
	c := m.src[s]
	switch m.pat[p] {
	case '.':
		return true
	case '%':
		return matchClass(c, m.pat[p+1])
	case '[':
		return m.matchBracketClass(c, p, ep-1)
	}
	return m.pat[p] == c
}

// match returns the end of the match of pat[p:] at src[s:], or -1.
func (m *matcher) match(s, p int) int {
	m.depth++
	if m.depth > maxMatchDepth {
		panic(patternError{errPatternDepth})
	}
	defer func() { m.depth-- }()
	pat := m.pat
	for {
		m.step()
		if p >= len(pat) {
			return s
		}
		switch pat[p] {
		case '(':
			if p+1 < len(pat) && pat[p+1] == ')' {
				return m.startCapture(s, p+2, capPosition)
			}
			return m.startCapture(s, p+1, capUnfinished)
		case ')':
			return m.endCapture(s, p+1)
		case '%':
			if ns, np, ok := m.matchEscape(s, p); ok {
				if ns == -1 {
					return -1
				}
				s, p = ns, np
				continue
			}
		case '$':
			if p+1 == len(pat) {
				if s == len(m.src) {
					return s
				}
				return -1
			}
		}
		ep := m.classEnd(p)
		matched := m.singleMatch(s, p, ep)
		if ep < len(pat) {
			switch pat[ep] {
			case '?':
				if matched {
					if res := m.match(s+1, ep+1); res != -1 {
						return res
					}
				}
				p = ep + 1
				continue
			case '*':
				return m.maxExpand(s, p, ep)
			case '+':
				if !matched {
					return -1
				}
				return m.maxExpand(s+1, p, ep)
			case '-':
				return m.minExpand(s, p, ep)
			}
		}
		if !matched {
			return -1
		}
		s++
		p = ep
	}
}

// matchEscape handles %b, %f and back-references at pat[p] == '%': it
// returns where matching goes on (s == -1: no match), or ok=false for a
// class escape such as %d, which the caller matches as a single character.
func (m *matcher) matchEscape(s, p int) (ns, np int, ok bool) {
	pat := m.pat
	if p+1 >= len(pat) {
		m.fail("malformed pattern (ends with '%%')")
	}
	switch c := pat[p+1]; {
	case c == 'b':
		return m.matchBalance(s, p+2), p + 4, true
	case c == 'f':
		p += 2
		if p >= len(pat) || pat[p] != '[' {
			m.fail("missing '[' after '%%f' in pattern")
		}
		ep := m.classEnd(p)
		var prev, cur byte
		if s > 0 {
			prev = m.src[s-1]
		}
		if s < len(m.src) {
			cur = m.src[s]
		}
		if !m.matchBracketClass(prev, p, ep-1) && m.matchBracketClass(cur, p, ep-1) {
			return s, ep, true
		}
		return -1, 0, true
	case c >= '0' && c <= '9':
		return m.matchCapture(s, c), p + 2, true
	}
	return s, p, false
}

func (m *matcher) maxExpand(s, p, ep int) int {
	i := 0
	for m.singleMatch(s+i, p, ep) {
		m.step()
		i++
	}
	for ; i >= 0; i-- {
		if res := m.match(s+i, ep+1); res != -1 {
			return res
		}
	}
	return -1
}

func (m *matcher) minExpand(s, p, ep int) int {
	for {
		if res := m.match(s, ep+1); res != -1 {
			return res
		}
		if !m.singleMatch(s, p, ep) {
			return -1
		}
		s++
	}
}

func (m *matcher) startCapture(s, p, what int) int {
	if m.level >= maxCaptures {
		m.fail("too many captures")
	}
	m.capture[m.level] = capture{s, what}
	m.level++
	res := m.match(s, p)
	if res == -1 {
		m.level--
	}
	return res
}

func (m *matcher) endCapture(s, p int) int {
	l := -1
	for i := m.level - 1; i >= 0; i-- {
		if m.capture[i].len == capUnfinished {
			l = i
			break
		}
	}
	if l < 0 {
		m.fail("invalid pattern capture")
	}
	m.capture[l].len = s - m.capture[l].init
	res := m.match(s, p)
	if res == -1 {
		m.capture[l].len = capUnfinished
	}
	return res
}

func (m *matcher) matchBalance(s, p int) int {
	if p+1 >= len(m.pat) {
		m.fail("unbalanced pattern (missing arguments to '%%b')")
	}
	if s >= len(m.src) || m.src[s] != m.pat[p] {
		return -1
	}
	b, e := m.pat[p], m.pat[p+1]
	cont := 1
	for s++; s < len(m.src); s++ {
		m.step()
		switch m.src[s] {
		case e:
			if cont--; cont == 0 {
				return s + 1
			}
		case b:
			cont++
		}
	}
	return -1
}

func (m *matcher) matchCapture(s int, c byte) int {
	l := int(c - '1')
	if l < 0 || l >= m.level || m.capture[l].len == capUnfinished {
		m.fail("invalid capture index")
	}
	cp := m.capture[l]
	if len(m.src)-s >= cp.len && m.src[cp.init:cp.init+cp.len] == m.src[s:s+cp.len] {
		return s + cp.len
	}
	return -1
}

// captureValue returns capture i of a match src[s:e] (the whole match for
// i == 0 when the pattern has no captures): a string, or a 1-based position.
func (m *matcher) captureValue(i, s, e int) LValue {
	if i >= m.level {
		if i != 0 {
			m.fail("invalid capture index")
		}
		return LString(m.src[s:e])
	}
	cp := m.capture[i]
	switch cp.len {
	case capPosition:
		return LNumber(cp.init + 1)
	case capUnfinished:
		m.fail("unfinished capture")
	}
	return LString(m.src[cp.init : cp.init+cp.len])
}

// captures returns the captures of a match (the whole match when none).
func (m *matcher) captures(s, e int, wholeIfNone bool) []LValue {
	n := m.level
	if n == 0 && wholeIfNone {
		n = 1
	}
	out := make([]LValue, n)
	for i := range n {
		out[i] = m.captureValue(i, s, e)
	}
	return out
}
