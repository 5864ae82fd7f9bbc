package android

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// result is one Shell run.
type result struct {
	code           int
	stdout, stderr string
}

func run(t testing.TB, p *Phone, cmdline string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := p.Shell(context.Background(), cmdline, nil, &out, &errOut)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// mustRun runs cmdline and fails the test unless it exits 0.
func mustRun(t testing.TB, p *Phone, cmdline string) string {
	t.Helper()
	r := run(t, p, cmdline)
	require.Equalf(t, 0, r.code, "%q failed: stdout=%q stderr=%q", cmdline, r.stdout, r.stderr)
	return r.stdout
}

// xmlNode mirrors one <node> of a uiautomator dump.
type xmlNode struct {
	Text       string    `xml:"text,attr"`
	ResourceID string    `xml:"resource-id,attr"`
	Class      string    `xml:"class,attr"`
	Package    string    `xml:"package,attr"`
	Desc       string    `xml:"content-desc,attr"`
	Checked    string    `xml:"checked,attr"`
	Clickable  string    `xml:"clickable,attr"`
	Enabled    string    `xml:"enabled,attr"`
	Focused    string    `xml:"focused,attr"`
	Scrollable string    `xml:"scrollable,attr"`
	Password   string    `xml:"password,attr"`
	Hint       string    `xml:"hint,attr"`
	Bounds     string    `xml:"bounds,attr"`
	Children   []xmlNode `xml:"node"`
}

type hierarchy struct {
	Rotation string    `xml:"rotation,attr"`
	Roots    []xmlNode `xml:"node"`
}

// dump runs `uiautomator dump /dev/tty` and parses the XML the way a client
// would: everything up to the closing </hierarchy>.
func dump(t testing.TB, p *Phone) hierarchy {
	t.Helper()
	out := mustRun(t, p, "uiautomator dump /dev/tty")
	end := strings.Index(out, "</hierarchy>")
	require.GreaterOrEqual(t, end, 0, "no hierarchy in %q", out)
	require.True(t, strings.HasSuffix(out, "UI hierchary dumped to: /dev/tty\n"))
	var h hierarchy
	require.NoError(t, xml.Unmarshal([]byte(out[:end+len("</hierarchy>")]), &h))
	return h
}

func (h hierarchy) all() []xmlNode {
	var out []xmlNode
	var walk func(n xmlNode)
	walk = func(n xmlNode) {
		out = append(out, n)
		for _, c := range n.Children {
			walk(c)
		}
	}
	for _, r := range h.Roots {
		walk(r)
	}
	return out
}

// find returns the first node matching pred, failing the test if none does.
func (h hierarchy) find(t testing.TB, what string, pred func(xmlNode) bool) xmlNode {
	t.Helper()
	for _, n := range h.all() {
		if pred(n) {
			return n
		}
	}
	t.Fatalf("no node %s in dump", what)
	return xmlNode{}
}

func (h hierarchy) has(pred func(xmlNode) bool) bool {
	for _, n := range h.all() {
		if pred(n) {
			return true
		}
	}
	return false
}

func byID(id string) func(xmlNode) bool     { return func(n xmlNode) bool { return n.ResourceID == id } }
func byText(text string) func(xmlNode) bool { return func(n xmlNode) bool { return n.Text == text } }
func byDesc(desc string) func(xmlNode) bool { return func(n xmlNode) bool { return n.Desc == desc } }

var boundsRE = regexp.MustCompile(`^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$`)

func parseBounds(t testing.TB, s string) [4]int {
	t.Helper()
	m := boundsRE.FindStringSubmatch(s)
	require.NotNil(t, m, "bad bounds %q", s)
	var b [4]int
	for i := range b {
		b[i], _ = strconv.Atoi(m[i+1])
	}
	return b
}

func center(t testing.TB, n xmlNode) (int, int) {
	b := parseBounds(t, n.Bounds)
	return (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
}

// tapNode taps the centre of the first node matching pred in a fresh dump.
func tapNode(t testing.TB, p *Phone, what string, pred func(xmlNode) bool) {
	t.Helper()
	x, y := center(t, dump(t, p).find(t, what, pred))
	mustRun(t, p, fmt.Sprintf("input tap %d %d", x, y))
}

func launch(t testing.TB, p *Phone, pkg string) {
	t.Helper()
	out := mustRun(t, p, "monkey -p "+pkg+" -c android.intent.category.LAUNCHER 1")
	require.Contains(t, out, "Events injected: 1")
}
