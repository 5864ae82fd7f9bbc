// Package prompt builds what the agent shows a model: the system prompt
// (tool catalog, execution/human-auth/completion policies, skills index,
// memory protocol, workspace context files within a budget) and the
// per-step message (task, step, screen metadata, numbered elements in the
// model's scaled space, recent history, stuck signals). They are pure
// functions so the Lua agent loop stays short and tests can read prompts.
package prompt

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/screen"
)

// Mode is agent.systemPromptMode.
const (
	ModeFull    = "full"
	ModeMinimal = "minimal"
	ModeNone    = "none"
)

// ContextFile is one workspace context file (AGENTS.md, SOUL.md, …).
type ContextFile struct {
	Name    string
	Content string
}

// Skill is one entry of the skills index: the model reads the body with
// the read tool when it applies.
type Skill struct {
	Name        string
	Description string
	Location    string
}

// SystemOptions configure the system prompt.
type SystemOptions struct {
	Mode   string
	Tools  []action.Tool
	Skills []Skill
	// SkillsBudget caps the skills index in characters (8,000).
	SkillsBudget int
	Context      []ContextFile
	// FileCap caps each context file (20,000); Budget caps them all (150,000).
	FileCap int
	Budget  int
	// PermissionPolicy: the runtime answers permission dialogs by policy
	// (humanAuth.permissions), so the model is not told to answer them.
	PermissionPolicy bool
}

// System builds the system prompt. Every mode sends one: "none" a short
// core of rules (upstream's), "minimal" drops only the memory protocol,
// "full" has every section. Sections follow the tools offered: a rule
// that needs a tool the run does not have is left out, so the prompt never
// points at a tool the model cannot call.
func System(o SystemOptions) string {
	has := map[string]bool{}
	for _, t := range o.Tools {
		has[t.Name] = true
	}
	if o.Mode == ModeNone {
		return coreRules(has)
	}
	var b strings.Builder
	b.WriteString("You are OpenPocket, an agent that operates an Android phone to complete the user's task.\n")
	b.WriteString("Each step you see the current screen (a screenshot with numbered marks on interactive elements) and the element list, and you call exactly ONE tool: the next action.\n\n")

	b.WriteString("## Tools\n")
	for _, t := range o.Tools {
		desc := strings.SplitN(strings.TrimSpace(t.Description), "\n", 2)[0]
		fmt.Fprintf(&b, "- %s: %s\n", t.Name, desc)
	}

	b.WriteString("\n## Execution policy\n")
	if has["tap_element"] {
		b.WriteString("- Prefer tap_element with the mark number of the element list over raw coordinates; coordinates are in the screenshot's pixel space.\n")
	}
	b.WriteString("- Each result ends with `state_delta changed=<bool> app=<before>-><after>`. If changed=false, the action did nothing visible: do not repeat it; change approach (another element, scroll, back, launch the app).\n")
	b.WriteString("- An element line ends with its state when it has one: focused, password, checked/unchecked, selected, scrollable, empty (a field showing its hint). Lines after the list say what is not listed: a folded keyboard (type with type_text), rows to scroll to, elements under another window.\n")
	b.WriteString("- To open an app use launch_app with its package name (see installed apps). Type into a field only after it is focused.\n")
	if o.PermissionPolicy {
		b.WriteString("- Android permission dialogs are answered by the runtime's policy before you see the screen; a denied permission stays denied.\n")
	} else {
		b.WriteString("- Android permission dialogs inside the phone are handled by you directly (Allow / Don't allow per the task).\n")
	}
	if has["request_human_auth"] {
		b.WriteString("\n## Human authorization\n")
		b.WriteString("Use request_human_auth only for real-world checkpoints you cannot do yourself: OTP codes sent to the user, camera/microphone/location, payment, OAuth sign-in, biometric. Give a clear instruction. Never ask for approval of ordinary taps.\n")
	}
	b.WriteString("\n## Completion\n")
	b.WriteString("Call finish with a short message describing the result as soon as the task is done and visible on screen. If the task is impossible, call finish explaining why. Do not finish early.\n")
	if o.Mode != ModeMinimal && has["memory_search"] {
		b.WriteString("\n## Memory\n")
		b.WriteString("MEMORY.md and memory/*.md hold what earlier runs learned. Use memory_search before guessing facts about the user")
		if has["memory_get"] {
			b.WriteString(", memory_get to read a cited snippet")
		}
		b.WriteString(".\n")
	}
	if idx := SkillsIndex(o.Skills, o.SkillsBudget); idx != "" && has["read"] {
		// The index only names files: without the read tool the model
		// could not open one, so it is not offered.
		b.WriteString("\n## Skills\n")
		b.WriteString("Skills are procedures that worked before. When one applies, read its file with the read tool first, then follow it.\n")
		b.WriteString(idx)
	}
	if ctx := ContextBlock(o.Context, o.FileCap, o.Budget); ctx != "" {
		b.WriteString("\n## Workspace context\n")
		b.WriteString("Instruction priority inside the workspace context: AGENTS.md, then BOOTSTRAP.md, then SOUL.md, then the other files.\n")
		b.WriteString(ctx)
	}
	return b.String()
}

