package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/openpocket/openpocket/engine/hostfs"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/internal/workspace"
)

// SkillsCmd groups the skills commands.
type SkillsCmd struct {
	List     SkillsListCmd     `cmd:"" help:"List skills: bundled, OPENPOCKET_HOME/skills and workspace/skills (for one name the more specific wins)."`
	Show     SkillsShowCmd     `cmd:"" help:"Print a skill, where it comes from and its replay script."`
	Validate SkillsValidateCmd `cmd:"" help:"Check skill files: frontmatter, metadata JSON, replay script syntax."`
	Run      SkillsRunCmd      `cmd:"" help:"Replay a skill on the device without a model."`
}

// skillsLoaderOf loads the skills of home h: its workspace's, its own and
// the bundled ones.
func skillsLoaderOf(h *workspace.Home) *skills.Loader {
	return &skills.Loader{HomeDir: h.Dir(), WorkspaceDir: h.Workspace()}
}

// SkillsListCmd lists skills.
type SkillsListCmd struct {
	JSON bool `help:"Print JSON."`
}

// Run prints one line per skill (name, source, runnable, description).
func (c *SkillsListCmd) Run(streams Streams, h *workspace.Home) error {
	l := skillsLoaderOf(h)
	out, problems := l.Entries()
	for _, p := range problems {
		fmt.Fprintf(streams.Stderr, "warning: %v\n", p)
	}
	if c.JSON {
		enc := json.NewEncoder(streams.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if len(out) == 0 {
		fmt.Fprintln(streams.Stdout, "no skills")
		return nil
	}
	tw := tabwriter.NewWriter(streams.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tRUN\tDESCRIPTION")
	for _, e := range out {
		src := e.Source
		if e.Auto {
			src += " (auto)"
		}
		if len(e.Shadows) > 0 {
			src += " (shadows " + strings.Join(e.Shadows, ", ") + ")"
		}
		run := "-"
		if e.Runnable {
			run = "yes"
		}
		desc := oneLine(e.Description)
		if len(e.Missing) > 0 {
			desc = "hidden from the model: " + strings.Join(e.Missing, "; ") + " — " + desc
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Name, src, run, desc)
	}
	return tw.Flush()
}

// SkillsShowCmd prints one skill.
type SkillsShowCmd struct {
	Name   string `arg:"" help:"Skill name or path to a skill file."`
	Script bool   `help:"Print the replay script instead of the markdown."`
}

// Run prints the skill's origin, then its markdown (or script).
func (c *SkillsShowCmd) Run(out Streams, h *workspace.Home) error {
	l := skillsLoaderOf(h)
	s, err := l.Find(c.Name)
	if err != nil {
		return UsageError{err}
	}
	src, from, serr := l.Script(s)
	if c.Script {
		if serr != nil {
			return FailedError{Msg: serr.Error()}
		}
		_, err := out.Stdout.Write(src)
		return err
	}
	fmt.Fprintf(out.Stdout, "name:     %s\nsource:   %s\nlocation: %s\n", s.Name, s.Source, s.Location)
	for _, sh := range s.Shadows {
		fmt.Fprintf(out.Stdout, "shadows:  %s\n", sh)
	}
	if serr == nil {
		fmt.Fprintf(out.Stdout, "script:   %s\n", from)
	} else {
		fmt.Fprintf(out.Stdout, "script:   none\n")
	}
	fmt.Fprintf(out.Stdout, "\n%s", s.Body)
	if !strings.HasSuffix(s.Body, "\n") {
		fmt.Fprintln(out.Stdout)
	}
	return nil
}

// SkillsValidateCmd checks skills.
type SkillsValidateCmd struct {
	Paths []string `arg:"" optional:"" help:"Skill (.md) or script (.lua) files or directories; default: every skill the loader finds." type:"path"`
}

// Run reports each problem and fails (exit 1) when there is one.
func (c *SkillsValidateCmd) Run(out Streams, later OnUse) error {
	var problems []error
	checked := 0
	check := func(s skills.Skill, l *skills.Loader) {
		checked++
		src, from, err := l.Script(s)
		if errors.Is(err, skills.ErrNoScript) {
			return // a procedure to read, not to run
		}
		if err != nil {
			problems = append(problems, err)
			return
		}
		if err := run.CheckSkill(from, src); err != nil {
			problems = append(problems, err)
		}
	}
	if len(c.Paths) == 0 {
		h, err := later.Home()
		if err != nil {
			return err
		}
		l := skillsLoaderOf(h)
		all, p := l.Load()
		problems = append(problems, p...)
		for _, s := range all {
			check(s, l)
		}
	} else {
		l := &skills.Loader{NoBundled: true}
		for _, root := range c.Paths {
			err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
				if err != nil {
					return err
				}
				switch {
				case d.IsDir():
				case strings.HasSuffix(p, ".md"):
					s, err := skills.LoadFile(p)
					if err != nil {
						problems = append(problems, err)
						return nil
					}
					check(s, l)
				case strings.HasSuffix(p, ".lua"):
					checked++
					// Non-blocking, regular files only: a FIFO is a
					// problem at once, never a hang.
					b, err := hostfs.ReadRegular(p, maxSkillScriptBytes)
					if err == nil {
						err = run.CheckSkill(p, b)
					}
					if err != nil {
						problems = append(problems, err)
					}
				}
				return nil
			})
			if err != nil {
				problems = append(problems, err)
			}
		}
	}
	for _, p := range problems {
		fmt.Fprintf(out.Stdout, "✗ %v\n", p)
	}
	if len(problems) > 0 {
		return FailedError{Msg: fmt.Sprintf("%d problem(s) in %d skill file(s)", len(problems), checked)}
	}
	fmt.Fprintf(out.Stdout, "✓ %d skill file(s) valid\n", checked)
	return nil
}

// maxSkillScriptBytes caps a replay script skills validate reads.
const maxSkillScriptBytes = 4 << 20

// SkillsRunCmd replays a skill.
type SkillsRunCmd struct {
	Name          string            `arg:"" help:"Skill name, or path to a skill (.md) or replay script (.lua)."`
	Params        map[string]string `short:"e" name:"param" help:"Parameter NAME=VALUE (repeatable), e.g. -e text_1=hello." placeholder:"NAME=VALUE"`
	FallbackAgent bool              `name:"fallback-agent" help:"When a step's check fails, hand the rest of the task to the model from the current screen."`
	Timeout       time.Duration     `help:"Time limit for the whole replay (0: none)." placeholder:"DURATION"`

	shadowNote string // set by resolve when the skill hides a less specific one
}

// Run replays the skill with zero model calls, printing one line per step
// and writing a session file. A failed check stops with the step, what was
// expected and what the screen showed — or, with --fallback-agent, the
// model continues the task.
func (c *SkillsRunCmd) Run(ctx context.Context, out Streams, phones *Phones, h *workspace.Home, svc *run.Service, agents *Agents) error {
	l := skillsLoaderOf(h)
	name, task, src, from, err := c.resolve(l)
	if err != nil {
		return err
	}
	if c.shadowNote != "" {
		fmt.Fprintln(out.Stderr, c.shadowNote)
	}
	if err := run.CheckSkill(from, src); err != nil {
		return UsageError{err}
	}
	rres, runErr := svc.Replay(ctx, run.ReplayOptions{Name: name, Skill: from, Source: src, Params: c.Params, Timeout: c.Timeout,
		Task: "skill " + name + ": " + task, Persist: true, Events: newStepProgress(out.Stdout, isTTY(out.Stdout)).event})
	var notReady *run.NotReadyError
	if runErr != nil && (rres.Message == "" || errors.As(runErr, &notReady)) {
		return runErr // nothing ran: workspace, device not ready
	}
	res := rres
	if runErr == nil {
		fmt.Fprintf(out.Stdout, "✓ %s: %d step(s) passed\n", name, res.Passed)
		if res.Repaired != "" {
			fmt.Fprintf(out.Stdout, "repaired: %s\n", res.Repaired)
		}
		if res.SessionPath != "" {
			fmt.Fprintf(out.Stdout, "session: %s\n", res.SessionPath)
		}
		return nil
	}
	var se *run.StepError
	errors.As(runErr, &se)
	if res.Repaired != "" {
		fmt.Fprintf(out.Stderr, "repaired: %s\n", res.Repaired)
	}
	reportReplayFailure(out.Stderr, runErr, res.SessionPath)
	if !c.FallbackAgent || errors.Is(runErr, context.Canceled) {
		return phones.failedRun("replay failed")
	}
	if se == nil {
		// Not a failed check (a bundled skill's script raised, the device
		// went away mid-step): the model still takes over from here.
		se = &run.StepError{Step: res.Passed + 1, Label: "replay", Message: oneLine(runErr.Error())}
	}
	done := res.Passed
	var labels []string
	for _, s := range res.Steps {
		if s.Status == "passed" {
			labels = append(labels, s.Label)
		}
	}
	fallback := fmt.Sprintf("%s\n\nProgress so far: steps 1..%d done (%s); step %d (%s) did not work: expected %s. Continue from the current screen.",
		task, done, strings.Join(labels, "; "), se.Step, se.Label, orText(se.Expected, se.Message))
	fmt.Fprintf(out.Stdout, "handing the rest of the task to the model…\n")
	ares, aerr := agents.run(ctx, svc, fallback, agentRunOptions{Stdin: os.Stdin, Stdout: out.Stdout, SkillTask: task,
		OnEvent: newAgentProgress(out.Stdout, isTTY(out.Stdout)).event})
	if aerr != nil && ares.SessionPath == "" {
		return aerr
	}
	if !ares.Success {
		return FailedError{Msg: "the model could not finish the task either: " + ares.Message}
	}
	fmt.Fprintf(out.Stdout, "✓ finished by the model: %s\n", ares.Message)
	printLearned(out.Stdout, ares)
	return nil
}

// reportReplayFailure says on w why a replay failed: the step, what was
// expected and what the screen showed. The session's final block says why
// in full (a dialog's name, what the screen showed).
func reportReplayFailure(w io.Writer, runErr error, sessionPath string) {
	report := runErr.Error()
	var se *run.StepError
	if errors.As(runErr, &se) {
		report = fmt.Sprintf("step %d (%s) failed\n  expected: %s\n  screen:   %s", se.Step, se.Label, orText(se.Expected, se.Message), orText(strings.TrimPrefix(se.Saw, "app "), "-"))
	}
	fmt.Fprintf(w, "✗ %s\n", report)
	if sessionPath != "" {
		fmt.Fprintf(w, "session: %s\n", sessionPath)
	}
}

// resolve finds the script: a .lua path, a .md path or a skill name.
func (c *SkillsRunCmd) resolve(l *skills.Loader) (name, task string, src []byte, from string, err error) {
	r, err := l.Replayable("", c.Name)
	if err != nil {
		return "", "", nil, "", UsageError{err}
	}
	if s := r.Skill; len(s.Shadows) > 0 {
		c.shadowNote = fmt.Sprintf("note: skill %s from %s (%s) shadows %s", s.Name, s.Source, s.Location, strings.Join(s.Shadows, ", "))
	}
	return r.Name, r.Task, r.Source, r.From, nil
}

func orText(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
