package skills_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/openpocket/openpocket/internal/llm/llmtest"
)

// screenModel is a scripted model behind the fake OpenAI server that reacts
// to the screen like a real one: it reads the step message it is sent (the
// current app, the numbered element list, the screenshot size) and picks
// the next action from it — tap_element by the label it sees, never a
// fixed coordinate or mark number.
type screenModel struct {
	mu     sync.Mutex
	policy policy
	memo   map[string]bool
	calls  int
}

// policy decides one action from what the model sees; memo is its memory
// of the run (what it already did), like the history a real model reads.
type policy func(v view, memo map[string]bool) (tool string, args map[string]any)

// view is the screen as the step message describes it.
type view struct {
	App      string
	W, H     int
	Elements []mark
}

// mark is one line of the element list.
type mark struct {
	ID, Label, Class string
	Clickable        bool
	X, Y             int // centre, in screenshot pixels
}

func (m *screenModel) use(p policy) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.policy = p
	m.memo = map[string]bool{}
}

func (m *screenModel) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}

// reply answers one model request.
func (m *screenModel) reply(req llmtest.Request) llmtest.Reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	v, err := parseView(req.Body)
	if err != nil || m.policy == nil {
		return llmtest.Reply{Text: fmt.Sprintf("cannot read the screen: %v", err)}
	}
	tool, args := m.policy(v, m.memo)
	b, _ := json.Marshal(args)
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: tool, Arguments: string(b)}}}
}

var (
	markLine   = regexp.MustCompile(`(?m)^mark (\d+): label="((?:[^"\\]|\\.)*)" clickable=(true|false) class=(\S+) center=\((\d+),(\d+)\)`)
	screenLine = regexp.MustCompile(`Screen: current app (\S+), screenshot (\d+)x(\d+) px`)
)

// parseView finds the step message in a chat or responses request body
// (the last text holding an element list or screen line) and reads it.
func parseView(body map[string]any) (view, error) {
	var texts []string
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			for _, k := range []string{"messages", "input", "content", "text"} {
				if v, ok := t[k]; ok {
					walk(v)
				}
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		case string:
			if strings.Contains(t, "Screen: current app") {
				texts = append(texts, t)
			}
		}
	}
	walk(body)
	if len(texts) == 0 {
		return view{}, fmt.Errorf("no step message in the request")
	}
	msg := texts[len(texts)-1]
	var v view
	if m := screenLine.FindStringSubmatch(msg); m != nil {
		v.App = m[1]
		v.W, _ = strconv.Atoi(m[2])
		v.H, _ = strconv.Atoi(m[3])
	}
	for _, m := range markLine.FindAllStringSubmatch(msg, -1) {
		label, err := strconv.Unquote(`"` + m[2] + `"`)
		if err != nil {
			label = m[2]
		}
		x, _ := strconv.Atoi(m[5])
		y, _ := strconv.Atoi(m[6])
		v.Elements = append(v.Elements, mark{ID: m[1], Label: label, Class: m[4], Clickable: m[3] == "true", X: x, Y: y})
	}
	return v, nil
}

// find returns the first element whose label matches one of the labels
// (case-insensitive, exact or "#id" form), preferring class when given.
func (v view) find(class string, labels ...string) *mark {
	var fallback *mark
	for i := range v.Elements {
		e := &v.Elements[i]
		for _, l := range labels {
			if strings.EqualFold(e.Label, l) || strings.EqualFold(strings.TrimPrefix(e.Label, "#"), l) {
				if class == "" || e.Class == class {
					return e
				}
				if fallback == nil {
					fallback = e
				}
			}
		}
	}
	return fallback
}

// beside returns the element of class nearest to the element labelled
// label (the switch on a row whose title is label), as a person reads a
// list of same-looking toggles.
func (v view) beside(class, label string) *mark {
	title := v.find("", label)
	if title == nil {
		return nil
	}
	var best *mark
	bestD := 1 << 30
	for i := range v.Elements {
		e := &v.Elements[i]
		if e.Class != class {
			continue
		}
		dx, dy := e.X-title.X, e.Y-title.Y
		if d := dx*dx + 4*dy*dy; d < bestD {
			best, bestD = e, d
		}
	}
	return best
}

func tapElement(e *mark) (string, map[string]any) {
	return "tap_element", map[string]any{"elementId": e.ID}
}

func launchApp(pkg string) (string, map[string]any) {
	return "launch_app", map[string]any{"packageName": pkg}
}

func finishWith(msg string) (string, map[string]any) {
	return "finish", map[string]any{"message": msg}
}

func waitABit() (string, map[string]any) {
	return "wait", map[string]any{"durationMs": 300}
}
