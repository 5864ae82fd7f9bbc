// Package policy holds the rules shared by the script and coding executors
// before and while they run shell code: deny patterns, the per-segment
// command allowlist with a quote-aware segment splitter, environment
// scrubbing, output capping, and process-group handling for bash children.
//
// The checks are a guard rail for model-written shell, not a sandbox: allowed
// commands such as awk, sed, git, python3 or node can still run arbitrary
// code. What the rules guarantee is that the obvious escape hatches (shells,
// command substitution, eval/source, privilege and power commands, network
// fetchers, recursive force deletes) are refused with a reason the model can
// read.
package policy

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Violation is a rejected script or command. Rule is a short stable name of
// the rule broken ("deny:sudo", "allowlist", "max-length", "empty",
// "syntax"); Reason is the sentence shown to the model.
type Violation struct {
	Rule   string
	Reason string
}

func (v *Violation) Error() string { return v.Reason }

// denyRule is one regular-expression deny pattern over the raw script.
type denyRule struct {
	name string
	re   *regexp.Regexp
}

// Deny patterns, checked over the whole raw script text (case-insensitive
// for words). They deliberately also match inside quotes and comments: a
// false refusal is cheap, a false acceptance is not.
var denyRules = []denyRule{
	{"sudo", regexp.MustCompile(`(?i)\bsudo\b`)},
	{"shutdown", regexp.MustCompile(`(?i)\bshutdown\b`)},
	{"reboot", regexp.MustCompile(`(?i)\breboot\b`)},
	{"poweroff", regexp.MustCompile(`(?i)\bpoweroff\b`)},
	{"halt", regexp.MustCompile(`(?i)\bhalt\b`)},
	{"mkfs", regexp.MustCompile(`(?i)\bmkfs\b`)},
	{"dd if=", regexp.MustCompile(`(?i)\bdd\b[^\n;&|]*\bif=`)},
	{"curl", regexp.MustCompile(`(?i)\bcurl\b`)},
	{"wget", regexp.MustCompile(`(?i)\bwget\b`)},
	{"eval", regexp.MustCompile(`(?i)\beval\b`)},
	{"source", regexp.MustCompile(`(?i)\bsource\b`)},
	{"backticks", regexp.MustCompile("`")},
	{"$(", regexp.MustCompile(`\$\(`)},
	{"process substitution", regexp.MustCompile(`[<>]\(`)},
}

// DenyPatterns lists the names of the deny rules, in checking order. Besides
// these, "rm -rf" (recursive plus force in any spelling) and ". file" (the
// source builtin) are checked per segment.
func DenyPatterns() []string {
	names := make([]string, 0, len(denyRules)+2)
	for _, r := range denyRules {
		names = append(names, r.name)
	}
	return append(names, "rm -rf", ". (source)")
}

// NeverImplicit are commands that run other commands (shells and wrappers).
// Allowing any of them would make the allowlist meaningless, so they are
// removed from every allowlist unless the allowlist is "*".
var NeverImplicit = []string{"bash", "sh", "zsh", "dash", "ksh", "fish", "env", "xargs", "exec", "nohup", "timeout", "nice", "command", "builtin", "setsid", "su", "doas"}

// ImplicitBuiltins are bash builtins that cannot run other code and are
// always allowed as command words: cd, exit, true, false, test, [ and :.
var ImplicitBuiltins = []string{"cd", "exit", "true", "false", "test", "[", ":"}

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

// Allows reports whether cmd may be the command word of a segment.
func (a Allowlist) Allows(cmd string) bool {
	return a.all || a.cmds[cmd] || slices.Contains(ImplicitBuiltins, cmd)
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

// Check applies, in order: the length limit (maxChars > 0, counted in
// characters), emptiness, the deny patterns, the segment split, the per
// segment rm -rf and ". file" rules, and the allowlist on every segment's
// command word. It returns nil when the script may run.
func Check(script string, maxChars int, allow Allowlist) *Violation {
	if n := utf8.RuneCountInString(script); maxChars > 0 && n > maxChars {
		return &Violation{"max-length", fmt.Sprintf("script is %d chars, the limit is %d", n, maxChars)}
	}
	if strings.TrimSpace(script) == "" {
		return &Violation{"empty", "script is empty"}
	}
	for _, r := range denyRules {
		if loc := r.re.FindStringIndex(script); loc != nil {
			return &Violation{"deny:" + r.name, fmt.Sprintf("deny pattern %q matched %q on line %d", r.name, script[loc[0]:loc[1]], 1+strings.Count(script[:loc[0]], "\n"))}
		}
	}
	segs, err := Segments(script)
	if err != nil {
		return &Violation{"syntax", err.Error()}
	}
	for _, s := range segs {
		if rmRecursiveForce(s.Words) {
			return &Violation{"deny:rm -rf", fmt.Sprintf("deny pattern \"rm -rf\" matched %q", strings.Join(s.Words, " "))}
		}
		cmd := s.Command()
		if cmd == "" {
			continue
		}
		if cmd == "." {
			return &Violation{"deny:source", fmt.Sprintf("deny pattern \"source\" matched %q", strings.Join(s.Words, " "))}
		}
		if !allow.Allows(cmd) {
			reason := fmt.Sprintf("command %q is not in the allowlist (allowed: %s)", cmd, strings.Join(allow.Commands(), " "))
			if slices.Contains(NeverImplicit, cmd) {
				reason = fmt.Sprintf("command %q runs other commands and is only allowed when the allowlist is \"*\"", cmd)
			}
			return &Violation{"allowlist", reason}
		}
	}
	return nil
}

// rmRecursiveForce reports whether words contain an rm invocation with both
// a recursive (-r, -R, --recursive) and a force (-f, --force) option, in any
// order or grouping (rm -rf, rm -fr, rm -r -f, rm -Rf, rm x --force -r).
// GNU long options may be abbreviated (--rec, --f), so prefixes count too.
func rmRecursiveForce(words []string) bool {
	for i, w := range words {
		if w != "rm" && !strings.HasSuffix(w, "/rm") {
			continue
		}
		var rec, force bool
		for _, o := range words[i+1:] {
			switch {
			case strings.HasPrefix(o, "--") && len(o) > 2:
				rec = rec || strings.HasPrefix("recursive", o[2:])
				force = force || strings.HasPrefix("force", o[2:])
			case strings.HasPrefix(o, "-") && len(o) > 1:
				rec = rec || strings.ContainsAny(o[1:], "rR")
				force = force || strings.Contains(o[1:], "f")
			}
		}
		if rec && force {
			return true
		}
	}
	return false
}
