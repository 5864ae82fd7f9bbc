package policy

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var scriptDefaults = []string{"adb", "echo", "pwd", "ls", "cat", "grep", "rg", "head", "sleep"}

func TestCheckRefuses(t *testing.T) {
	allow := NewAllowlist(scriptDefaults)
	cases := []struct{ script, rule, reason string }{
		{"sudo ls", "allowlist", `command "sudo" (line 1) runs other programs`},
		{"echo a\nwhoami", "allowlist", `command "whoami" (line 2) is not in the allowlist (allowed: adb cat echo grep head ls pwd rg sleep)`},
		{"echo $(id)", "allowlist", `command "id" (line 1)`},
		{"echo `id`", "allowlist", `command "id" (line 1)`},
		{"cat <(id)", "allowlist", `command "id" (line 1)`},
		{"$X", "non-literal", `command name "$X" (line 1) is not a plain word`},
		{"'ls'", "non-literal", `command name "'ls'"`},
		{`l\s`, "non-literal", `command name "l\\s"`},
		{"l*", "non-literal", `command name "l*"`},
		{"eval ls", "builtin", `"eval" (line 1) runs code given as data`},
		{". ./x", "builtin", `"." (line 1)`},
		{"exec ls", "builtin", `"exec"`},
		{"command ls", "builtin", `"command"`},
		{"trap 'id' EXIT", "builtin", `"trap"`},
		{"/bin/ls", "allowlist", `name programs without a directory`},
		{"echo 'x", "syntax", "shell syntax error"},
		{" \n ", "empty", "script is empty"},
	}
	for _, c := range cases {
		v := Check(c.script, 0, allow)
		require.NotNil(t, v, "script %q must be rejected", c.script)
		assert.Equal(t, c.rule, v.Rule, "%q: %s", c.script, v.Reason)
		assert.Contains(t, v.Reason, c.reason, c.script)
	}
	v := Check("echo 12345", 5, allow)
	require.NotNil(t, v)
	assert.Equal(t, "script is 10 chars, the limit is 5", v.Reason)
}

func TestCheckAccepts(t *testing.T) {
	allow := NewAllowlist(scriptDefaults)
	for _, s := range []string{
		"ls -la | grep foo && echo ok || echo no",
		"for f in *.txt; do cat \"$f\"; done",
		"x=$(ls); echo \"$x\"",
		"f() { ls; }; f",
		"if [ -f x ]; then echo y; fi",
		"cat <<EOF\n$(echo hi)\nEOF",
		"adb shell input tap 1 2",
		"# comment with sudo and `id`\nls",
	} {
		assert.Nil(t, Check(s, 0, allow), s)
	}
}

func TestWrappersOnlyWithStar(t *testing.T) {
	for _, w := range []string{"bash", "env", "xargs", "setsid", "nohup", "timeout"} {
		a := NewAllowlist([]string{w, "ls"})
		assert.False(t, a.Allows(w), w)
		assert.True(t, NewAllowlist([]string{"*"}).Allows(w), w)
	}
	assert.False(t, NewAllowlist([]string{"ls", "eval"}).Allows("eval"), "denied builtins are only allowed by *")
	v := NewAllowlist(scriptDefaults).CheckCall([]string{"awk", "BEGIN{system(\"id\")}"}, 3)
	require.NotNil(t, v)
	assert.Equal(t, `command "awk" (line 3) can run other programs and is not in the allowlist`, v.Reason)
}

func TestRmRecursiveForce(t *testing.T) {
	allow := NewAllowlist([]string{"rm"})
	for _, args := range [][]string{{"rm", "-rf", "x"}, {"rm", "-r", "-f", "x"}, {"rm", "x", "--force", "--rec"}, {"rm", "-Rf"}} {
		v := allow.CheckCall(args, 1)
		require.NotNil(t, v, args)
		assert.Equal(t, "deny:rm -rf", v.Rule)
	}
	assert.Nil(t, allow.CheckCall([]string{"rm", "-r", "x"}, 1))
	assert.Nil(t, allow.CheckCall([]string{"rm", "--", "-rf"}, 1))
}

func TestSpawnKillsGroupAndDrains(t *testing.T) {
	var out bytes.Buffer
	p, err := Spawn(SpawnOptions{Args: []string{"sh", "-c", "sleep 30 & echo started; wait"}, Stdout: &out})
	require.NoError(t, err)
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	p.Kill()
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Equal(t, 137, p.ExitCode())
	assert.True(t, strings.HasPrefix(out.String(), "started"))
}

// FuzzCheck: the parser, the static check and the run-time hooks never
// panic, and a script that passes the check starts no program outside the
// allowlist however it expands (the allowlist here holds only builtins, so
// any program reaching the exec hook is a failure; none is started).
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"echo hi", "bash${IFS}-c${IFS}id${IFS}/ls", "echo $'\\x00'; id", "y='$(id)'; echo ${y@P}",
		"echo $[1<<2] <<EOF\nx\nEOF\nid", "f() { id; }; f", "a=ec; b=ho; $a$b x", "echo `id`",
		"x=(id); ${x[0]}", "cat <<'E'\n$(id)\nE", "for c in id; do $c; done", "echo {id,x}",
	} {
		f.Add(s)
	}
	allow := NewAllowlist([]string{"echo", "printf", "true"})
	f.Fuzz(func(t *testing.T, script string) {
		if len(script) > 2000 {
			return
		}
		v := Check(script, 0, allow)
		if v != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		var ran []string
		err := runBuiltinsOnly(ctx, script, allow, func(args []string) { ran = append(ran, args[0]) })
		for _, name := range ran {
			if !allow.AllowsProgram(name) {
				t.Fatalf("script %q passed the check and reached program %q (err %v)", script, name, err)
			}
		}
	})
}
