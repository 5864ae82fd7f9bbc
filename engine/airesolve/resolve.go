// Package airesolve asks a model one question about one screen: which
// element a description means (answered with the agent's own tap_element
// action), whether a condition holds, or what a value reads. The model sees
// exactly what the agent loop shows it (the set-of-mark screenshot and the
// numbered element list of engine/prompt), and the chosen element becomes
// an ordinary [Locator] (text / id / desc, with the neighbouring label that
// tells alike rows apart, as learned skills record it) that later runs find
// again without any model call. Playbook AI steps (stdlib/aistep) and skill
// self-repair use it; it knows nothing about files or Lua.
package airesolve

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/prompt"
	"github.com/openpocket/openpocket/engine/screen"
)

// ErrNoElement is wrapped when the model answered without naming an element
// of the list (another tool, no tool call, a mark that is not on screen).
var ErrNoElement = errors.New("the model answered without an element of the list")

// ErrNoVerdict is wrapped when an ai_assert answer says neither PASS nor FAIL.
var ErrNoVerdict = errors.New("the model's answer has no verdict (expected finish with a message starting PASS: or FAIL:)")

// Call is what one model call cost and who answered.
type Call struct {
	Model   string
	Usage   engine.Usage
	Latency int64 // milliseconds
	// Thought is the model's reason, when it gave one.
	Thought string
}

// Resolution is the element a description resolved to.
type Resolution struct {
	Element *screen.UIElement
	Target  *engine.Target
	Locator Locator
	Call
}

// system is the short system prompt of a one-question call: the agent's
// core rules for the one tool offered, then what the question is.
func system(tools []action.Tool, job string) string {
	return prompt.System(prompt.SystemOptions{Mode: prompt.ModeNone, Tools: tools}) + "\n" + job
}

func toolsNamed(names ...string) []action.Tool {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	return action.Tools(func(s action.Spec) bool { return want[s.Name] })
}

// ModelImage is the image the agent loop sends: the set-of-mark screenshot
// when there are marks, else the scaled one, else the raw one.
func ModelImage(s *screen.Snapshot) []byte {
	if len(s.UIElements) > 0 && len(s.SOMScreenshot) > 0 {
		return s.SOMScreenshot
	}
	if len(s.ScaledScreenshot) > 0 {
		return s.ScaledScreenshot
	}
	return s.Screenshot
}

func ask(ctx context.Context, m engine.Model, snap *screen.Snapshot, task, job string, tools []action.Tool) (engine.ModelReply, Call, error) {
	if m == nil {
		return engine.ModelReply{}, Call{}, engine.ErrNoModel
	}
	req := engine.ModelRequest{
		System:   system(tools, job),
		Text:     prompt.Step(prompt.StepOptions{Task: task, Step: 1, MaxSteps: 1, Snapshot: snap}),
		ImagePNG: ModelImage(snap),
		Tools:    tools,
	}
	rep, err := m.Decide(ctx, req)
	_, name := m.Profile()
	call := Call{Model: name, Usage: rep.Usage, Latency: rep.Latency.Milliseconds(), Thought: strings.TrimSpace(rep.Thought)}
	return rep, call, err
}

// Element makes one model call: which element of snap does description
// mean? The answer is the agent's tap_element action; anything else is an
// error wrapping ErrNoElement that says what the model answered.
func Element(ctx context.Context, m engine.Model, snap *screen.Snapshot, description string) (Resolution, error) {
	description = strings.TrimSpace(description)
	if description == "" {
		return Resolution{}, errors.New("empty element description")
	}
	if len(snap.UIElements) == 0 {
		return Resolution{}, fmt.Errorf("%w: the screen has no elements to choose from", ErrNoElement)
	}
	rep, call, err := ask(ctx, m, snap, "Find the element: "+description,
		"## Question\nFind the one element of the element list the task describes and call tap_element with its mark number. Do not tap anything else; if no element fits, answer in text why.\n",
		toolsNamed("tap_element"))
	if err != nil {
		if errors.Is(err, engine.ErrNoAction) {
			return Resolution{Call: call}, fmt.Errorf("%w (%v)", ErrNoElement, err)
		}
		return Resolution{Call: call}, err
	}
	if rep.Action.Type != "tap_element" {
		return Resolution{Call: call}, fmt.Errorf("%w: it answered %s", ErrNoElement, rep.Action)
	}
	id := rep.Action.Str("elementId")
	for i := range snap.UIElements {
		if el := &snap.UIElements[i]; el.ID == id {
			t := engine.TargetOfElement(snap, el)
			loc, ok := LocatorOf(t)
			if !ok {
				return Resolution{Call: call}, fmt.Errorf("%w: element %s has nothing to find it by (no text, id, description or class)", ErrNoElement, id)
			}
			return Resolution{Element: el, Target: t, Locator: loc, Call: call}, nil
		}
	}
	return Resolution{Call: call}, fmt.Errorf("%w: mark %q is not in the element list", ErrNoElement, id)
}

// Verdict is an ai_assert answer.
type Verdict struct {
	Pass   bool
	Reason string
	Call
}

// Judge makes one model call: does condition hold on snap? The model calls
// finish with "PASS: reason" or "FAIL: reason".
func Judge(ctx context.Context, m engine.Model, snap *screen.Snapshot, condition string) (Verdict, error) {
	rep, call, err := ask(ctx, m, snap, "Check whether this holds on the screen: "+condition,
		"## Question\nJudge the condition from the screenshot and the element list only; take no action. Call finish with a message that starts with \"PASS: \" when the condition holds or \"FAIL: \" when it does not, followed by a one-sentence reason.\n",
		toolsNamed("finish"))
	if err != nil {
		return Verdict{Call: call}, err
	}
	msg := strings.TrimSpace(rep.Action.Str("message"))
	if rep.Action.Type != "finish" {
		return Verdict{Call: call}, fmt.Errorf("%w: it answered %s", ErrNoVerdict, rep.Action)
	}
	head, reason, _ := strings.Cut(msg, ":")
	switch strings.ToUpper(strings.TrimSpace(head)) {
	case "PASS", "YES", "TRUE":
		return Verdict{Pass: true, Reason: strings.TrimSpace(reason), Call: call}, nil
	case "FAIL", "NO", "FALSE":
		return Verdict{Pass: false, Reason: strings.TrimSpace(reason), Call: call}, nil
	}
	return Verdict{Call: call}, fmt.Errorf("%w: it said %q", ErrNoVerdict, oneLine(msg))
}

// Extract makes one model call: what value does query ask for on snap? The
// model calls finish with the value alone as its message.
func Extract(ctx context.Context, m engine.Model, snap *screen.Snapshot, query string) (string, Call, error) {
	rep, call, err := ask(ctx, m, snap, "Read from the screen: "+query,
		"## Question\nRead the value the task asks for from the screenshot and the element list; take no action. Call finish with the value alone as its message (no quotes, no explanation).\n",
		toolsNamed("finish"))
	if err != nil {
		return "", call, err
	}
	if rep.Action.Type != "finish" {
		return "", call, fmt.Errorf("the model's answer has no value (expected finish with the value as message): it answered %s", rep.Action)
	}
	return strings.TrimSpace(rep.Action.Str("message")), call, nil
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
