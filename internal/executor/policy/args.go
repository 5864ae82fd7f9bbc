package policy

import (
	"fmt"
	"slices"
	"strings"
)

// Options of allowed programs that run another program. The allowlist
// promises that an allowed command runs no program the script did not
// name, so these are refused after expansion, on the exact argument the
// program receives. Long options are matched the way GNU getopt_long
// reads them: any prefix of at least two letters, ambiguous or not
// ("--comp" is --compress-program), with or without "=value"; arguments
// after "--" are operands. Programs whose program-running features cannot
// be told from their arguments (awk, git, perl, less, man: see
// ProgramRunners) are in no default allowlist.
var programFlags = map[string]struct {
	long  []string // GNU long options ("--compress-program")
	exact []string // options matched whole (find's -exec, rg's --pre)
	short string   // short option letters, refused anywhere in a cluster
}{
	"sort":  {long: []string{"--compress-program"}},
	"rg":    {exact: []string{"--pre"}},
	"find":  {exact: []string{"-exec", "-execdir", "-ok", "-okdir"}},
	"split": {long: []string{"--filter"}},
	"tar": {long: []string{"--to-command", "--use-compress-program", "--checkpoint-action", "--info-script", "--new-volume-script", "--rsh-command", "--rmt-command"},
		short: "IF"},
	"zip":   {long: []string{"--unzip-command"}, exact: []string{"-TT"}},
	"rsync": {long: []string{"--rsh", "--rsync-path"}, short: "e"},
}

// sandboxedTools take GNU's --sandbox option, which disables their
// program-running commands (sed's e, awk's system() and pipes) and file
// writes: the option is added to every call. mawk does not know it and
// refuses to run, which is the safe outcome.
var sandboxedTools = []string{"sed", "awk", "gawk"}

// checkArgs refuses a call to an allowed program with an option that runs
// another program.
func checkArgs(args []string, line uint) *Violation {
	rule, ok := programFlags[args[0]]
	if !ok {
		return nil
	}
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if bad := flagMatch(a, rule.long, rule.exact, rule.short); bad != "" {
			return &Violation{"deny:" + args[0] + " " + bad, fmt.Sprintf("%s (line %d): option %q runs another program and is never allowed", args[0], line, a)}
		}
	}
	return nil
}

// flagMatch returns the refused option a names, or "".
func flagMatch(a string, long, exact []string, short string) string {
	if opt, _, _ := strings.Cut(a, "="); slices.Contains(exact, opt) {
		return opt
	}
	if name, ok := strings.CutPrefix(a, "--"); ok && len(name) >= 2 {
		name, _, _ = strings.Cut(name, "=")
		for _, l := range long {
			if strings.HasPrefix(l[2:], name) {
				return l
			}
		}
		return ""
	}
	if cluster, ok := strings.CutPrefix(a, "-"); ok && short != "" && strings.ContainsAny(cluster, short) {
		return "-" + string(cluster[strings.IndexAny(cluster, short)])
	}
	return ""
}

// sandboxArgs adds --sandbox to a sed or awk call.
func sandboxArgs(args []string) []string {
	if !slices.Contains(sandboxedTools, args[0]) {
		return args
	}
	return append([]string{args[0], "--sandbox"}, args[1:]...)
}
