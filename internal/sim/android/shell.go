package android

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
)

// The shell is a small subset of Android's mksh: words with '…', "…" and
// backslash quoting; `;`, newlines, `&&`, `||` and `|`; redirects `>`,
// `>>`, `<`, `2>`, `2>>`, `>&2`, `2>&1`, `&>`; `#` comments; and `exit N`.
// There are no variables, globs or subshells.

type tokKind int

const (
	tokWord tokKind = iota
	tokSemi
	tokAnd
	tokOr
	tokPipe
	tokRedir
)

type token struct {
	kind tokKind
	val  string // word text, or the redirect operator ("2>", ">>", "1>&2", "&>", "<")
}

// redirect is one I/O redirection of a simple command.
type redirect struct {
	fd     int    // 1 or 2 (0 for input)
	op     string // ">", ">>", "<", "dup"
	target string // file name
	dupTo  int    // for "dup"
}

type simpleCmd struct {
	args   []string
	redirs []redirect
}

type pipeline []simpleCmd

// listItem is one pipeline with the operator that joins it to the previous
// one (";", "&&" or "||").
type listItem struct {
	joiner string
	pipe   pipeline
}

type syntaxError struct{ msg string }

func (e *syntaxError) Error() string { return "syntax error: " + e.msg }

func tokenize(line string) ([]token, error) {
	var toks []token
	var word strings.Builder
	inWord := false
	quoted := false // the current word contains quoting, so it is never an fd prefix
	flush := func() {
		if inWord {
			toks = append(toks, token{kind: tokWord, val: word.String()})
		}
		word.Reset()
		inWord, quoted = false, false
	}
	s := line
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
		case c == '\n' || c == ';':
			flush()
			toks = append(toks, token{kind: tokSemi})
		case c == '#' && !inWord:
			for i < len(s) && s[i] != '\n' {
				i++
			}
			i--
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, &syntaxError{"unterminated quoted string"}
			}
			word.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord, quoted = true, true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
				}
				word.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, &syntaxError{"unterminated quoted string"}
			}
			inWord, quoted = true, true
		case c == '\\':
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					word.WriteByte(s[i])
				}
			} else {
				word.WriteByte('\\')
			}
			inWord, quoted = true, true
		case c == '&':
			switch {
			case i+1 < len(s) && s[i+1] == '&':
				flush()
				toks = append(toks, token{kind: tokAnd})
				i++
			case i+1 < len(s) && s[i+1] == '>':
				flush()
				toks = append(toks, token{kind: tokRedir, val: "&>"})
				i++
			default:
				// Background jobs run in the foreground here.
				flush()
				toks = append(toks, token{kind: tokSemi})
			}
		case c == '|':
			flush()
			if i+1 < len(s) && s[i+1] == '|' {
				toks = append(toks, token{kind: tokOr})
				i++
			} else {
				toks = append(toks, token{kind: tokPipe})
			}
		case c == '>' || c == '<':
			fd := ""
			if inWord && !quoted && (word.String() == "1" || word.String() == "2" || word.String() == "0") {
				fd = word.String()
				word.Reset()
				inWord = false
			}
			flush()
			op := string(c)
			if c == '>' && i+1 < len(s) && s[i+1] == '>' {
				op = ">>"
				i++
			}
			if c == '>' && i+2 < len(s) && s[i+1] == '&' && s[i+2] >= '0' && s[i+2] <= '9' {
				op = ">&" + string(s[i+2])
				i += 2
			}
			toks = append(toks, token{kind: tokRedir, val: fd + op})
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return toks, nil
}

