// Package policy holds the rules shared by the script and coding executors
// for shell code written by a model: the command allowlist, a static check
// over the parsed script (mvdan.cc/sh/v3's bash parser), a shell runner
// whose call and exec hooks check every command actually executed after
// expansion, environment reduction, output capping, and process-group
// handling for confined children.
//
// The allowlist is not the security boundary on its own: every external
// command runs inside the OS sandbox (package sandbox). What the allowlist
// adds is that the model can only start the programs it was given, and
// never one that runs other programs (shells, env, xargs, awk, sed, find
// -exec, setsid, nohup, timeout) unless the allowlist is "*".
package policy

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Violation is a rejected script or command. Rule is a short stable name of
// the rule broken ("allowlist", "non-literal", "deny:rm -rf", "builtin",
// "max-length", "empty", "syntax"); Reason is the sentence shown to the
// model.
type Violation struct {
	Rule   string
	Reason string
}

func (v *Violation) Error() string { return v.Reason }

// orNil keeps a nil *Violation from becoming a non-nil error.
func (v *Violation) orNil() error {
	if v == nil {
		return nil
	}
	return v
}

// NeverImplicit are shells and wrappers whose whole job is to run another
// command. Allowing any of them would make the allowlist meaningless, so
// they are removed from every allowlist unless the allowlist is "*".
var NeverImplicit = []string{
	"bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "busybox", "env", "xargs", "exec", "nohup", "timeout",
	"nice", "ionice", "chroot", "unshare", "nsenter", "setsid", "su", "sudo", "doas", "runuser", "stdbuf",
	"strace", "gdb", "script", "watch", "flock", "parallel", "ssh",
}

// ProgramRunners can run other programs through a feature of their own
// (awk's system(), sed's e command, find -exec, an interpreter). They are in
// no default allowlist; a user who lists one accepts that its programs run
// (still inside the sandbox).
var ProgramRunners = []string{"awk", "gawk", "mawk", "nawk", "sed", "find", "perl", "python", "python3", "ruby", "node", "lua", "tclsh", "expect", "vi", "vim", "less", "more", "man", "git"}

// DeniedBuiltins are shell builtins that run code given as data or replace
// the shell, so they are refused whatever the allowlist says.
var DeniedBuiltins = []string{"eval", "source", ".", "exec", "command", "builtin", "trap", "alias", "unalias", "enable", "coproc", "fg", "bg"}

// SafeBuiltins are shell builtins that cannot run other code; they are
// always allowed.
var SafeBuiltins = []string{
	"cd", "exit", "return", "true", "false", "test", "[", ":", "echo", "printf", "pwd", "shift", "set", "unset",
	"local", "export", "declare", "readonly", "typeset", "read", "wait", "let", "getopts", "shopt", "break",
	"continue", "type", "dirs", "pushd", "popd", "umask", "mapfile", "readarray",
}

// Allowlist is a set of permitted command words.
type Allowlist struct {
	all  bool
	cmds map[string]bool
}

// NewAllowlist builds an allowlist. "*" allows every command; otherwise the
// entries in NeverImplicit are dropped even when listed.
func NewAllowlist(cmds []string) Allowlist {
	a := Allowlist{cmds: map[string]bool{}}
	for _, c := range cmds {
		c = strings.TrimSpace(c)
		switch {
		case c == "*":
			a.all = true
		case c != "" && !slices.Contains(NeverImplicit, c):
			a.cmds[c] = true
		}
	}
	return a
}

// AllowsAll reports whether the allowlist is "*".
func (a Allowlist) AllowsAll() bool { return a.all }

// Allows reports whether cmd may be run as a command: a safe builtin or an
// allowed program name. Denied builtins are allowed only by "*" (which
// trusts the script entirely; the sandbox still holds).
func (a Allowlist) Allows(cmd string) bool {
	if a.all {
		return true
	}
	return !slices.Contains(DeniedBuiltins, cmd) && (a.cmds[cmd] || slices.Contains(SafeBuiltins, cmd))
}

