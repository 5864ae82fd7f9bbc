package policy

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var scriptDefaults = []string{"adb", "am", "pm", "input", "echo", "pwd", "ls", "cat", "grep", "rg", "sed", "awk"}

func TestDenyPatterns(t *testing.T) {
	allow := NewAllowlist([]string{"*"})
	cases := []struct {
		script, rule string
	}{
		{"sudo ls", "deny:sudo"},
		{"echo hi; SUDO ls", "deny:sudo"},
		{"shutdown -h now", "deny:shutdown"},
		{"reboot", "deny:reboot"},
		{"poweroff", "deny:poweroff"},
		{"halt", "deny:halt"},
		{"mkfs.ext4 /dev/sda1", "deny:mkfs"},
		{"dd if=/dev/zero of=/tmp/x", "deny:dd if="},
		{"dd bs=1 if=/dev/zero", "deny:dd if="},
		{"rm -rf /tmp/x", "deny:rm -rf"},
		{"rm -fr /tmp/x", "deny:rm -rf"},
		{"rm -r -f /tmp/x", "deny:rm -rf"},
		{"rm -Rf x", "deny:rm -rf"},
		{"rm x --force --recursive", "deny:rm -rf"},
		{"/bin/rm -f -R x", "deny:rm -rf"},
		{"rm --rec --f x", "deny:rm -rf"},
		{"echo a && rm -v -rf x", "deny:rm -rf"},
		{"curl http://x", "deny:curl"},
		{"wget http://x", "deny:wget"},
		{"eval ls", "deny:eval"},
		{"source ./env.sh", "deny:source"},
		{". ./env.sh", "deny:source"},
		{"echo a; . env.sh", "deny:source"},
		{"echo `id`", "deny:backticks"},
		{"echo $(id)", "deny:$("},
		{"cat <(ls)", "deny:process substitution"},
	}
	for _, c := range cases {
		t.Run(c.script, func(t *testing.T) {
			v := Check(c.script, 0, allow)
			require.NotNil(t, v, "script %q must be rejected", c.script)
			assert.Equal(t, c.rule, v.Rule, "reason: %s", v.Reason)
		})
	}
}

func TestDenyDoesNotOverreach(t *testing.T) {
	allow := NewAllowlist(scriptDefaults)
	for _, s := range []string{
		"rm -r x",           // recursive without force
		"rm -f x",           // force without recursive
		"ls -rf",            // flags on another command
		"echo ${HOME}",      // parameter expansion is fine
		"ls ./dir",          // ./ is not the source builtin
		"echo sourcecode",   // word boundary
		"echo addd if=1",    // no dd word
		"echo a > out.txt",  // redirection
		"ls 2>&1 | grep x",  // fd duplication stays in the word
		"ls &>/dev/null",    // &> is a redirection, not background
		"grep -c x <<< abc", // here-string
	} {
		if s == "rm -r x" || s == "rm -f x" {
			// rm is not in the script allowlist; check with "*".
			assert.Nil(t, Check(s, 0, NewAllowlist([]string{"*"})), s)
			continue
		}
		assert.Nil(t, Check(s, 0, allow), s)
	}
}

func TestAllowlist(t *testing.T) {
	allow := NewAllowlist(scriptDefaults)
	cases := []struct {
		script string
		ok     bool
		cmd    string // the refused command, when !ok
	}{
		{"ls -la", true, ""},
		{"echo a && ls | grep b", true, ""},
		{"echo a && id | grep b", false, `"id"`},
		{"echo a && ls | whoami", false, `"whoami"`},
		{"echo a || whoami", false, `"whoami"`},
		{"echo a; whoami", false, `"whoami"`},
		{"echo a\nwhoami", false, `"whoami"`},
		{"echo a & whoami", false, `"whoami"`},
		{"echo a |& whoami", false, `"whoami"`},
		{"echo 'a; whoami'", true, ""},
		{`echo "a && whoami | x"`, true, ""},
		{`echo a\; whoami`, true, ""},
		{"echo 'multi\nline; whoami'", true, ""},
		{"FOO=1 BAR='x y' ls", true, ""},
		{"FOO=1 whoami", false, `"whoami"`},
		{"FOO=1", true, ""},
		{"/usr/bin/ls -la", true, ""},
		{"/bin/ls", true, ""},
		{"/usr/bin/whoami", false, `"whoami"`},
		{"'ba'sh -c ls", false, `"bash"`},
		{"bash -c 'ls'", false, `"bash"`},
		{"sh -c ls", false, `"sh"`},
		{"ls | xargs cat", false, `"xargs"`},
		{"echo xargs bash | cat", true, ""}, // only command words count
		{"ls | xargs", false, `"xargs"`},
		{"env ls", false, `"env"`},
		{"nohup ls", false, `"nohup"`},
		{"timeout 5 ls", false, `"timeout"`},
		{"nice ls", false, `"nice"`},
		{"exec ls", false, `"exec"`},
		{"zsh", false, `"zsh"`},
		{"#!/bin/bash\n# list files; whoami\nls # trailing; comment\n", true, ""},
		{"echo $'a\\' ; whoami'", true, ""},
		{"echo $'a\\'' ; whoami", false, `"whoami"`},
		{"cat <<EOF\nit's\nwhoami\nEOF\nls", true, ""},
		{"cat <<'EOF' | grep x\nwhoami; it's\nEOF\nwhoami", false, `"whoami"`},
		{"cat <<-EOF\n\twhoami\n\tEOF\nls", true, ""},
		{"echo a \\\n && whoami", false, `"whoami"`},
		{"(whoami)", false, `"(whoami)"`},
		{"cd /tmp && ls; test -f x || exit 3; true", true, ""},
		{"/usr/bin/cd x", true, ""}, // cd stays harmless with a path
		{"echo 'unterminated", false, ""},
	}
	for _, c := range cases {
		t.Run(c.script, func(t *testing.T) {
			v := Check(c.script, 0, allow)
			if c.ok {
				assert.Nil(t, v, "script %q must pass, got %v", c.script, v)
				return
			}
			require.NotNil(t, v, "script %q must be rejected", c.script)
			if c.cmd != "" {
				assert.Equal(t, "allowlist", v.Rule)
				assert.Contains(t, v.Reason, c.cmd)
			} else {
				assert.Equal(t, "syntax", v.Rule)
			}
		})
	}
}

