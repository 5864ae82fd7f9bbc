package archtest

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

var backticked = regexp.MustCompile("`([^`]+)`")

// loadTable reads the import table of docs/architecture.md: the rows
// after the header "| path | one responsibility | may import …".
// Column one names the packages (`x/...` covers x and everything under
// it); column three the module packages they may import, backticked,
// before "·" and the library modules after it; "anything" allows all.
// Packages of one row may import each other.
func loadTable(path string) (rules []rule, frontEnds, leaves []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(text, "| path | one responsibility | may import"):
			in = true
			continue
		case !in || strings.HasPrefix(text, "|---"):
			continue
		case !strings.HasPrefix(text, "|"):
			if len(rules) > 0 {
				return rules, frontEnds, leaves, nil
			}
			continue
		}
		cells := strings.Split(strings.Trim(text, "|"), " | ")
		if len(cells) != 3 {
			return nil, nil, nil, fmt.Errorf("%s:%d: want 3 cells (path | responsibility | may import), got %d", path, line, len(cells))
		}
		pkgs := packages(cells[0])
		if len(pkgs) == 0 {
			return nil, nil, nil, fmt.Errorf("%s:%d: no backticked package in the first cell", path, line)
		}
		own, libs := imports(cells[2])
		own = append(own, pkgs...)
		for _, p := range pkgs {
			rules = append(rules, rule{prefix: p, own: own, libs: libs})
		}
		resp := strings.TrimSpace(cells[1])
		switch {
		case strings.HasPrefix(resp, "front end:"):
			frontEnds = append(frontEnds, pkgs...)
		case strings.HasPrefix(resp, "leaf utilit"):
			leaves = append(leaves, pkgs...)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, nil, err
	}
	if len(rules) == 0 {
		return nil, nil, nil, fmt.Errorf("%s: no import table found", path)
	}
	return rules, frontEnds, leaves, nil
}

func packages(cell string) []string {
	var out []string
	for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
		out = append(out, strings.TrimSuffix(m[1], "/..."))
	}
	return out
}

// imports splits the third cell into module packages and library modules.
func imports(cell string) (own, libs []string) {
	if strings.TrimSpace(cell) == "anything" {
		return []string{""}, nil
	}
	mods, libText, _ := strings.Cut(cell, "·")
	own = packages(mods)
	for _, m := range backticked.FindAllStringSubmatch(libText, -1) {
		libs = append(libs, m[1])
	}
	if own == nil {
		own = []string{}
	}
	return own, libs
}

func TestTableErrorsNameTheLine(t *testing.T) {
	dir := t.TempDir()
	bad := dir + "/architecture.md"
	doc := "# x\n\n| path | one responsibility | may import (module packages · libraries) |\n|---|---|---|\n| `engine` | ports | `engine/...` |\n| `lua` | two cells only |\n"
	if err := os.WriteFile(bad, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := loadTable(bad); err == nil || !strings.Contains(err.Error(), "architecture.md:6: want 3 cells") {
		t.Fatalf("want the bad row's line, got %v", err)
	}
	good := doc[:strings.Index(doc, "| `lua`")] + "| `internal/cli` | front end: commands | `engine/...` · `github.com/alecthomas/kong` |\n\nAfter the table.\n"
	if err := os.WriteFile(bad, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	rules, fronts, _, err := loadTable(bad)
	if err != nil || len(rules) != 2 || len(fronts) != 1 || rules[1].libs[0] != "github.com/alecthomas/kong" {
		t.Fatalf("rules %+v, front ends %v, err %v", rules, fronts, err)
	}
}
