package android

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestShellSyntax(t *testing.T) {
	cases := []struct {
		cmd    string
		code   int
		stdout string
		stderr string
	}{
		{cmd: "nosuchcmd --flag", code: 127, stderr: "/system/bin/sh: nosuchcmd: not found\n"},
		{cmd: "echo 'a  b' \"c\\\"d\" e\\ f", stdout: "a  b c\"d e f\n"},
		{cmd: "echo a; echo b", stdout: "a\nb\n"},
		{cmd: "false && echo no || echo yes", stdout: "yes\n"},
		{cmd: "true || echo no; echo after", stdout: "after\n"},
		{cmd: "echo out >&2", stderr: "out\n"},
		{cmd: "cat /nope 2>/dev/null", code: 1},
		{cmd: "cat /nope 2>&1", code: 1, stdout: "cat: /nope: No such file or directory\n"},
		{cmd: "echo quiet > /dev/null", code: 0},
		{cmd: "exit 3; echo unreachable", code: 3},
		{cmd: "sh -c 'exit 4'; echo still", stdout: "still\n"},
		{cmd: "sh -c 'exit 4'", code: 4},
		{cmd: "printf-like", code: 127, stderr: "/system/bin/sh: printf-like: not found\n"},
		{cmd: "echo a\necho b # comment", stdout: "a\nb\n"},
		{cmd: "echo 'unterminated", code: 1, stderr: "/system/bin/sh: syntax error: unterminated quoted string\n"},
		{cmd: "&& echo x", code: 1, stderr: "/system/bin/sh: syntax error: '&&' unexpected\n"},
		{cmd: "echo x |", code: 1, stderr: "/system/bin/sh: syntax error: unexpected end of file\n"},
		{cmd: "printf", code: 127, stderr: "/system/bin/sh: printf: not found\n"},
		{cmd: "echo -n x", stdout: "x"},
		{cmd: "/system/bin/echo full path", stdout: "full path\n"},
		{cmd: "printf 2>/dev/null", code: 127},
		{cmd: "id", stdout: "uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats) context=u:r:shell:s0\n"},
		{cmd: "whoami", stdout: "shell\n"},
		{cmd: "getprop ro.build.version.sdk", stdout: "34\n"},
		{cmd: "getprop no.such.prop", stdout: "\n"},
		{cmd: "getprop | grep -c '^\\[sys.boot_completed\\]: \\[1\\]$'", stdout: "1\n"},
		{cmd: "pm list packages | grep -c package:", stdout: "15\n"},
		{cmd: "pm list packages -3", stdout: "package:com.openpocket.chat\npackage:com.openpocket.contacts\npackage:com.openpocket.login\npackage:com.openpocket.notes\npackage:com.openpocket.shop\npackage:com.openpocket.tasks\npackage:com.openpocket.wallet\n"},
		{cmd: "pm list packages notes", stdout: "package:com.openpocket.notes\n"},
		{cmd: "cmd package resolve-activity --brief com.openpocket.login", stdout: resolvePriorityLine + "\ncom.openpocket.login/.LoginActivity\n"},
		{cmd: "cmd package resolve-activity --brief com.nope", stdout: "No activity found\n"},
		{cmd: "echo one two three | wc -l", stdout: "1\n"},
		{cmd: "getprop | head -n 2 | tail -n 1", stdout: "[init.svc.bootanim]: [stopped]\n"},
		{cmd: "getprop | head -1", stdout: "[dev.bootcomplete]: [1]\n"},
		{cmd: "echo abc | grep -v abc", code: 1},
		{cmd: "echo ABC | grep -i abc", stdout: "ABC\n"},
		{cmd: "input", code: 1},
		{cmd: "input tap 1", code: 1},
		{cmd: "input tap x y", code: 1, stderr: "Error: invalid coordinate \"x\"\n"},
		{cmd: "input keyevent KEYCODE_NOPE", code: 1, stderr: "Error: Unknown keycode \"KEYCODE_NOPE\"\n"},
		{cmd: "wm size", stdout: "Physical size: 1080x2400\n"},
		{cmd: "wm density", stdout: "Physical density: 420\n"},
		{cmd: "dumpsys nosuch", stderr: "Can't find service: nosuch\n"},
		{cmd: "cmd nosuch", code: 20, stderr: "cmd: Can't find service: nosuch\n"},
	}
	for _, tc := range cases {
		t.Run(tc.cmd, func(t *testing.T) {
			p := New(Options{})
			r := run(t, p, tc.cmd)
			assert.Equal(t, tc.code, r.code, "exit code (stderr %q)", r.stderr)
			assert.Equal(t, tc.stdout, r.stdout)
			if tc.stderr != "" || tc.code == 0 {
				assert.Equal(t, tc.stderr, r.stderr)
			}
		})
	}
}

