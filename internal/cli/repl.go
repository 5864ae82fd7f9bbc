package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/ergochat/readline"

	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
	"github.com/openpocket/openpocket/lua"
)

// ReplCmd is the interactive Lua prompt against the device.
type ReplCmd struct {
	NoHistory bool `help:"Do not read or write the history file (HOME/state/repl_history)."`

	// stdin/stdout replace the terminal in tests (a pipe: no terminal).
	stdin  io.ReadCloser
	stdout io.Writer
	// tty replaces the process's terminal in tests: a pty the REPL reads
	// keys from and draws on, as it would on fds 0 and 1.
	tty *os.File
}

const (
	replPrompt     = "lua> "
	replContinue   = "  >> "
	replHistoryMax = 1000
)

// replGlobals are the modules pre-required as globals.
var replGlobals = []string{"device", "screen", "ui", "app", "wait", "log", "json", "time", "re", "session", "events", "assert"}

// Run reads Lua lines until Ctrl-D. A bare expression or =expr prints its
// values; an incomplete chunk continues on the next line; Ctrl-C cancels
// the running statement (or clears the pending input) without leaving.
func (c *ReplCmd) Run(ctx context.Context, streams Streams, h *workspace.Home, svc *run.Service) error {
	out := c.stdout
	if out == nil {
		out = streams.Stdout
	}
	if c.tty != nil {
		out = c.tty
	}
	printer := out // readline's writer once it exists
	rs, err := svc.REPL(ctx, run.REPLOptions{Print: func(line string) { fmt.Fprintln(printer, line) }})
	if err != nil {
		return err
	}
	defer rs.Close()
	if rs.ReadyErr != nil {
		// The prompt still opens, so the user can look and unlock by hand.
		fmt.Fprintf(streams.Stderr, "warning: %v\n", rs.ReadyErr)
	}
	cfg := c.readlineConfig(streams.Stderr, h, out)
	rl, err := openLineReader(cfg, c.ttyFd())
	if err != nil {
		return err
	}
	defer rl.Close()
	printer = rl.Stdout()
	// SIGTERM and SIGHUP end the REPL like Ctrl-D, after cancelling the
	// running statement, so the terminal gets its modes back: the default
	// action would leave it without echo and with bracketed paste on.
	ctx, stopSignals := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGHUP)
	defer stopSignals()
	go func() {
		<-ctx.Done()
		_ = rl.Close() // wakes ReadLine; Close runs once
	}()

	names, err := preRequire(rs.VM, rs.VM.Registry())
	if err != nil {
		return err
	}
	cfg.AutoComplete = &completer{names: names}
	if err := rl.SetConfig(cfg); err != nil {
		return fmt.Errorf("repl: %w", err)
	}
	lines := newLineCanceller()
	defer lines.stop()
	fmt.Fprintf(printer, "OpenPocket %s Lua REPL: modules %s are globals; =expr prints; Ctrl-C cancels, Ctrl-D exits.\n",
		Version, strings.Join(replGlobals, ", "))
	if err := replLoop(ctx, rl.Instance, rs.VM, printer, lines); err != nil {
		return err
	}
	return ctx.Err() // a signal's end is exit 130, not 0
}

// readlineConfig is the prompt's configuration: history in
// HOME/state/repl_history unless --no-history, test streams when set.
func (c *ReplCmd) readlineConfig(stderr io.Writer, h *workspace.Home, out io.Writer) *readline.Config {
	cfg := &readline.Config{
		Prompt:          replPrompt,
		HistoryLimit:    replHistoryMax,
		InterruptPrompt: "^C",
		EOFPrompt:       "\n",
		Stdout:          out,
		Stderr:          stderr,
	}
	if c.stdin != nil {
		cfg.Stdin = c.stdin
		cfg.FuncIsTerminal = func() bool { return false }
	}
	if c.tty != nil {
		ttyConfig(cfg, c.tty)
	}
	if !c.NoHistory {
		if err := os.MkdirAll(h.State(), 0o755); err != nil {
			fmt.Fprintf(stderr, "repl: no history: %v\n", err)
		} else {
			cfg.HistoryFile = filepath.Join(h.State(), "repl_history")
		}
	}
	return cfg
}

// lineCanceller turns Ctrl-C while a statement runs into cancelling that
// statement only. The CLI installs no handler for repl, so SIGINT is ours
// for the whole REPL; at the prompt the terminal is raw and readline sees
// ^C as a key.
type lineCanceller struct {
	mu     sync.Mutex
	cancel context.CancelFunc
	sigs   chan os.Signal
}

func newLineCanceller() *lineCanceller {
	l := &lineCanceller{sigs: make(chan os.Signal, 1)}
	signal.Notify(l.sigs, os.Interrupt)
	go func() {
		for range l.sigs {
			l.mu.Lock()
			if l.cancel != nil {
				l.cancel()
			}
			l.mu.Unlock()
		}
	}()
	return l
}

func (l *lineCanceller) stop() { signal.Stop(l.sigs) }

// eval runs one chunk under a context Ctrl-C cancels; interrupted says the
// chunk (not the whole REPL) was cancelled.
func (l *lineCanceller) eval(parent context.Context, vm *lua.VM, src string) (vals []any, interrupted bool, err error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	l.mu.Lock()
	l.cancel = cancel
	l.mu.Unlock()
	vals, err = vm.EvalContext(ctx, src)
	l.mu.Lock()
	l.cancel = nil
	l.mu.Unlock()
	return vals, ctx.Err() != nil && parent.Err() == nil, err
}

