package archtest

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/openpocket/openpocket/"

// rule says what the packages under prefix may import: packages of this
// module (by prefix, "" meaning any) and third-party modules (by prefix).
// The most specific prefix wins. Keep in step with docs/architecture.md.
type rule struct {
	prefix string
	own    []string
	libs   []string
}

// frontEnds never import each other (nor does anything but the composition
// root import them). internal/wire is the composition root's own assembly
// of adapters: only cmd/openpocket imports it, like a front end.
var frontEnds = []string{"internal/cli", "internal/gateway", "internal/mcp", "internal/relay", "internal/dashboard", "internal/channel", "internal/wire"}

// leaf utilities with no dependencies of their own, usable by adapters.
var leaves = []string{"internal/atomicfile", "internal/lease", "internal/termmode", "internal/control"}

var rules = []rule{
	{prefix: "cmd/openpocket", own: []string{""}},
	{prefix: "engine/action"},
	{prefix: "engine/screen"},
	{prefix: "engine/textpos"},
	{prefix: "engine", own: []string{"engine"}},
	{prefix: "lua", own: []string{"lua", "engine"}, libs: []string{"github.com/yuin/gopher-lua"}},
	{prefix: "lua/luasrc"},
	{prefix: "stdlib", own: []string{"stdlib", "lua", "engine"}},
	{prefix: "playbooks", own: []string{"engine/action", "engine/textpos", "lua/luasrc"}, libs: []string{"go.yaml.in/yaml/v3"}},
	{prefix: "internal/adb", own: []string{"engine"}, libs: []string{"github.com/zach-klippenstein/goadb"}},
	{prefix: "internal/sim", own: []string{"internal/sim"}, libs: []string{"golang.org/x/image"}},
	// The emulator manager: the SDK's binaries, and the adb server to see
	// the emulator boot.
	{prefix: "internal/emulator", own: []string{"internal/adb", "engine"}},
	// Test support: stand-in SDK binaries serving the virtual phone.
	{prefix: "internal/emulator/emulatortest", own: []string{"internal/sim"}},
	{prefix: "internal/llm", own: []string{"engine"}, libs: []string{"github.com/openai/openai-go/v3"}},
	{prefix: "internal/executor", own: []string{"engine", "internal/executor", "internal/sandbox"}, libs: []string{"mvdan.cc/sh/v3"}},
	// The executor set builds the executors and adapts them to the engine's
	// ports (the action map, engine/tools); the Lua side binds those ports.
	{prefix: "internal/executor/execset", own: []string{"engine", "internal/executor", "internal/sandbox"}},
	{prefix: "internal/sandbox", libs: []string{"github.com/landlock-lsm/go-landlock", "golang.org/x/sys"}},
	{prefix: "internal/workspace", own: []string{"engine"}},
	{prefix: "internal/cron", own: []string{"engine"}, libs: []string{"github.com/go-co-op/gocron/v2", "github.com/jonboulle/clockwork"}},
	{prefix: "internal/skills", own: []string{"engine", "lua/luasrc"}},
	{prefix: "internal/convert", own: []string{"playbooks", "engine/action", "internal/atomicfile"}, libs: []string{"go.yaml.in/yaml/v3"}},
	{prefix: "internal/atomicfile"},
	{prefix: "internal/lease", libs: []string{"golang.org/x/sys"}},
	{prefix: "internal/termmode", libs: []string{"golang.org/x/sys"}},
	// The gateway's control socket (run-now from the CLI and dashboards).
	{prefix: "internal/control", libs: []string{"golang.org/x/sys"}},
	{prefix: "internal/archtest"},
	// The dashboards see the install only through their Manager/Agent ports.
	{prefix: "internal/dashboard"},
	// Chat channels run phone work through channel.Runner (engine and
	// stdlib/agent types only: the human-auth callback).
	{prefix: "internal/channel", own: []string{"engine", "stdlib/agent"}, libs: []string{"github.com/go-telegram/bot"}},
	// The run service: the one run lifecycle (run output directories come
	// from the workspace's helpers).
	{prefix: "internal/run", own: []string{"engine", "lua", "stdlib", "playbooks", "internal/skills", "internal/workspace"}},
	{prefix: "docs"},
	{prefix: "internal/mcp", own: []string{"engine", "docs"}, libs: []string{"github.com/modelcontextprotocol/go-sdk"}},
	{prefix: "internal/humanauth", own: []string{"stdlib/agent", "internal/atomicfile"}},
	{prefix: "internal/relay", own: []string{"internal/humanauth"}},
	{prefix: "internal/browsertest", libs: []string{"github.com/chromedp/chromedp"}},
	// The gateway runs scheduled jobs on the run service over ports the
	// composition root binds (service factory, human auth, keep-awake,
	// chat channels).
	{prefix: "internal/gateway", own: []string{"internal/run", "engine", "internal/cron", "internal/workspace"}, libs: []string{"github.com/jonboulle/clockwork"}},
	// The composition root's assembly of adapters behind the run service
	// (model clients, executor sets, run.Config → *run.Service), handed to
	// the CLI as its Assembly interface.
	{prefix: "internal/wire", own: []string{"internal/run", "engine", "internal/llm", "internal/executor", "internal/sandbox", "internal/workspace", "internal/skills", "stdlib/executors"}},
	// The CLI is still the application layer (issue 17 moves runs into a run
	// service); until then it may import everything but other front ends.
	{prefix: "internal/cli", own: []string{"internal/run", "engine", "lua", "stdlib", "playbooks", "internal/adb", "internal/emulator", "internal/sim", "internal/llm", "internal/executor", "internal/sandbox", "internal/workspace", "internal/cron", "internal/skills", "internal/humanauth", "internal/convert"},
		libs: []string{"github.com/alecthomas/kong", "github.com/ergochat/readline", "github.com/jonboulle/clockwork"}},
}

