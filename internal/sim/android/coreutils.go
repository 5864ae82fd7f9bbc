package android

// The shell's text tools (echo, ls, cat, rm, mkdir, grep, head, tail, wc,
// sleep): what the runtime and scripts pipe device output through.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/openpocket/openpocket/internal/sim/adbd"
)

func cmdEcho(_ context.Context, _ *Phone, c *cmdIO) int {
	args := c.args[1:]
	newline := true
	if len(args) > 0 && args[0] == "-n" {
		newline, args = false, args[1:]
	}
	out := strings.Join(args, " ")
	if newline {
		out += "\n"
	}
	io.WriteString(c.stdout, out)
	return 0
}

func cmdID(_ context.Context, _ *Phone, c *cmdIO) int {
	io.WriteString(c.stdout, "uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats) context=u:r:shell:s0\n")
	return 0
}

func cmdWhoami(_ context.Context, _ *Phone, c *cmdIO) int {
	io.WriteString(c.stdout, "shell\n")
	return 0
}

func cmdPwd(_ context.Context, _ *Phone, c *cmdIO) int {
	io.WriteString(c.stdout, "/\n")
	return 0
}

func cmdSleep(ctx context.Context, _ *Phone, c *cmdIO) int {
	if len(c.args) != 2 {
		c.errorf("usage: sleep DURATION")
		return 1
	}
	secs, err := strconv.ParseFloat(strings.TrimSuffix(c.args[1], "s"), 64)
	if err != nil || secs < 0 {
		c.errorf("sleep: invalid number '%s'", c.args[1])
		return 1
	}
	timer := time.NewTimer(time.Duration(secs * float64(time.Second)))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return 130
	case <-timer.C:
		return 0
	}
}

// splitFlags separates leading single-dash flags ("-rf" → r, f) from operands.
func splitFlags(args []string) (flags string, operands []string) {
	for i, a := range args {
		if a == "--" {
			return flags, append(operands, args[i+1:]...)
		}
		if len(a) > 1 && a[0] == '-' {
			flags += a[1:]
			continue
		}
		operands = append(operands, a)
	}
	return flags, operands
}

func cmdLs(_ context.Context, p *Phone, c *cmdIO) int {
	flags, paths := splitFlags(c.args[1:])
	long := strings.Contains(flags, "l")
	if len(paths) == 0 {
		paths = []string{"/"}
	}
	status := 0
	for i, pth := range paths {
		info, err := p.fs.Stat(pth)
		if err != nil {
			c.errorf("ls: %s: %s", pth, errText(err))
			status = 1
			continue
		}
		entries := []fsLine{{name: pth, info: info}}
		if info.Mode.IsDir() {
			list, _ := p.fs.ReadDir(pth)
			entries = entries[:0]
			for _, e := range list {
				entries = append(entries, fsLine{name: e.Name, info: e})
			}
			if len(paths) > 1 {
				if i > 0 {
					io.WriteString(c.stdout, "\n")
				}
				fmt.Fprintf(c.stdout, "%s:\n", pth)
			}
			if long {
				fmt.Fprintf(c.stdout, "total %d\n", len(entries))
			}
		}
		for _, e := range entries {
			if long {
				fmt.Fprintf(c.stdout, "%s 1 shell shell %8d %s %s\n", modeString(e.info.Mode), e.info.Size,
					e.info.ModTime.UTC().Format("2006-01-02 15:04"), e.name)
			} else {
				fmt.Fprintln(c.stdout, e.name)
			}
		}
	}
	return status
}

type fsLine struct {
	name string
	info adbd.FileInfo
}

func modeString(m fs.FileMode) string {
	s := []byte("-rwxrwxrwx")
	if m.IsDir() {
		s[0] = 'd'
	}
	for i := 0; i < 9; i++ {
		if m&(1<<uint(8-i)) == 0 {
			s[i+1] = '-'
		}
	}
	return string(s)
}

func cmdCat(_ context.Context, p *Phone, c *cmdIO) int {
	_, paths := splitFlags(c.args[1:])
	if len(paths) == 0 {
		io.Copy(c.stdout, c.stdin)
		return 0
	}
	status := 0
	for _, pth := range paths {
		data, err := p.fs.ReadFile(pth)
		if err != nil {
			c.errorf("cat: %s: %s", pth, errText(err))
			status = 1
			continue
		}
		c.stdout.Write(data)
	}
	return status
}

func cmdRm(_ context.Context, p *Phone, c *cmdIO) int {
	flags, paths := splitFlags(c.args[1:])
	force := strings.Contains(flags, "f")
	recursive := strings.ContainsAny(flags, "rR")
	if len(paths) == 0 && !force {
		c.errorf("rm: Need 1 argument")
		return 1
	}
	status := 0
	for _, pth := range paths {
		if err := p.fs.remove(pth, recursive); err != nil {
			if force && isNotExist(err) {
				continue
			}
			c.errorf("rm: %s: %s", pth, errText(err))
			status = 1
		}
	}
	return status
}

func isNotExist(err error) bool { return errText(err) == "No such file or directory" }