// replLoop reads, evaluates and prints until Ctrl-D.
func replLoop(ctx context.Context, rl *readline.Instance, vm *lua.VM, printer io.Writer, lines *lineCanceller) error {
	var pending strings.Builder
	for {
		if pending.Len() > 0 {
			rl.SetPrompt(replContinue)
		} else {
			rl.SetPrompt(replPrompt)
		}
		line, err := rl.ReadLine()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			pending.Reset() // ^C at the prompt drops the pending input
			continue
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return fmt.Errorf("repl: %w", err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if pending.Len() == 0 && strings.TrimSpace(line) == "" {
			continue
		}
		pending.WriteString(line)
		src := pending.String()
		if pending.Len() == len(line) {
			src = strings.TrimPrefix(strings.TrimSpace(src), "=") // =expr
		}
		vals, interrupted, err := lines.eval(ctx, vm, src)
		if needMore(vm, src, err) {
			pending.WriteString("\n")
			continue
		}
		pending.Reset()
		switch {
		case err != nil && interrupted:
			fmt.Fprintln(printer, "interrupted")
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			fmt.Fprintln(printer, replErr(err))
		case len(vals) > 0:
			fmt.Fprintln(printer, formatValues(vals))
		}
	}
}

// needMore reports whether src failed only because it is unfinished.
// Eval compiles "return "+src before src and reports src's error, so an
// unfinished expression ("1 +") is checked again in its return form;
// nothing runs, since neither form compiled.
func needMore(vm *lua.VM, src string, err error) bool {
	if incomplete(err) {
		return true
	}
	var se *lua.ScriptError
	if !errors.As(err, &se) || se.Kind != lua.KindSyntax {
		return false
	}
	_, rerr := vm.Eval("return " + src)
	return incomplete(rerr)
}

// incomplete reports a chunk that ended too early: keep reading lines.
func incomplete(err error) bool {
	var se *lua.ScriptError
	if !errors.As(err, &se) || se.Kind != lua.KindSyntax {
		return false
	}
	msg := se.Message
	if strings.Contains(msg, "unterminated string") {
		return false // a one-line string cannot continue on the next line
	}
	return strings.Contains(msg, "at end of input") || strings.Contains(msg, "<eof>")
}

func replErr(err error) string {
	var se *lua.ScriptError
	if errors.As(err, &se) {
		msg := se.Message
		if se.Line > 0 && se.Chunk != "repl" {
			return "error: " + se.Error()
		}
		return "error: " + msg
	}
	return "error: " + err.Error()
}

// preRequire makes the REPL modules globals and returns the completion
// candidates: module names and module.function names.
func preRequire(vm *lua.VM, reg *lua.Registry) ([]string, error) {
	var mods []string
	for _, m := range replGlobals {
		if reg.Has(m) {
			mods = append(mods, fmt.Sprintf("%q", m))
		}
	}
	vals, err := vm.Eval(`(function(mods)
		local names = {}
		for _, m in ipairs(mods) do
			local t = require(m)
			_G[m] = t
			names[#names + 1] = m
			for k, v in pairs(t) do
				if type(k) == "string" then names[#names + 1] = m .. "." .. k end
			end
		end
		return names
	end)({` + strings.Join(mods, ", ") + `})`)
	if err != nil {
		return nil, fmt.Errorf("repl: loading modules: %w", err)
	}
	var names []string
	if len(vals) > 0 {
		if list, ok := vals[0].([]any); ok {
			for _, v := range list {
				if s, ok := v.(string); ok {
					names = append(names, s)
				}
			}
		}
	}
	sort.Strings(names)
	return names, nil
}

// completer completes module and module.function names at the cursor.
type completer struct{ names []string }

var _ readline.AutoCompleter = (*completer)(nil)

// Do returns the suffixes of the candidates extending the identifier
// (with dots) that ends at pos.
func (c *completer) Do(line []rune, pos int) ([][]rune, int) {
	start := pos
	for start > 0 && isIdentRune(line[start-1]) {
		start--
	}
	word := string(line[start:pos])
	if word == "" {
		return nil, 0
	}
	var out [][]rune
	for _, n := range c.names {
		if strings.HasPrefix(n, word) && n != word {
			out = append(out, []rune(n[len(word):]))
		}
	}
	return out, len([]rune(word))
}

func isIdentRune(r rune) bool {
	return r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// formatValues renders results tab-separated: strings as is, nil/bools/
// numbers as Lua prints them, tables as compact JSON, userdata by String.
func formatValues(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = formatValue(v)
	}
	return strings.Join(parts, "\t")
}

func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case string:
		return x
	case bool:
		return fmt.Sprint(x)
	case float64:
		return lua.LNumber(x).String()
	case fmt.Stringer:
		return x.String()
	case map[string]any, []any:
		b, err := json.Marshal(jsonable(x))
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b)
	}
	return fmt.Sprint(v)
}

// jsonable replaces values JSON cannot hold (functions, userdata) with
// their description.
func jsonable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = jsonable(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = jsonable(e)
		}
		return s
	case nil, string, bool, float64:
		return x
	}
	return formatValue(v)
}
