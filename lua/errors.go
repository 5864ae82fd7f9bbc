package lua

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Kind classifies a [ScriptError].
type Kind int

const (
	// KindRuntime is an error raised while running (error(), a failed
	// check in a binding, Raise).
	KindRuntime Kind = iota
	// KindSyntax is a parse or compile error; nothing ran.
	KindSyntax
	// KindCanceled means the run's context ended (Ctrl-C, Options.Timeout,
	// parent deadline). Cause is the context's cause, so
	// errors.Is(err, context.Canceled / context.DeadlineExceeded) works.
	KindCanceled
	// KindPanic is a Go panic in a binding, recovered by the VM.
	KindPanic
)

func (k Kind) String() string {
	switch k {
	case KindSyntax:
		return "syntax"
	case KindCanceled:
		return "canceled"
	case KindPanic:
		return "panic"
	default:
		return "runtime"
	}
}

// ScriptError is every error a VM returns from running Lua. Chunk and Line
// point at the user's source: after Options.SourceMap, a playbook's YAML
// file and line; LuaChunk and LuaLine keep the generated Lua position.
// Cause is the Go error a binding raised ([Raise]) or the context cause, so
// errors.Is / errors.As see through the Lua layer.
type ScriptError struct {
	Kind    Kind
	Chunk   string
	Line    int // 0 when unknown
	Message string
	// Traceback is Lua's "stack traceback:" text, remapped like Chunk/Line.
	Traceback string
	Cause     error
	// Value is a non-string error value (error({code = 2})) converted with
	// ToGo; nil for string errors.
	Value any

	LuaChunk string
	LuaLine  int
}

// Error formats "chunk:line: message" like Lua does.
func (e *ScriptError) Error() string {
	var b strings.Builder
	if e.Chunk != "" {
		b.WriteString(e.Chunk)
		if e.Line > 0 {
			b.WriteString(":")
			b.WriteString(strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// Unwrap returns Cause.
func (e *ScriptError) Unwrap() error { return e.Cause }

// TimeoutError is the context cause when Options.Timeout ends a run. It
// matches context.DeadlineExceeded with errors.Is.
type TimeoutError struct{ Timeout time.Duration }

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("run exceeded its timeout of %s", e.Timeout)
}

// Is reports target == context.DeadlineExceeded.
func (e *TimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// ErrClosed is returned by a VM used after Close.
var ErrClosed = errors.New("lua: VM is closed")

// posPrefix matches Lua's "chunk:line: " position prefix.
var posPrefix = regexp.MustCompile(`(?s)^([^\n]+?):(\d+): (.*)$`)

// splitPosition splits "chunk:12: msg" into its parts.
func splitPosition(msg string) (chunk string, line int, rest string, ok bool) {
	m := posPrefix.FindStringSubmatch(msg)
	if m == nil {
		return "", 0, msg, false
	}
	n, err := strconv.Atoi(m[2])
	if err != nil {
		return "", 0, msg, false
	}
	return m[1], n, m[3], true
}

// tracebackPos matches a position at the start of a traceback line.
var tracebackPos = regexp.MustCompile(`(?m)^(\s+)([^\s\[][^\n]*?):(\d+):`)

// remap applies the source map to the error's position and traceback.
func remap(se *ScriptError, sm func(string, int) (string, int, bool)) {
	se.Chunk, se.Line = se.LuaChunk, se.LuaLine
	if sm == nil {
		return
	}
	if se.LuaChunk != "" && se.LuaLine > 0 {
		if f, l, ok := sm(se.LuaChunk, se.LuaLine); ok {
			se.Chunk, se.Line = f, l
		}
	}
	if se.Traceback != "" {
		se.Traceback = tracebackPos.ReplaceAllStringFunc(se.Traceback, func(s string) string {
			m := tracebackPos.FindStringSubmatch(s)
			n, err := strconv.Atoi(m[3])
			if err != nil {
				return s
			}
			if f, l, ok := sm(m[2], n); ok {
				return fmt.Sprintf("%s%s:%d:", m[1], f, l)
			}
			return s
		})
	}
}