func cmdMkdir(_ context.Context, p *Phone, c *cmdIO) int {
	flags, paths := splitFlags(c.args[1:])
	if len(paths) == 0 {
		c.errorf("mkdir: Need 1 argument")
		return 1
	}
	status := 0
	for _, pth := range paths {
		if err := p.fs.mkdir(pth, strings.Contains(flags, "p")); err != nil {
			c.errorf("mkdir: %s: %s", pth, errText(err))
			status = 1
		}
	}
	return status
}

// readLines reads all of stdin (or the named files) as lines.
func readLines(p *Phone, c *cmdIO, files []string) ([]string, bool) {
	var data []byte
	if len(files) == 0 {
		data, _ = io.ReadAll(c.stdin)
	}
	for _, f := range files {
		d, err := p.fs.ReadFile(f)
		if err != nil {
			c.errorf("%s: %s: %s", c.args[0], f, errText(err))
			return nil, false
		}
		data = append(data, d...)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines, true
}

func cmdGrep(_ context.Context, p *Phone, c *cmdIO) int {
	var ignoreCase, invert, count, fixed, onlyMatching bool
	var pattern string
	havePattern := false
	var files []string
	args := c.args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-e" && i+1 < len(args) {
			pattern, havePattern = args[i+1], true
			i++
			continue
		}
		if len(a) > 1 && a[0] == '-' && !havePattern {
			for _, f := range a[1:] {
				switch f {
				case 'i':
					ignoreCase = true
				case 'v':
					invert = true
				case 'c':
					count = true
				case 'F':
					fixed = true
				case 'o':
					onlyMatching = true
				case 'E':
				default:
					c.errorf("grep: Unknown option '%c'", f)
					return 2
				}
			}
			continue
		}
		if !havePattern {
			pattern, havePattern = a, true
		} else {
			files = append(files, a)
		}
	}
	if !havePattern {
		c.errorf("grep: Need 1 argument")
		return 2
	}
	if fixed {
		pattern = regexp.QuoteMeta(pattern)
	}
	if ignoreCase {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		c.errorf("grep: bad regex '%s': %v", pattern, err)
		return 2
	}
	lines, ok := readLines(p, c, files)
	if !ok {
		return 2
	}
	n := 0
	for _, line := range lines {
		if re.MatchString(line) == invert {
			continue
		}
		n++
		switch {
		case count:
		case onlyMatching && !invert:
			for _, m := range re.FindAllString(line, -1) {
				fmt.Fprintln(c.stdout, m)
			}
		default:
			fmt.Fprintln(c.stdout, line)
		}
	}
	if count {
		fmt.Fprintln(c.stdout, n)
	}
	if n == 0 {
		return 1
	}
	return 0
}

// lineCount parses head/tail's "-n N" or "-N".
func lineCount(c *cmdIO) (n int, files []string, ok bool) {
	n = 10
	args := c.args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-n" && i+1 < len(args):
			v, err := strconv.Atoi(args[i+1])
			if err != nil {
				c.errorf("%s: invalid number '%s'", c.args[0], args[i+1])
				return 0, nil, false
			}
			n = v
			i++
		case strings.HasPrefix(a, "-n"):
			v, err := strconv.Atoi(a[2:])
			if err != nil {
				c.errorf("%s: invalid number '%s'", c.args[0], a[2:])
				return 0, nil, false
			}
			n = v
		case len(a) > 1 && a[0] == '-':
			v, err := strconv.Atoi(a[1:])
			if err != nil {
				c.errorf("%s: Unknown option '%s'", c.args[0], a)
				return 0, nil, false
			}
			n = v
		default:
			files = append(files, a)
		}
	}
	return max(n, 0), files, true
}

func cmdHead(_ context.Context, p *Phone, c *cmdIO) int {
	n, files, ok := lineCount(c)
	if !ok {
		return 1
	}
	lines, ok := readLines(p, c, files)
	if !ok {
		return 1
	}
	for _, l := range lines[:min(n, len(lines))] {
		fmt.Fprintln(c.stdout, l)
	}
	return 0
}

func cmdTail(_ context.Context, p *Phone, c *cmdIO) int {
	n, files, ok := lineCount(c)
	if !ok {
		return 1
	}
	lines, ok := readLines(p, c, files)
	if !ok {
		return 1
	}
	for _, l := range lines[max(0, len(lines)-n):] {
		fmt.Fprintln(c.stdout, l)
	}
	return 0
}

func cmdWc(_ context.Context, p *Phone, c *cmdIO) int {
	flags, files := splitFlags(c.args[1:])
	lines, ok := readLines(p, c, files)
	if !ok {
		return 1
	}
	if strings.Contains(flags, "l") {
		fmt.Fprintln(c.stdout, len(lines))
		return 0
	}
	words, chars := 0, 0
	for _, l := range lines {
		words += len(strings.Fields(l))
		chars += len(l) + 1
	}
	fmt.Fprintf(c.stdout, "%d %d %d\n", len(lines), words, chars)
	return 0
}
