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
// The most specific prefix wins. The rules are read from the table in
// docs/architecture.md (table_test.go), so the two cannot drift.
type rule struct {
	prefix string
	own    []string
	libs   []string
}

// The table, loaded once: frontEnds never import each other (nor does
// anything but the composition root import them); leaves are utilities
// with no dependencies of their own, usable by adapters.
var rules, frontEnds, leaves, tableErr = loadTable("../../docs/architecture.md")

// debt lists wrong-way imports tolerated for a while, each with a "Known
// debt" section in docs/architecture.md naming the import and its fix. The
// test fails when one disappears too, so the list only shrinks. It is
// empty.
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
			// A front end's subpackage is part of it: it may import the
			// front end it sits under (the dashboard's backend its ports).
			return !anyUnder(own, frontEnds) || pkg == "cmd/openpocket" || under(own, r.prefix) || under(pkg, own)
		}
		return anyUnder(own, leaves) && !anyUnder(pkg, []string{"engine", "lua", "stdlib", "playbooks"})
	}
	return anyUnder(imp, r.libs)
}

func TestImportTable(t *testing.T) {
	if tableErr != nil {
		t.Fatal(tableErr)
	}
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
	if tableErr != nil {
		t.Fatal(tableErr)
	}
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
		{"internal/dashboard/backend", module + "internal/dashboard", true},
		{"internal/dashboard/backend", module + "internal/relay", false},
		{"internal/dashboard/backend", module + "internal/cli", false},
		{"internal/dashboard", module + "internal/run", false},
		{"internal/cli", module + "internal/dashboard/backend", false},
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