func parse(line string) ([]listItem, error) {
	toks, err := tokenize(line)
	if err != nil {
		return nil, err
	}
	var items []listItem
	var pipe pipeline
	var cmd simpleCmd
	joiner := ";"
	endCmd := func(what string) error {
		if len(cmd.args) == 0 && len(cmd.redirs) == 0 {
			return &syntaxError{fmt.Sprintf("'%s' unexpected", what)}
		}
		pipe = append(pipe, cmd)
		cmd = simpleCmd{}
		return nil
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.kind {
		case tokWord:
			cmd.args = append(cmd.args, t.val)
		case tokRedir:
			r, needsTarget, err := parseRedirect(t.val)
			if err != nil {
				return nil, err
			}
			if needsTarget {
				if i+1 >= len(toks) || toks[i+1].kind != tokWord {
					return nil, &syntaxError{"redirect needs a file name"}
				}
				i++
				r.target = toks[i].val
			}
			if t.val == "&>" {
				cmd.redirs = append(cmd.redirs, r, redirect{fd: 2, op: "dup", dupTo: 1})
				continue
			}
			cmd.redirs = append(cmd.redirs, r)
		case tokPipe:
			if err := endCmd("|"); err != nil {
				return nil, err
			}
		case tokSemi, tokAnd, tokOr:
			op := map[tokKind]string{tokSemi: ";", tokAnd: "&&", tokOr: "||"}[t.kind]
			if len(cmd.args) == 0 && len(cmd.redirs) == 0 && len(pipe) == 0 {
				if t.kind == tokSemi {
					continue // empty statement
				}
				return nil, &syntaxError{fmt.Sprintf("'%s' unexpected", op)}
			}
			if err := endCmd(op); err != nil {
				return nil, err
			}
			items = append(items, listItem{joiner: joiner, pipe: pipe})
			pipe, joiner = nil, op
		}
	}
	if len(cmd.args) > 0 || len(cmd.redirs) > 0 {
		pipe = append(pipe, cmd)
	} else if len(pipe) > 0 || joiner != ";" {
		return nil, &syntaxError{"unexpected end of file"}
	}
	if len(pipe) > 0 {
		items = append(items, listItem{joiner: joiner, pipe: pipe})
	}
	return items, nil
}

func parseRedirect(op string) (redirect, bool, error) {
	fd := 1
	switch {
	case op == "&>":
		return redirect{fd: 1, op: ">"}, true, nil
	case op == "<" || op == "0<":
		return redirect{fd: 0, op: "<"}, true, nil
	case strings.HasPrefix(op, "2"):
		fd, op = 2, op[1:]
	case strings.HasPrefix(op, "1"):
		op = op[1:]
	}
	if strings.HasPrefix(op, ">&") {
		to, _ := strconv.Atoi(op[2:])
		if to != 1 && to != 2 {
			return redirect{}, false, &syntaxError{"bad file descriptor " + op[2:]}
		}
		return redirect{fd: fd, op: "dup", dupTo: to}, false, nil
	}
	return redirect{fd: fd, op: op}, true, nil
}

// exitRequest unwinds the interpreter when a script runs `exit N`.
type exitRequest struct{ code int }

func (e *exitRequest) Error() string { return "exit " + strconv.Itoa(e.code) }

