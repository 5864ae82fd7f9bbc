package prompt

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/screen"
)

func TestSystemPromptSections(t *testing.T) {
	tools := []action.Tool{{Name: "tap_element", Description: "Tap a numbered element.\nMore."}, {Name: "finish", Description: "End the task."},
		{Name: "read", Description: "Read a file."}, {Name: "request_human_auth", Description: "Ask the human."}, {Name: "memory_search", Description: "Search memory."}}
	ctx := []ContextFile{{Name: "USER.md", Content: "Name: Ada"}, {Name: "EMPTY.md", Content: "  "}}
	skills := []Skill{{Name: "wifi-toggle", Description: "Turn Wi-Fi\n off", Location: "/w/skills/wifi.md"}}
	full := System(SystemOptions{Mode: ModeFull, Tools: tools, Skills: skills, Context: ctx})
	for _, want := range []string{"- tap_element: Tap a numbered element.\n", "state_delta changed=<bool>", "## Human authorization", "## Completion",
		"## Memory", "- wifi-toggle: Turn Wi-Fi off (location: /w/skills/wifi.md)", "### USER.md\nName: Ada"} {
		assert.Contains(t, full, want)
	}
	assert.NotContains(t, full, "EMPTY.md", "empty context files are skipped")
	assert.NotContains(t, full, "More.", "only the first line of a tool doc")

	// Upstream's minimal mode keeps the workspace context, the skills and
	// the human-auth rules; only the memory protocol goes.
	minimal := System(SystemOptions{Mode: ModeMinimal, Tools: tools, Skills: skills, Context: ctx})
	for _, want := range []string{"## Tools", "## Human authorization", "## Completion", "## Skills", "### USER.md\nName: Ada"} {
		assert.Contains(t, minimal, want)
	}
	assert.NotContains(t, minimal, "## Memory")

	// Upstream's none mode still sends a short core of rules, never nothing.
	none := System(SystemOptions{Mode: ModeNone, Tools: tools, Skills: skills, Context: ctx})
	assert.Contains(t, none, "Call exactly one tool per step")
	assert.Contains(t, none, "request_human_auth")
	assert.Contains(t, none, "call finish")
	assert.NotContains(t, none, "USER.md")
	assert.Less(t, len(none), 800)
}

// The prompt follows the filtered tool catalog: no rule names a tool the
// run does not offer (codingTools.enabled=false drops read; a run without
// a human-auth relay or memory tools drops their sections).
func TestSystemPromptFollowsTheToolCatalog(t *testing.T) {
	tools := []action.Tool{{Name: "tap", Description: "Tap."}, {Name: "finish", Description: "End."}}
	skills := []Skill{{Name: "wifi-toggle", Description: "Turn Wi-Fi off", Location: "/w/skills/wifi.md"}}
	for _, mode := range []string{ModeFull, ModeMinimal, ModeNone} {
		p := System(SystemOptions{Mode: mode, Tools: tools, Skills: skills})
		for _, absent := range []string{"read tool", "tap_element", "request_human_auth", "memory_search", "memory_get", "exec", "apply_patch"} {
			assert.NotContains(t, p, absent, "%s mode without %s", mode, absent)
		}
	}
}

// A secure screen with no readable elements: the screenshot shows nothing,
// so the prompt must not tell the model both to rely on the element list
// and to use coordinates on the screenshot.
func TestSecureScreenWithoutElementsIsTruthful(t *testing.T) {
	s := &screen.Snapshot{CurrentApp: "com.bank", SecureSurface: true, ScaledWidth: 360, ScaledHeight: 780}
	msg := Step(StepOptions{Task: "check balance", Step: 2, Snapshot: s})
	assert.Contains(t, msg, "this screen cannot be seen")
	assert.NotContains(t, msg, "rely on the element list")
	assert.NotContains(t, msg, "use coordinates on the screenshot")

	s.UIElements = []screen.UIElement{{ID: "1", Text: "Balance", Clickable: true}}
	msg = Step(StepOptions{Task: "check balance", Step: 2, Snapshot: s})
	assert.Contains(t, msg, "rely on the element list", "with elements the list is what is true")
	assert.NotContains(t, msg, "cannot be seen")
}

func TestContextBudgets(t *testing.T) {
	big := strings.Repeat("x", 30000)
	out := ContextBlock([]ContextFile{{Name: "A.md", Content: big}}, 20000, 150000)
	assert.Contains(t, out, "…[truncated]")
	assert.Less(t, len(out), 20100)
	out = ContextBlock([]ContextFile{{Name: "A.md", Content: big}, {Name: "B.md", Content: big}}, 20000, 25000)
	assert.Contains(t, out, "[context budget reached]")
	assert.LessOrEqual(t, len(out), 25000+40)
	assert.NotContains(t, out, "### B.md\n"+strings.Repeat("x", 20000))
}