func TestRedirectsWriteDeviceFiles(t *testing.T) {
	p := New(Options{})
	mustRun(t, p, "echo first > /sdcard/log.txt && echo second >> /sdcard/log.txt")
	data, err := p.Files().ReadFile("/sdcard/log.txt")
	require.NoError(t, err)
	assert.Equal(t, "first\nsecond\n", string(data))
	assert.Equal(t, "first\nsecond\n", mustRun(t, p, "cat /sdcard/log.txt"))
	assert.Equal(t, "second\n", mustRun(t, p, "grep sec < /sdcard/log.txt"))

	mustRun(t, p, "nosuch 2> /sdcard/err.txt || true")
	data, err = p.Files().ReadFile("/sdcard/err.txt")
	require.NoError(t, err)
	assert.Equal(t, "/system/bin/sh: nosuch: not found\n", string(data))

	r := run(t, p, "echo x > /no/such/dir/file")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "can't create /no/such/dir/file")
}

func TestFileCommands(t *testing.T) {
	p := New(Options{})
	assert.Equal(t, "DCIM\nDownload\nPictures\n", mustRun(t, p, "ls /sdcard"))
	mustRun(t, p, "mkdir -p /sdcard/a/b && echo hi > /sdcard/a/b/c.txt")
	assert.Contains(t, mustRun(t, p, "ls -l /sdcard/a/b"), "-rw-rw---- 1 shell shell        3 2024-01-01 12:00 c.txt")
	r := run(t, p, "mkdir /sdcard/a")
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "mkdir: /sdcard/a: File exists\n", r.stderr)
	r = run(t, p, "rm /sdcard/a")
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "rm: /sdcard/a: Is a directory\n", r.stderr)
	mustRun(t, p, "rm -r /sdcard/a")
	_, err := p.Files().Stat("/sdcard/a/b/c.txt")
	assert.ErrorIs(t, err, fsErrNotExist)
	mustRun(t, p, "rm -f /sdcard/never-existed")
	r = run(t, p, "ls /nope")
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "ls: /nope: No such file or directory\n", r.stderr)
	assert.Contains(t, mustRun(t, p, "ls /system/bin"), "screencap\n")
}

func TestSleepHonoursCancellation(t *testing.T) {
	p := New(Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- p.Shell(ctx, "sleep 600; echo never", nil, io.Discard, io.Discard) }()
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, 130, code)
	case <-time.After(30 * time.Second):
		t.Fatal("sleep ignored context cancellation")
	}
	assert.Equal(t, 0, run(t, p, "sleep 0.01").code)
	assert.Equal(t, 1, run(t, p, "sleep abc").code)
}

func TestGetpropListsSortedProperties(t *testing.T) {
	p := New(Options{Serial: "SER123", Model: "My Phone"})
	out := mustRun(t, p, "getprop")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Greater(t, len(lines), 10)
	for i := 1; i < len(lines); i++ {
		assert.Less(t, lines[i-1], lines[i])
	}
	assert.Contains(t, lines, "[ro.serialno]: [SER123]")
	assert.Contains(t, lines, "[ro.product.model]: [My Phone]")
	assert.Contains(t, lines, "[ro.build.version.release]: [14]")
}