func TestWrappersOnlyWithStar(t *testing.T) {
	// Listing bash explicitly is not enough: only "*" allows shells.
	v := Check("bash -c ls", 0, NewAllowlist([]string{"ls", "bash"}))
	require.NotNil(t, v)
	assert.Contains(t, v.Reason, `only allowed when the allowlist is "*"`)
	assert.Nil(t, Check("bash -c ls", 0, NewAllowlist([]string{"*"})))
	// Deny patterns still apply under "*".
	assert.NotNil(t, Check("sudo ls", 0, NewAllowlist([]string{"*"})))
}

func TestMaxLengthAndEmpty(t *testing.T) {
	allow := NewAllowlist(scriptDefaults)
	v := Check(strings.Repeat("é", 11), 10, allow)
	require.NotNil(t, v)
	assert.Equal(t, "max-length", v.Rule)
	assert.Equal(t, "script is 11 chars, the limit is 10", v.Reason)
	assert.Nil(t, Check("echo "+strings.Repeat("é", 5), 10, allow))
	v = Check(" \n\t", 10, allow)
	require.NotNil(t, v)
	assert.Equal(t, "empty", v.Rule)
}

func TestSegments(t *testing.T) {
	segs, err := Segments(`A=1 /usr/bin/ls "x y" && echo 'a|b' | grep -c z 2>&1; cat<<E
body; whoami
E
pwd`)
	require.NoError(t, err)
	var got [][]string
	for _, s := range segs {
		got = append(got, s.Words)
	}
	assert.Equal(t, [][]string{
		{"A=1", "/usr/bin/ls", "x y"},
		{"echo", "a|b"},
		{"grep", "-c", "z", "2>&1"},
		{"cat", "<<", "E"},
		{"pwd"},
	}, got)
	assert.Equal(t, "ls", segs[0].Command())
}

func TestScrubEnv(t *testing.T) {
	in := []string{"PATH=/bin", "MY_API_KEY=1", "GITHUB_TOKEN=2", "db_password=3", "SSH_AUTH_SOCK=4",
		"AWS_SECRET_ACCESS_KEY=5", "PASSWD=6", "GOOGLE_CREDENTIALS=7", "HOME=/h", "BASH_ENV=/x", "BASH_FUNC_ls%%=() { id; }", "LANG=C"}
	assert.Equal(t, []string{"PATH=/bin", "HOME=/h", "LANG=C"}, ScrubEnv(in))
}

func TestCap(t *testing.T) {
	assert.Equal(t, "abc", Cap("abc", 3))
	assert.Equal(t, "ab...[truncated]", Cap("abc", 2))
	assert.Equal(t, "éé...[truncated]", Cap("ééé", 2))
	w := NewCapWriter(5)
	for i := 0; i < 100; i++ {
		w.Write([]byte("0123456789"))
	}
	assert.Equal(t, "01234...[truncated]", w.String())
	assert.EqualValues(t, 1000, w.Total())
}

func TestSpawnKillsGroupAndDrains(t *testing.T) {
	var out bytes.Buffer
	// The background sleep keeps the stdout pipe open; Done must not wait for it.
	p, err := Spawn(SpawnOptions{Args: []string{"bash", "--noprofile", "--norc", "-c", "echo hi; sleep 30 & exit 3"}, Stdout: &out})
	require.NoError(t, err)
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("process did not finish: stray child kept it open")
	}
	assert.Equal(t, 3, p.ExitCode())
	assert.Equal(t, "hi\n", out.String())
}