// cmdIO is what a command sees: its argument vector and three streams.
// Commands must not write to the streams while holding the phone's mutex,
// because writes may block on the network.
type cmdIO struct {
	args   []string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

func (c *cmdIO) errorf(format string, a ...any) {
	fmt.Fprintf(c.stderr, format+"\n", a...)
}

type command func(ctx context.Context, p *Phone, c *cmdIO) int

// Shell runs cmdline as /system/bin/sh -c would and returns its exit status.
func (p *Phone) Shell(ctx context.Context, cmdline string, stdin io.Reader, stdout, stderr io.Writer) int {
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	code, err := p.runScript(ctx, cmdline, stdin, stdout, stderr)
	var exit *exitRequest
	if errors.As(err, &exit) {
		return exit.code
	}
	return code
}

func (p *Phone) runScript(ctx context.Context, script string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	items, err := parse(script)
	if err != nil {
		fmt.Fprintf(stderr, "/system/bin/sh: %v\n", err)
		return 1, nil
	}
	status := 0
	for _, item := range items {
		if ctx.Err() != nil {
			return 130, nil
		}
		if (item.joiner == "&&" && status != 0) || (item.joiner == "||" && status == 0) {
			continue
		}
		status, err = p.runPipeline(ctx, item.pipe, stdin, stdout, stderr)
		if err != nil {
			return status, err
		}
	}
	return status, nil
}

// runPipeline runs the stages one after another, each stage's stdout
// buffered into the next one's stdin; the status is the last stage's.
func (p *Phone) runPipeline(ctx context.Context, pipe pipeline, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	in := stdin
	status := 0
	for i, cmd := range pipe {
		out := stdout
		var buf *bytes.Buffer
		if i < len(pipe)-1 {
			buf = &bytes.Buffer{}
			out = buf
		}
		var err error
		status, err = p.runSimple(ctx, cmd, in, out, stderr)
		if err != nil {
			return status, err
		}
		if buf != nil {
			in = buf
		}
	}
	return status, nil
}

// fileSink collects output redirected into a device file.
type fileSink struct {
	path   string
	append bool
	buf    bytes.Buffer
}

func (p *Phone) runSimple(ctx context.Context, cmd simpleCmd, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	fds := [3]io.Writer{nil, stdout, stderr}
	var sinks []*fileSink
	for _, r := range cmd.redirs {
		switch r.op {
		case "dup":
			fds[r.fd] = fds[r.dupTo]
		case "<":
			data, err := p.fs.ReadFile(r.target)
			if err != nil {
				fmt.Fprintf(stderr, "/system/bin/sh: can't open %s: No such file or directory\n", r.target)
				return 1, nil
			}
			stdin = bytes.NewReader(data)
		case ">", ">>":
			switch r.target {
			case "/dev/null":
				fds[r.fd] = io.Discard
				continue
			case "/dev/tty", "/dev/stdout":
				fds[r.fd] = stdout
				continue
			case "/dev/stderr":
				fds[r.fd] = stderr
				continue
			}
			sink := &fileSink{path: r.target, append: r.op == ">>"}
			if !sink.append {
				// Truncate now, as the shell does before the command runs.
				if err := p.fs.truncate(r.target); err != nil {
					fmt.Fprintf(stderr, "/system/bin/sh: can't create %s: %s\n", r.target, errText(err))
					return 1, nil
				}
			}
			sinks = append(sinks, sink)
			fds[r.fd] = &sink.buf
		}
	}
	status := 0
	var err error
	if len(cmd.args) > 0 {
		status, err = p.runCommand(ctx, &cmdIO{args: cmd.args, stdin: stdin, stdout: fds[1], stderr: fds[2]})
	}
	for _, s := range sinks {
		if ferr := p.fs.appendFile(s.path, s.buf.Bytes()); ferr != nil {
			fmt.Fprintf(stderr, "/system/bin/sh: can't create %s: %s\n", s.path, errText(ferr))
			if status == 0 {
				status = 1
			}
		}
	}
	return status, err
}

func (p *Phone) runCommand(ctx context.Context, c *cmdIO) (int, error) {
	name := c.args[0]
	switch name {
	case "exit":
		code := 0
		if len(c.args) > 1 {
			n, err := strconv.Atoi(c.args[1])
			if err != nil {
				c.errorf("/system/bin/sh: exit: %s: bad number", c.args[1])
				return 1, nil
			}
			code = n & 0xff
		}
		return code, &exitRequest{code: code}
	case "sh":
		var status int
		var err error
		if script, ok := shScript(c.args[1:]); ok {
			status, err = p.runScript(ctx, script, c.stdin, c.stdout, c.stderr)
		} else {
			script, _ := io.ReadAll(c.stdin)
			status, err = p.runScript(ctx, string(script), strings.NewReader(""), c.stdout, c.stderr)
		}
		// An exit inside `sh -c` ends only that child shell.
		var exit *exitRequest
		if errors.As(err, &exit) {
			return exit.code, nil
		}
		return status, err
	}
	if i := strings.LastIndexByte(name, '/'); i >= 0 && strings.HasPrefix(name, "/system/bin/") {
		name = name[i+1:]
	}
	fn, ok := commands[name]
	if !ok {
		c.errorf("/system/bin/sh: %s: not found", c.args[0])
		return 127, nil
	}
	return fn(ctx, p, c), nil
}

// shScript finds the script of `sh [-flags…] -c SCRIPT`: mksh takes -c
// inside a flag cluster too (-lc, -ec, -xc), so a login shell's `sh -lc`
// runs its script instead of reading one from stdin.
func shScript(args []string) (string, bool) {
	for i, a := range args {
		if len(a) < 2 || a[0] != '-' {
			return "", false
		}
		if strings.ContainsRune(a[1:], 'c') && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

// errText renders a file system error the way toybox does.
func errText(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "No such file or directory"
	case errors.Is(err, fs.ErrExist):
		return "File exists"
	case errors.Is(err, fs.ErrPermission):
		return "Permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg := pe.Err.Error()
		return strings.ToUpper(msg[:1]) + msg[1:]
	}
	return err.Error()
}