// debt lists the wrong-way imports that exist today, each to be removed by
// issue 17 (thin bindings, skills without Lua). The test fails when one
// disappears too, so the list only shrinks. It is empty now; an entry
// added here needs a "Known debt" section in docs/architecture.md naming
// the import and its fix.
var debt = map[string][]string{}

func ruleFor(pkg string) (rule, bool) {
	best, found := rule{}, false
	for _, r := range rules {
		if under(pkg, r.prefix) && len(r.prefix) >= len(best.prefix) {
			best, found = r, true
		}
	}
	return best, found
}

func under(pkg, prefix string) bool {
	return prefix == "" || pkg == prefix || strings.HasPrefix(pkg, prefix+"/")
}

func anyUnder(pkg string, prefixes []string) bool {
	for _, p := range prefixes {
		if under(pkg, p) {
			return true
		}
	}
	return false
}

func isStd(imp string) bool { return !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") }

// allowed reports whether pkg may import imp under the table.
func allowed(pkg, imp string, r rule) bool {
	if isStd(imp) {
		return true
	}
	if own, ok := strings.CutPrefix(imp, module); ok {
		if under(own, r.prefix) && r.prefix != "" || anyUnder(own, r.own) {
			return !anyUnder(own, frontEnds) || pkg == "cmd/openpocket" || under(own, r.prefix)
		}
		return anyUnder(own, leaves) && !anyUnder(pkg, []string{"engine", "lua", "stdlib", "playbooks"})
	}
	return anyUnder(imp, r.libs)
}

func TestImportTable(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seenDebt := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		r, ok := ruleFor(pkg)
		if !ok {
			t.Errorf("%s has no row in the import table: add it to docs/architecture.md and to rules here", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			if allowed(pkg, imp, r) {
				continue
			}
			short := strings.TrimPrefix(imp, module)
			if contains(debt[pkg], short) {
				seenDebt[pkg+" -> "+short] = true
				continue
			}
			t.Errorf("%s imports %s: not allowed by docs/architecture.md (row %q)", pkg, imp, r.prefix)
		}
	}
	var gone []string
	for pkg, imps := range debt {
		for _, imp := range imps {
			if !seenDebt[pkg+" -> "+imp] {
				gone = append(gone, pkg+" -> "+imp)
			}
		}
	}
	sort.Strings(gone)
	for _, g := range gone {
		t.Errorf("known debt %s no longer exists: remove it from the debt list", g)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestTableCatchesWrongWayImports(t *testing.T) {
	cases := []struct {
		pkg, imp string
		want     bool
	}{
		{"engine/device", module + "engine/screen", true},
		{"engine/device", module + "lua", false},
		{"engine", "github.com/yuin/gopher-lua", false},
		{"stdlib", module + "internal/adb", false},
		{"stdlib/executors", module + "internal/executor/coding", false},
		{"stdlib/executors", module + "engine/tools", true},
		{"internal/executor/execset", module + "engine/tools", true},
		{"internal/executor/execset", module + "stdlib/executors", false},
		{"internal/executor/execset", module + "lua", false},
		{"playbooks", module + "stdlib", false},
		{"internal/adb", module + "internal/atomicfile", true},
		{"internal/cli", module + "internal/gateway", false},
		{"internal/mcp", module + "internal/cli", false},
		{"cmd/openpocket", module + "internal/cli", true},
		{"cmd/openpocket", module + "internal/wire", true},
		{"internal/cli", module + "internal/wire", false},
		{"internal/gateway", module + "internal/wire", false},
		{"internal/wire", module + "internal/cli", false},
		{"internal/wire", module + "internal/llm", true},
		{"internal/llm", "github.com/openai/openai-go/v3/option", true},
		{"internal/llm", "github.com/zach-klippenstein/goadb", false},
	}
	for _, c := range cases {
		r, ok := ruleFor(c.pkg)
		if !ok {
			r = rule{}
		}
		if got := allowed(c.pkg, c.imp, r); got != c.want {
			t.Errorf("allowed(%s, %s) = %v, want %v", c.pkg, c.imp, got, c.want)
		}
	}
}