// coreRules is the "none" mode prompt: no sections, no context files, only
// the rules every step needs (upstream sends such a core too: a model
// without any system message does not know it must call one tool).
func coreRules(has map[string]bool) string {
	var b strings.Builder
	b.WriteString("You are OpenPocket, an agent that operates an Android phone.\n")
	b.WriteString("Call exactly one tool per step: the next action on the screen you are shown.\n")
	b.WriteString("Handle Android permission dialogs yourself: allow what the task needs, deny the rest.\n")
	if has["request_human_auth"] {
		b.WriteString("When only the person can continue (a code sent to them, camera, payment, sign-in), call request_human_auth.\n")
	}
	if has["request_user_input"] {
		b.WriteString("When a detail is missing and not sensitive, ask with request_user_input.\n")
	}
	b.WriteString("When the task is done, call finish with the result.\n")
	return b.String()
}

// SkillsIndex is the skills section's list within budget characters.
func SkillsIndex(skills []Skill, budget int) string {
	if budget <= 0 {
		budget = 8000
	}
	var b strings.Builder
	for i, s := range skills {
		line := fmt.Sprintf("- %s: %s (location: %s)\n", s.Name, oneLine(s.Description, 200), s.Location)
		if b.Len()+len(line) > budget {
			fmt.Fprintf(&b, "- … %d more skills not listed (budget)\n", len(skills)-i)
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

// ContextBlock is the workspace context files within the caps.
func ContextBlock(files []ContextFile, fileCap, budget int) string {
	if fileCap <= 0 {
		fileCap = 20000
	}
	if budget <= 0 {
		budget = 150000
	}
	var b strings.Builder
	for _, f := range files {
		content := strings.TrimSpace(f.Content)
		if content == "" {
			continue
		}
		if r := []rune(content); len(r) > fileCap {
			content = string(r[:fileCap]) + "\n…[truncated]"
		}
		block := fmt.Sprintf("### %s\n%s\n\n", f.Name, content)
		if b.Len()+len(block) > budget {
			rest := budget - b.Len()
			if rest > 200 {
				// Cut on a rune boundary: a split character would make the
				// prompt invalid UTF-8.
				cut := rest
				for cut > 0 && !utf8.RuneStart(block[cut]) {
					cut--
				}
				b.WriteString(block[:cut] + "\n…[context budget reached]\n")
			}
			break
		}
		b.WriteString(block)
	}
	return b.String()
}

// HistoryEntry is one past step as the model sees it.
type HistoryEntry struct {
	Step   int
	App    string
	Action string
	Result string
}

// StepOptions are the inputs of one step's message.
type StepOptions struct {
	Task     string
	Step     int
	MaxSteps int
	Snapshot *screen.Snapshot
	History  []HistoryEntry
	// Problems are what was wrong with the previous reply (no tool call,
	// malformed arguments) — told once so the model corrects itself.
	Problems []string
}

// historyLines is how many recent steps the message repeats.
const historyLines = 8

// Step builds the per-step user message.
func Step(o StepOptions) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Task: %s\n", o.Task)
	if o.MaxSteps > 0 {
		fmt.Fprintf(&b, "Step: %d of at most %d\n", o.Step, o.MaxSteps)
	} else {
		fmt.Fprintf(&b, "Step: %d\n", o.Step)
	}
	if s := o.Snapshot; s != nil {
		fmt.Fprintf(&b, "\nScreen: current app %s, screenshot %dx%d px\n", orUnknown(s.CurrentApp), s.ScaledWidth, s.ScaledHeight)
		secureBlind := s.SecureSurface && len(s.UIElements) == 0
		switch {
		case secureBlind:
			b.WriteString("The app blocks screenshots (secure surface) and no elements could be read: this screen cannot be seen, and coordinates would be guesses. Wait for it to change, go back, or, if the task needs this screen, ask the person with request_human_auth.\n")
		case s.SecureSurface:
			b.WriteString("The app blocks screenshots (secure surface): the image is black; rely on the element list.\n")
		}
		if len(s.InstalledPackages) > 0 {
			pk := append([]string(nil), s.InstalledPackages...)
			sort.Strings(pk)
			fmt.Fprintf(&b, "Installed apps: %s\n", strings.Join(pk, ", "))
		}
		if len(s.UIElements) == 0 && secureBlind {
			b.WriteString("\nElements: none.\n")
			for _, n := range s.UINotes {
				b.WriteString(n + "\n")
			}
		} else if len(s.UIElements) == 0 {
			b.WriteString("\nElements: none detected; use coordinates on the screenshot.\n")
			for _, n := range s.UINotes {
				b.WriteString(n + "\n")
			}
		} else {
			b.WriteString("\nElements (marks on the screenshot; coordinates in screenshot pixels):\n")
			b.WriteString(screen.ElementBlock(s.UIElements, s.UINotes))
		}
	}
	if n := len(o.History); n > 0 {
		b.WriteString("\nRecent steps:\n")
		for _, h := range o.History[max(0, n-historyLines):] {
			fmt.Fprintf(&b, "step %d: app=%s action=%s result=%s\n", h.Step, orUnknown(h.App), h.Action, oneLine(h.Result, 300))
		}
	}
	if s := stuckSignals(o.History); s != "" {
		b.WriteString("\n" + s)
	}
	if len(o.Problems) > 0 {
		b.WriteString("\nYour previous reply had problems: " + strings.Join(o.Problems, "; ") + ". Reply with exactly one tool call.\n")
	}
	b.WriteString("\nChoose the single next action.")
	return b.String()
}

// ElementLine renders one element in the model's scaled space
// (screen.ElementLine: the selection budgets these very lines).
func ElementLine(e screen.UIElement) string { return screen.ElementLine(e) }

// stuckSignals warns when the same action or app repeats: the model loops.
func stuckSignals(h []HistoryEntry) string {
	n := len(h)
	if n < 3 {
		return ""
	}
	last := h[n-3:]
	var out []string
	if last[0].Action == last[1].Action && last[1].Action == last[2].Action {
		out = append(out, fmt.Sprintf("Stuck signal: the same action %s was repeated 3 times.", last[2].Action))
	}
	unchanged := 0
	for _, e := range last {
		if strings.Contains(e.Result, "changed=false") {
			unchanged++
		}
	}
	if unchanged == 3 {
		out = append(out, "Stuck signal: the last 3 actions changed nothing on screen.")
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + " Try a different approach.\n"
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}
