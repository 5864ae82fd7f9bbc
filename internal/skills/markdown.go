package skills

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine"
)

// SkillDoc is what the auto skill markdown says about a run.
type SkillDoc struct {
	Name, Task, SessionPath, Fingerprint string
	// ScriptPath is the replay script, relative to the workspace.
	ScriptPath  string
	GeneratedAt time.Time
	Params      []Param
}

// RenderSkill writes the auto skill markdown of a run: frontmatter (name,
// description, metadata), title, source session, behavior_fingerprint, when
// to use, preconditions, the numbered procedure (action summary, app,
// intent, ui_target, observed result) and completion criteria.
func RenderSkill(steps []engine.TraceStep, d SkillDoc) string {
	var b strings.Builder
	meta, _ := json.Marshal(map[string]any{"openpocket": map[string]any{
		"auto": true, "task": d.Task, "fingerprint": d.Fingerprint, "session": d.SessionPath, "script": d.ScriptPath,
	}})
	desc := fmt.Sprintf("Replayable procedure learned from a successful run: %s", oneLine(d.Task, 160))
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\nmetadata: %s\n---\n\n", d.Name, yamlStr(desc), meta)
	fmt.Fprintf(&b, "# %s\n\n", oneLine(d.Task, 120))
	fmt.Fprintf(&b, "%s\n\n", desc)
	fmt.Fprintf(&b, "- source_session: %s\n", orDash(d.SessionPath))
	fmt.Fprintf(&b, "- behavior_fingerprint: %s\n", d.Fingerprint)
	if !d.GeneratedAt.IsZero() {
		fmt.Fprintf(&b, "- generated_at: %s\n", d.GeneratedAt.UTC().Format(time.RFC3339))
	}
	if d.ScriptPath != "" {
		fmt.Fprintf(&b, "- replay_script: %s\n", d.ScriptPath)
	}
	b.WriteString("\n## When to use\n\n")
	fmt.Fprintf(&b, "When the task is the same as or close to: %q. ", oneLine(d.Task, 300))
	b.WriteString("Replay it without a model:\n\n```sh\nopenpocket skills run " + d.Name)
	for _, p := range d.Params {
		v := p.Default
		if p.Required || v == "" {
			v = "VALUE"
		}
		b.WriteString(" -e " + p.Name + "=" + shellArg(v))
	}
	b.WriteString("\n```\n\nOr follow the procedure below step by step, checking each screen.\n")
	if len(d.Params) > 0 {
		b.WriteString("\nParameters:\n\n")
		for _, p := range d.Params {
			if p.Required {
				fmt.Fprintf(&b, "- `%s` (required): %s\n", p.Name, p.About)
			} else {
				fmt.Fprintf(&b, "- `%s`: %s (recorded: %q)\n", p.Name, p.About, p.Default)
			}
		}
	}

	plan := Learn(steps)
	b.WriteString("\n## Preconditions\n\n")
	apps := appsOf(steps, plan)
	if len(apps) > 0 {
		fmt.Fprintf(&b, "- Installed apps: %s\n", strings.Join(apps, ", "))
	}
	if plan.Start != "" {
		fmt.Fprintf(&b, "- Start app: %s, the first app the task used. Any state will do: the replay brings it up from the home screen, another app, a dialog, the keyboard or a deeper screen of the same app.\n", plan.Start)
	}
	for _, h := range plan.Handlers {
		if !h.Replayed() {
			continue
		}
		what := h.Package
		if h.Message != "" {
			what += " " + strconv.Quote(h.Message)
		}
		fmt.Fprintf(&b, "- May show up (answered with %s whenever it does, never required): the %s dialog %s\n", h.Label, h.Kind, what)
	}
	b.WriteString("- The device is awake and unlocked. A dialog the recorded run never saw stops the replay (unless it is a known one with a safe answer: \"Wait\" when an app is not responding).\n")

	b.WriteString("\n## Procedure\n\n")
	writeProcedure(&b, steps, plan)
	if len(plan.Dropped) > 0 {
		b.WriteString("\n## Left out\n\nSteps of the recorded run the task did not need; the replay skips them.\n\n")
		for _, d := range plan.Dropped {
			fmt.Fprintf(&b, "- step %d: %s — %s\n", d.Step, plan.summaryOf(steps, d.Index), d.Why)
		}
	}

	writeCompletion(&b, steps)
	return b.String()
}