func TestStepMessage(t *testing.T) {
	snap := &screen.Snapshot{CurrentApp: "com.android.settings", ScaledWidth: 768, ScaledHeight: 1707,
		InstalledPackages: []string{"com.b", "com.a"},
		UIElements: []screen.UIElement{{ID: "1", Text: "Wi-Fi", ClassName: "android.widget.LinearLayout", Clickable: true,
			ScaledCenter: screen.Point{X: 384, Y: 300}, ScaledBounds: screen.Rect{Left: 0, Top: 260, Right: 768, Bottom: 340}},
			{ID: "2", ResourceID: "com.x:id/save", ClassName: "android.widget.ImageButton"}}}
	hist := make([]HistoryEntry, 10)
	for i := range hist {
		hist[i] = HistoryEntry{Step: i + 1, App: "com.x", Action: "tap(1,2)", Result: "Tapped\nstate_delta changed=false app=a->a"}
	}
	msg := Step(StepOptions{Task: "turn off wifi", Step: 11, MaxSteps: 100, Snapshot: snap, History: hist, Problems: []string{"no tool call"}})
	assert.Contains(t, msg, "Task: turn off wifi\nStep: 11 of at most 100\n")
	assert.Contains(t, msg, "current app com.android.settings, screenshot 768x1707 px")
	assert.Contains(t, msg, "Installed apps: com.a, com.b")
	assert.Contains(t, msg, `mark 1: label="Wi-Fi" clickable=true class=LinearLayout center=(384,300) bounds=[0,260][768,340]`)
	assert.Contains(t, msg, `mark 2: label="#save"`)
	assert.NotContains(t, msg, "step 2: ", "only the last 8 history lines")
	assert.Contains(t, msg, "step 3: app=com.x action=tap(1,2) result=Tapped state_delta changed=false app=a->a")
	assert.Contains(t, msg, "Stuck signal: the same action tap(1,2) was repeated 3 times.")
	assert.Contains(t, msg, "Stuck signal: the last 3 actions changed nothing on screen.")
	assert.Contains(t, msg, "previous reply had problems: no tool call")

	calm := Step(StepOptions{Task: "t", Step: 1, History: hist[:2]})
	assert.NotContains(t, calm, "Stuck signal")
}

func TestStepMessageWindowsFlagsAndNotes(t *testing.T) {
	snap := &screen.Snapshot{ScaledWidth: 768, ScaledHeight: 1707,
		UIElements: []screen.UIElement{
			{ID: "1", Text: "To", ClassName: "android.widget.EditText", Clickable: true, Focused: true},
			{ID: "2", Text: "Discard", ClassName: "android.widget.Button", Clickable: true, Window: "dialog"},
			{ID: "3", ContentDesc: "Back", ClassName: "android.widget.ImageView", Clickable: true, Window: "system"}},
		UINotes: []string{screen.KeyboardNote, "+3 more rows in list inbox; scroll to see"}}
	msg := Step(StepOptions{Task: "write to Ada", Step: 1, Snapshot: snap})
	assert.Contains(t, msg, "coordinates in screenshot pixels):\n"+
		`mark 1: label="To" clickable=true class=EditText center=(0,0) bounds=[0,0][0,0] focused`+"\n"+
		"[dialog]\n"+`mark 2: label="Discard"`)
	assert.Contains(t, msg, "[system bars]\n"+`mark 3: label="Back"`)
	assert.Contains(t, msg, "\n"+screen.KeyboardNote+"\n+3 more rows in list inbox; scroll to see\n")

	// Notes are said even when no element is listed.
	empty := Step(StepOptions{Task: "t", Step: 1, Snapshot: &screen.Snapshot{UINotes: []string{screen.KeyboardNote}}})
	assert.Contains(t, empty, "Elements: none detected; use coordinates on the screenshot.\n"+screen.KeyboardNote+"\n")

	sys := System(SystemOptions{Mode: ModeMinimal})
	assert.Contains(t, sys, "focused, password, checked/unchecked, selected, scrollable, empty")
}

func TestContextBudgetCutsOnRuneBoundary(t *testing.T) {
	// 3-byte runes: a byte-offset cut would almost surely split one.
	wide := strings.Repeat("€", 5000)
	for budget := 1000; budget < 1003; budget++ {
		out := ContextBlock([]ContextFile{{Name: "A.md", Content: wide}}, 20000, budget)
		assert.Contains(t, out, "[context budget reached]")
		assert.True(t, utf8.ValidString(out), "budget %d: output is not valid UTF-8", budget)
	}
}
