package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/internal/workspace"
)

// CompletionCmd prints a shell completion script. The scripts are thin:
// they call the hidden `openpocket __complete WORDS…` for candidates, so
// completion always matches the binary's grammar and the live state
// (device serials, playbook files, skill and model names).
//
// They complete the command as invoked: registered for `openpocket` and
// for the name this binary was run by (`bin/openpocket`), and they ask the
// command word on the line for candidates (falling back to this binary's
// path), so `source <(bin/openpocket completion bash)` works without
// openpocket on PATH.
type CompletionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"bash, zsh or fish."`
}

// Run prints the script.
func (c *CompletionCmd) Run(out Streams) error {
	names, exe := completionNames(os.Args[0])
	var script string
	switch c.Shell {
	case "bash":
		script = fmt.Sprintf(bashCompletion, shellQuote(exe), shellWords(names))
	case "zsh":
		script = fmt.Sprintf(zshCompletion, shellQuote(exe), shellWords(names))
	case "fish":
		var reg strings.Builder
		for _, n := range names {
			fmt.Fprintf(&reg, "complete -c %s -f -a '(__openpocket_complete)'\n", shellQuote(n))
		}
		script = fmt.Sprintf(fishCompletion, shellQuote(exe), reg.String())
	}
	_, err := fmt.Fprint(out.Stdout, script)
	return err
}

// completionNames are the command names to register (openpocket, the
// name as invoked and its base name) and this binary's absolute path,
// which the scripts run when the word on the line is not runnable.
func completionNames(invoked string) (names []string, exe string) {
	exe, err := os.Executable()
	if err != nil {
		exe = invoked
	}
	if abs, err := filepath.Abs(exe); err == nil {
		exe = abs
	}
	names = []string{"openpocket"}
	for _, n := range []string{filepath.Base(invoked), invoked} {
		if n != "" && n != "." && !strings.ContainsAny(n, " \t\n") && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names, exe
}

// shellQuote quotes s for bash, zsh and fish alike.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

func shellWords(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}

// The scripts run the command word on the line (a leading ~/ expanded),
// or this binary when that is not runnable.
const bashCompletion = `# bash completion for openpocket: source <(openpocket completion bash)
_openpocket() {
    local IFS=$'\n'
    local cur="${COMP_WORDS[COMP_CWORD]}" cmd="${COMP_WORDS[0]}"
    [[ $cmd == "~/"* ]] && cmd="$HOME/${cmd#"~/"}"
    command -v -- "$cmd" >/dev/null 2>&1 || cmd=%s
    COMPREPLY=($("$cmd" __complete -- "${COMP_WORDS[@]:1:$((COMP_CWORD-1))}" "$cur" 2>/dev/null))
    if [[ ${#COMPREPLY[@]} -eq 1 && "${COMPREPLY[0]}" == */ ]]; then
        compopt -o nospace 2>/dev/null
    fi
}
complete -F _openpocket %s
`

const zshCompletion = `#compdef openpocket
# zsh completion for openpocket: openpocket completion zsh > "${fpath[1]}/_openpocket"
_openpocket() {
    local -a candidates
    local cmd="${words[1]}"
    [[ $cmd == "~/"* ]] && cmd="$HOME/${cmd#"~/"}"
    command -v -- "$cmd" >/dev/null 2>&1 || cmd=%s
    candidates=("${(@f)$("$cmd" __complete -- "${(@)words[2,CURRENT-1]}" "${words[CURRENT]}" 2>/dev/null)}")
    compadd -- "${(@)candidates:#*/}"
    compadd -S '' -- "${(@M)candidates:#*/}"
}
compdef _openpocket %s
`

const fishCompletion = `# fish completion for openpocket: openpocket completion fish > ~/.config/fish/completions/openpocket.fish
function __openpocket_complete
    set -l words (commandline -opc)
    set -l cmd (string replace -r '^~/' "$HOME/" -- $words[1])
    command -q -- $cmd; or set cmd %s
    set -e words[1]
    $cmd __complete -- $words (commandline -ct) 2>/dev/null
end
%s`

// CompleteCmd answers the completion scripts: the words typed so far, the
// last one being completed (possibly empty).
type CompleteCmd struct {
	Words []string `arg:"" optional:"" passthrough:"" help:"Words typed after openpocket; the last one is being completed."`
}

// Run prints one candidate per line.
func (c *CompleteCmd) Run(out Streams, g Globals, k *kong.Context) error {
	words := c.Words
	if len(words) > 0 && words[0] == "--" {
		words = words[1:]
	}
	for _, s := range completeWords(&g, k.Model.Node, words) {
		fmt.Fprintln(out.Stdout, s)
	}
	return nil
}

// completeWords walks the typed words down the command tree and returns
// the candidates for the last one.
func completeWords(g *Globals, root *kong.Node, words []string) []string {
	cur := ""
	if len(words) > 0 {
		cur, words = words[len(words)-1], words[:len(words)-1]
	}
	node := root
	var pendingFlag *kong.Flag
	for _, w := range words {
		if pendingFlag != nil {
			noteGlobal(g, pendingFlag.Name, w)
			pendingFlag = nil
			continue
		}
		if strings.HasPrefix(w, "-") {
			if f := findFlag(node, w); f != nil && !f.IsBool() && !strings.Contains(w, "=") {
				pendingFlag = f
			}
			continue
		}
		if child := findChild(node, w); child != nil {
			node = child
		}
	}
	var out []string
	switch {
	case pendingFlag != nil:
		out = flagValues(g, pendingFlag, cur)
	case strings.HasPrefix(cur, "-"):
		for _, group := range node.AllFlags(true) {
			for _, f := range group {
				out = append(out, "--"+f.Name)
			}
		}
	default:
		for _, ch := range node.Children {
			if !ch.Hidden {
				out = append(out, ch.Name)
			}
		}
		if len(out) == 0 {
			out = argValues(g, node.Path(), cur)
		}
	}
	return withPrefix(out, cur)
}

// noteGlobal applies --home and --adb-server typed on the line, so names
// come from the home the command will use.
func noteGlobal(g *Globals, flag, value string) {
	switch flag {
	case "home":
		g.Home = value
	case "adb-server":
		g.ADBServer = value
	}
}

func findFlag(node *kong.Node, w string) *kong.Flag {
	name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
	for _, group := range node.AllFlags(false) {
		for _, f := range group {
			if f.Name == name || (len(name) == 1 && f.Short == rune(name[0])) {
				return f
			}
		}
	}
	return nil
}

func findChild(node *kong.Node, w string) *kong.Node {
	for _, ch := range node.Children {
		if ch.Type == kong.CommandNode && (ch.Name == w || contains(ch.Aliases, w)) {
			return ch
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// flagValues are the candidates for a flag's value.
func flagValues(g *Globals, f *kong.Flag, cur string) []string {
	switch f.Name {
	case "device":
		return deviceSerials(g)
	case "model":
		return modelNames(g)
	case "home", "output":
		return pathCandidates(cur, func(string) bool { return false })
	}
	if f.Enum != "" {
		return f.EnumSlice()
	}
	return pathCandidates(cur, func(string) bool { return true })
}

// argValues are the candidates for a command's positional argument.
func argValues(g *Globals, command, cur string) []string {
	switch command {
	case "play", "lint", "compile":
		return pathCandidates(cur, hasExt(".yaml", ".yml"))
	case "run":
		return pathCandidates(cur, hasExt(".lua"))
	case "skills show", "skills run":
		return append(skillNames(g), pathCandidates(cur, hasExt(".md", ".lua"))...)
	case "model show", "model set":
		return modelNames(g)
	case "completion":
		return []string{"bash", "zsh", "fish"}
	case "help":
		return []string{"version", "help", "completion", "doctor", "init", "sim", "devices", "snapshot", "act", "play", "compile",
			"lint", "run", "repl", "agent", "model", "script", "memory", "cron", "skills", "sessions", "gateway"}
	case "sessions show":
		return sessionIDs(g)
	}
	return nil
}

func hasExt(exts ...string) func(string) bool {
	return func(name string) bool {
		for _, e := range exts {
			if strings.HasSuffix(name, e) {
				return true
			}
		}
		return false
	}
}

// pathCandidates lists directories (with a trailing /) and the files keep
// accepts in the directory cur points into.
func pathCandidates(cur string, keep func(string) bool) []string {
	dir, base := filepath.Split(cur)
	readDir := dir
	if readDir == "" {
		readDir = "."
	}
	entries, err := os.ReadDir(readDir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		switch {
		case e.IsDir():
			out = append(out, dir+e.Name()+"/")
		case keep(e.Name()):
			out = append(out, dir+e.Name())
		}
	}
	return out
}

func withPrefix(list []string, prefix string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range list {
		if strings.HasPrefix(s, prefix) && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// deviceSerials asks the adb server, briefly; no server means none.
func deviceSerials(g *Globals) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	devs, err := adb.NewClient(g.ADBServer).Devices(ctx)
	if err != nil {
		return nil
	}
	var out []string
	for _, d := range devs {
		out = append(out, d.Serial)
	}
	return out
}

// completionHome is the home's directory without creating it (completion
// must not write anything).
func completionHome(g *Globals) string {
	dir, err := workspace.ResolveHome(g.Home)
	if err != nil {
		return ""
	}
	return dir
}

func modelNames(g *Globals) []string {
	dir := completionHome(g)
	if dir == "" {
		return nil
	}
	cfg, _, err := workspace.LoadConfigWarnings(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil
	}
	return modelProfileNames(cfg)
}

func skillNames(g *Globals) []string {
	dir := completionHome(g)
	l := &skills.Loader{}
	if dir != "" {
		l.HomeDir, l.WorkspaceDir = dir, filepath.Join(dir, "workspace")
	}
	all, _ := l.Load()
	var out []string
	for _, s := range all {
		out = append(out, s.Name)
	}
	return out
}

func sessionIDs(g *Globals) []string {
	dir := completionHome(g)
	if dir == "" {
		return nil
	}
	files, _ := workspace.SessionFiles(filepath.Join(dir, "workspace", "sessions"))
	out := []string{"latest"}
	for _, f := range files {
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "session-"), ".md"))
	}
	return out
}