// writeCompletion writes the completion criteria: the app in front at the
// end and the run's final message.
func writeCompletion(b *strings.Builder, steps []engine.TraceStep) {
	b.WriteString("\n## Completion criteria\n\n")
	last := lastStep(steps)
	if last != nil {
		final := last.AppAfter
		if final == "" {
			final = last.AppBefore
		}
		if final != "" {
			fmt.Fprintf(b, "- The app in front is %s.\n", final)
		}
		if last.Action.Type == "finish" {
			fmt.Fprintf(b, "- The recorded run finished with: %s\n", oneLine(last.Action.Str("message"), 300))
		}
	}
	b.WriteString("- Every step's check passed (the replay stops at the first failed one).\n")
}

func lastStep(steps []engine.TraceStep) *engine.TraceStep {
	if len(steps) == 0 {
		return nil
	}
	return &steps[len(steps)-1]
}

// writeProcedure lists the kept steps of the plan, numbered.
func writeProcedure(b *strings.Builder, steps []engine.TraceStep, plan Plan) {
	n := 0
	for k, i := range plan.Kept {
		st := steps[i]
		n++
		summary := plan.summaryOf(steps, i)
		if pkg := plan.IconLaunch[i]; pkg != "" {
			summary += " (replayed as: launch " + pkg + ")"
		}
		if st.Action.Type == "launch_app" {
			summary += " (skipped when it is already in front on the screen the next step needs)"
		}
		fmt.Fprintf(b, "%d. %s\n", n, summary)
		app := st.AppBefore
		after := st.AppAfter
		if DialogPackage(after) && k+1 < len(plan.Kept) && steps[plan.Kept[k+1]].AppBefore != "" {
			after = steps[plan.Kept[k+1]].AppBefore + " (a system dialog may pop up over it)"
		}
		if after != "" && after != st.AppBefore {
			app = orDash(st.AppBefore) + " → " + after
		}
		if app != "" {
			fmt.Fprintf(b, "   - app: %s\n", app)
		}
		if th := oneLine(st.Thought, 240); th != "" && !plan.Secret[i] {
			fmt.Fprintf(b, "   - intent: %s\n", th)
		}
		if t := st.Target; t != nil {
			fmt.Fprintf(b, "   - ui_target: text=%q resource-id=%q content-desc=%q class=%q", t.Text, t.ResourceID, t.ContentDesc, t.ClassName)
			if t.Index > 0 {
				fmt.Fprintf(b, " index=%d", t.Index)
			}
			if t.Near != "" {
				fmt.Fprintf(b, " near=%q", t.Near)
			}
			fmt.Fprintf(b, " bounds=[%d,%d][%d,%d]\n", t.Bounds.Left, t.Bounds.Top, t.Bounds.Right, t.Bounds.Bottom)
		}
		if r := oneLine(st.Result, 240); r != "" {
			fmt.Fprintf(b, "   - result: %s\n", r)
		}
	}
}

func appsOf(steps []engine.TraceStep, plan Plan) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] && !strings.Contains(p, "launcher") {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, i := range plan.Kept {
		st := steps[i]
		for _, p := range []string{st.AppBefore, st.AppAfter, plan.IconLaunch[i]} {
			if !DialogPackage(p) {
				add(p)
			}
		}
		if st.Action.Type == "launch_app" {
			add(st.Action.Str("packageName"))
		}
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// yamlStr quotes a frontmatter value when it needs quoting.
func yamlStr(s string) string {
	if s == "" || strings.ContainsAny(s, ":#\"'{}[]&*!|>%@`") || strings.TrimSpace(s) != s {
		b, _ := json.Marshal(s)
		return string(b)
	}
	return s
}