// AllowsProgram reports whether cmd may be started as an external program.
func (a Allowlist) AllowsProgram(cmd string) bool {
	return a.all || a.cmds[cmd]
}

// checkProgram is the last check before a program starts: functions and
// builtins never get here, so only allowlisted bare names pass.
func (a Allowlist) checkProgram(name string, line uint) *Violation {
	if !a.AllowsProgram(name) || strings.Contains(name, "/") {
		return a.refusal(name, line)
	}
	return nil
}

// Commands returns the allowed command words, sorted ("*" when all).
func (a Allowlist) Commands() []string {
	if a.all {
		return []string{"*"}
	}
	out := make([]string, 0, len(a.cmds))
	for c := range a.cmds {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// refusal is the Violation for a command the allowlist does not hold.
func (a Allowlist) refusal(cmd string, line uint) *Violation {
	where := ""
	if line > 0 {
		where = fmt.Sprintf(" (line %d)", line)
	}
	switch {
	case slices.Contains(DeniedBuiltins, cmd):
		return &Violation{"builtin", fmt.Sprintf("%q%s runs code given as data and is never allowed", cmd, where)}
	case strings.Contains(cmd, "/"):
		return &Violation{"allowlist", fmt.Sprintf("command %q%s: name programs without a directory; only allowed commands found on the sandbox's PATH run", cmd, where)}
	case slices.Contains(NeverImplicit, cmd):
		return &Violation{"allowlist", fmt.Sprintf("command %q%s runs other programs and is only allowed when the allowlist is \"*\"", cmd, where)}
	case slices.Contains(ProgramRunners, cmd):
		return &Violation{"allowlist", fmt.Sprintf("command %q%s can run other programs and is not in the allowlist", cmd, where)}
	}
	return &Violation{"allowlist", fmt.Sprintf("command %q%s is not in the allowlist (allowed: %s)", cmd, where, strings.Join(a.Commands(), " "))}
}

// CheckCall checks one command as it is about to run, after expansion:
// args[0] must be allowed, and rm must not be both recursive and forced.
func (a Allowlist) CheckCall(args []string, line uint) *Violation {
	if len(args) == 0 {
		return nil
	}
	if !a.Allows(args[0]) {
		return a.refusal(args[0], line)
	}
	if v := checkArgs(args, line); v != nil && !a.all {
		return v
	}
	if rmRecursiveForce(args) {
		return &Violation{"deny:rm -rf", fmt.Sprintf("deny pattern \"rm -rf\" matched %q", strings.Join(args, " "))}
	}
	return nil
}

// checkLength applies the length limit (maxChars > 0, in characters) and
// refuses an empty script.
func checkLength(script string, maxChars int) *Violation {
	if n := utf8.RuneCountInString(script); maxChars > 0 && n > maxChars {
		return &Violation{"max-length", fmt.Sprintf("script is %d chars, the limit is %d", n, maxChars)}
	}
	if strings.TrimSpace(script) == "" {
		return &Violation{"empty", "script is empty"}
	}
	return nil
}

// rmRecursiveForce reports whether words are an rm invocation with both a
// recursive (-r, -R, --recursive) and a force (-f, --force) option, in any
// order or grouping. GNU long options may be abbreviated (--rec, --f).
func rmRecursiveForce(words []string) bool {
	if len(words) == 0 || (words[0] != "rm" && !strings.HasSuffix(words[0], "/rm")) {
		return false
	}
	var rec, force bool
	for _, o := range words[1:] {
		switch {
		case o == "--":
			return rec && force
		case strings.HasPrefix(o, "--") && len(o) > 2:
			rec = rec || strings.HasPrefix("recursive", o[2:])
			force = force || strings.HasPrefix("force", o[2:])
		case strings.HasPrefix(o, "-") && len(o) > 1:
			rec = rec || strings.ContainsAny(o[1:], "rR")
			force = force || strings.Contains(o[1:], "f")
		}
	}
	return rec && force
}
