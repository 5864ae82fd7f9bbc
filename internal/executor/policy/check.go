package policy

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Parse parses script as bash. A syntax error is a Violation naming the
// line and column.
func Parse(script, name string) (*syntax.File, *Violation) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), name)
	if err != nil {
		return nil, &Violation{"syntax", "shell syntax error: " + err.Error()}
	}
	return f, nil
}

// Check is the static check before a script runs: the length limit, the
// bash parse, and for every simple command anywhere in the script
// (functions, subshells, command substitutions included) a literal command
// name that the allowlist holds or a function the script declares. It
// returns nil when the script may start; the runner checks every command
// again after expansion.
func Check(script string, maxChars int, allow Allowlist) *Violation {
	if v := checkLength(script, maxChars); v != nil {
		return v
	}
	f, v := Parse(script, "script.sh")
	if v != nil {
		return v
	}
	return checkFile(f, allow)
}

func checkFile(f *syntax.File, allow Allowlist) *Violation {
	funcs := declaredFuncs(f)
	var found *Violation
	syntax.Walk(f, func(n syntax.Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				return true
			}
			name, ok := literal(n.Args[0])
			if !ok {
				found = &Violation{"non-literal", fmt.Sprintf("command name %q (line %d) is not a plain word: the command to run must be written literally, not built from variables, expansions or quotes", wordText(n.Args[0]), n.Pos().Line())}
				return false
			}
			if funcs[name] && !slices.Contains(DeniedBuiltins, name) {
				return true
			}
			if !allow.Allows(name) {
				found = allow.refusal(name, n.Pos().Line())
				return false
			}
		case *syntax.CoprocClause:
			found = &Violation{"builtin", fmt.Sprintf("coproc (line %d) is not supported", n.Pos().Line())}
			return false
		}
		return true
	})
	return found
}

// declaredFuncs is the set of function names the script declares.
func declaredFuncs(f *syntax.File) map[string]bool {
	out := map[string]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			out[fd.Name.Value] = true
		}
		return true
	})
	return out
}

// literal returns the word's value when it is one unquoted literal without
// escapes, expansions or globs.
func literal(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	if ok && lit.Value == "[" {
		return "[", true
	}
	if !ok || lit.Value == "" || strings.ContainsAny(lit.Value, "\\*?[]{}~") {
		return "", false
	}
	return lit.Value, true
}

func wordText(w *syntax.Word) string {
	var b strings.Builder
	syntax.NewPrinter().Print(&b, w)
	s := b.String()
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}
