package airesolve_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/airesolve"
	"github.com/openpocket/openpocket/engine/screen"
)

// row is one settings row: a title and the list's shared switch id, as
// Android's preference lists dump them (every toggle is
// android:id/switch_widget; only the title tells them apart).
func row(i int, title string, on bool) string {
	top := 240 + i*200
	return fmt.Sprintf(`<node index="%d" text="" resource-id="" class="android.widget.LinearLayout" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,%d][1080,%d]">
  <node index="0" text="%s" resource-id="android:id/title" class="android.widget.TextView" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[42,%d][800,%d]" />
  <node index="1" text="" resource-id="android:id/switch_widget" class="android.widget.Switch" package="com.android.settings" content-desc="" checkable="true" checked="%t" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[900,%d][1038,%d]" />
</node>`, i, top, top+200, title, top+40, top+160, on, top+60, top+140)
}

func snapshot(t *testing.T, titles ...string) *screen.Snapshot {
	t.Helper()
	b, err := os.ReadFile("testdata/toggles.xml")
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for i, title := range titles {
		rows = append(rows, row(i, title, i%2 == 0))
	}
	root, err := screen.ParseHierarchy([]byte(strings.Replace(string(b), "ROWS", strings.Join(rows, "\n"), 1)))
	if err != nil {
		t.Fatal(err)
	}
	sel := screen.Select(root, screen.ElementOptions{Width: 1080, Height: 2400, ScaleX: 1, ScaleY: 1})
	return &screen.Snapshot{CurrentApp: "com.android.settings", Width: 1080, Height: 2400, ScaledWidth: 1080, ScaledHeight: 2400,
		ScaleX: 1, ScaleY: 1, Tree: root, UIElements: sel.Elements}
}

// model answers each Decide with the next reply and keeps the requests.
type model struct {
	replies []engine.ModelReply
	errs    []error
	reqs    []engine.ModelRequest
}

func (m *model) Decide(_ context.Context, req engine.ModelRequest) (engine.ModelReply, error) {
	m.reqs = append(m.reqs, req)
	i := len(m.reqs) - 1
	var err error
	if i < len(m.errs) {
		err = m.errs[i]
	}
	return m.replies[i], err
}

func (m *model) Profile() (string, string) { return "test", "gpt-test" }

func tool(t *testing.T, name string, params map[string]any) engine.ModelReply {
	t.Helper()
	a, err := action.New(name, params)
	if err != nil {
		t.Fatal(err)
	}
	return engine.ModelReply{Action: a}
}

func markOf(t *testing.T, s *screen.Snapshot, near string) string {
	t.Helper()
	for _, e := range s.UIElements {
		if strings.HasSuffix(e.ClassName, "Switch") && e.Node != nil && engine.NearLabel(e.Node) == near {
			return e.ID
		}
	}
	t.Fatalf("no switch beside %q", near)
	return ""
}

// The chosen element of alike rows becomes a locator with the label
// beside it; after the rows are reordered it still finds that row's
// switch, and a screen without the label finds nothing.
func TestElementLocatesAlikeRowsByTheirLabel(t *testing.T) {
	s := snapshot(t, "Wi-Fi", "Bluetooth", "Airplane mode")
	m := &model{replies: []engine.ModelReply{tool(t, "tap_element", map[string]any{"elementId": markOf(t, s, "Bluetooth")})}}
	res, err := airesolve.Element(context.Background(), m, s, "the Bluetooth switch")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.reqs) != 1 || len(m.reqs[0].Tools) != 1 || m.reqs[0].Tools[0].Name != "tap_element" {
		t.Fatalf("one call offering tap_element only, got %+v", m.reqs)
	}
	if !strings.Contains(m.reqs[0].Text, "Find the element: the Bluetooth switch") || !strings.Contains(m.reqs[0].Text, "mark ") {
		t.Fatalf("the agent's step message with the element list, got %q", m.reqs[0].Text)
	}
	l := res.Locator
	if l.ID != "android:id/switch_widget" || l.Near != "Bluetooth" || res.Model != "gpt-test" {
		t.Fatalf("locator %+v (model %q)", l, res.Model)
	}
	moved := snapshot(t, "Airplane mode", "Wi-Fi", "Bluetooth")
	n := l.Find(moved.Tree)
	if n == nil || engine.NearLabel(n) != "Bluetooth" {
		t.Fatalf("after reordering found %+v", n)
	}
	if n := l.Find(snapshot(t, "Wi-Fi", "Airplane mode").Tree); n != nil {
		t.Fatalf("without its label the locator must find nothing among alike rows, found %+v", n)
	}
	if airesolve.Fingerprint(s.Tree) == airesolve.Fingerprint(moved.Tree) {
		t.Fatal("another screen state has another fingerprint")
	}
	if airesolve.Fingerprint(s.Tree) != airesolve.Fingerprint(snapshot(t, "Wi-Fi", "Bluetooth", "Airplane mode").Tree) {
		t.Fatal("the same screen has the same fingerprint")
	}
}

// A model that answers without an element of the list is an error that
// says so, never a guess.
func TestElementRefusesAnswersWithoutAnElement(t *testing.T) {
	s := snapshot(t, "Wi-Fi")
	for name, rep := range map[string]struct {
		reply engine.ModelReply
		err   error
	}{
		"another tool":  {reply: tool(t, "finish", map[string]any{"message": "done"})},
		"unknown mark":  {reply: tool(t, "tap_element", map[string]any{"elementId": "99"})},
		"no tool call":  {reply: engine.ModelReply{Raw: "I see no such thing"}, err: fmt.Errorf("decide: %w", engine.ErrNoAction)},
		"point, no id":  {reply: tool(t, "tap", map[string]any{"x": 10, "y": 10})},
		"empty request": {},
	} {
		m := &model{replies: []engine.ModelReply{rep.reply}, errs: []error{rep.err}}
		desc := "the Wi-Fi switch"
		if name == "empty request" {
			desc = "  "
		}
		_, err := airesolve.Element(context.Background(), m, s, desc)
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		if name != "empty request" && !errors.Is(err, airesolve.ErrNoElement) {
			t.Fatalf("%s: %v does not wrap ErrNoElement", name, err)
		}
	}
}

// ai_assert's verdict is PASS or FAIL with a reason; anything else is an
// error naming what the model said.
func TestJudgeVerdicts(t *testing.T) {
	s := snapshot(t, "Wi-Fi")
	for msg, want := range map[string]string{"PASS: it is on": "pass it is on", "FAIL: it is off": "fail it is off", "maybe": "error"} {
		m := &model{replies: []engine.ModelReply{tool(t, "finish", map[string]any{"message": msg})}}
		v, err := airesolve.Judge(context.Background(), m, s, "Wi-Fi is on")
		got := "error"
		if err == nil {
			got = map[bool]string{true: "pass", false: "fail"}[v.Pass] + " " + v.Reason
		} else if !errors.Is(err, airesolve.ErrNoVerdict) || !strings.Contains(err.Error(), "maybe") {
			t.Fatalf("%q: %v", msg, err)
		}
		if got != want {
			t.Fatalf("%q: got %q, want %q", msg, got, want)
		}
	}
}
