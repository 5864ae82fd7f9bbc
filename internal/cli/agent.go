package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// AgentCmd runs a model-driven task: `openpocket agent "task"`.
type AgentCmd struct {
	Task      string `arg:"" help:"The task, in plain words (\"Turn Wi-Fi off\")."`
	Model     string `help:"Model profile from config.json models (default: defaultModel)." placeholder:"PROFILE"`
	MaxSteps  int    `help:"Stop after N steps (default: agent.maxSteps)." placeholder:"N"`
	JSON      bool   `name:"json" help:"Print the result as JSON {status, message, sessionPath, steps, tokens}; no progress lines."`
	NoReplay  bool   `name:"no-replay" help:"Do not replay a learned skill that matches the task; ask the model from the first step."`
	MaxTokens int64  `name:"max-tokens" help:"End the run FAILED before it uses more than N tokens (default: agent.maxTokens; 0 there: no budget)." placeholder:"N"`
}

// agentRunOptions tune one agent run; the zero value uses config.json.
type agentRunOptions struct {
	// Model is the profile ("" = defaultModel).
	Model string
	// MaxSteps overrides agent.maxSteps when > 0.
	MaxSteps int
	// OnEvent receives the run's events (agent_step …); nil drops them.
	OnEvent func(engine.Event)
	// SkillTask names a learned skill when the task is a built prompt.
	SkillTask string
	// Stdin/Stdout are the terminal request_human_auth asks on (only when
	// Stdin is a TTY); nil for unattended runs (scheduler).
	Stdin  io.Reader
	Stdout io.Writer
	// Ask is a chat channel's way to ask a person for human auth: raced
	// with the relay when humanAuth.enabled, used alone otherwise.
	Ask agent.HumanAuthFunc
	// OnAuthLink receives each relay link (request id, URL with token).
	OnAuthLink func(id, url string)
	// ReplyTo is the chat a run started from ("telegram:4242"): the model
	// then gets cron_add/cron_list/cron_remove (jobs deliver to that chat)
	// and request_user_input (answered through UserInput).
	ReplyTo   string
	UserInput agent.UserInputFunc
	// HumanAuth answers request_human_auth instead (a relay).
	HumanAuth run.HumanAuthFunc
	// ReplayFirst replays a learned skill matching the task before asking
	// the model (agent without --no-replay); MaxTokens overrides
	// agent.maxTokens when > 0.
	ReplayFirst bool
	MaxTokens   int64
}

// agentResult is the --json output.
type agentResult struct {
	Status      string       `json:"status"`
	Message     string       `json:"message"`
	SessionPath string       `json:"sessionPath"`
	Steps       int          `json:"steps"`
	Tokens      engine.Usage `json:"tokens"`
	SkillPath   string       `json:"skillPath,omitempty"`
	ScriptPath  string       `json:"scriptPath,omitempty"`
	Replaced    []string     `json:"replaced,omitempty"`
	// Replayed is the learned skill replayed before any model call.
	Replayed *run.ReplayedSkill `json:"replayed,omitempty"`
}

// printLearned says which skill a run learned and which earlier ones it
// replaced (their replay commands, printed by earlier runs, now point at
// the new one's task).
func printLearned(w io.Writer, res engine.RunResult) {
	if res.ScriptPath == "" {
		return
	}
	fmt.Fprintf(w, "learned skill: %s (replay: openpocket skills run %s)\n", res.SkillPath, res.SkillPath)
	for _, p := range res.Replaced {
		if strings.HasSuffix(p, ".md") {
			fmt.Fprintf(w, "  replaces the earlier skill %s (same task or same steps)\n", p)
		}
	}
}

// Run runs the task, shows progress and maps the verdict to the exit code:
// 0 on SUCCESS, 1 otherwise (130 when cancelled).
func (c *AgentCmd) Run(ctx context.Context, out Streams, svc *run.Service, agents *Agents) error {
	task := strings.TrimSpace(c.Task)
	if task == "" {
		return UsageError{errors.New("agent: the task is empty; say what the agent should do, e.g. openpocket agent \"Turn Wi-Fi off\"")}
	}
	if c.MaxSteps < 0 {
		return UsageError{fmt.Errorf("agent: --max-steps must be positive, got %d", c.MaxSteps)}
	}
	if c.MaxTokens < 0 {
		return UsageError{fmt.Errorf("agent: --max-tokens must be at least 0, got %d", c.MaxTokens)}
	}
	// Human-auth prompts (and the loop breaker's question) go to stderr so
	// --json output stays clean.
	o := agentRunOptions{Model: c.Model, MaxSteps: c.MaxSteps, Stdin: os.Stdin, Stdout: out.Stderr,
		ReplayFirst: !c.NoReplay && svc.Config().Agent.ReplayFirst, MaxTokens: c.MaxTokens}
	progress := newAgentProgress(out.Stdout, isTTY(out.Stdout))
	progress.quiet = c.JSON
	o.OnEvent = progress.event
	res, err := agents.run(ctx, svc, task, o)
	if res.SessionPath == "" && res.Message == "" && err != nil {
		return modelFailure(err) // nothing ran: config, model profile, workspace, device
	}
	status := "SUCCESS"
	if !res.Success {
		status = "FAILED"
		res.Message += modelHint(err)
	}
	if c.JSON {
		enc := json.NewEncoder(out.Stdout)
		enc.SetIndent("", "  ")
		if jerr := enc.Encode(agentResult{Status: status, Message: res.Message, SessionPath: res.SessionPath, Steps: res.Steps, Tokens: res.Usage,
			SkillPath: res.SkillPath, ScriptPath: res.ScriptPath, Replaced: res.Replaced, Replayed: progress.replayed}); jerr != nil {
			return jerr
		}
	} else {
		fmt.Fprintf(out.Stdout, "%s: %s\n", status, res.Message)
		if res.SessionPath != "" {
			fmt.Fprintf(out.Stdout, "session: %s\n", res.SessionPath)
		}
		printLearned(out.Stdout, res)
	}
	switch {
	case res.Success:
		return nil
	case errors.Is(err, context.Canceled):
		return err
	}
	return FailedError{Msg: fmt.Sprintf("agent: %s: %s", status, res.Message), Cause: modelFailure(err)}
}

// Agents runs this command's agent tasks: on a run service, with the
// humanAuth settings of the command's config, its HumanAuth (the relay,
// the terminal) and the model's cron_* actions on its jobs file. MainWith
// binds one (built from the home and config) for the commands that run
// agents (agent, skills run --fallback-agent).
type Agents struct {
	auth      *HumanAuth
	humanAuth workspace.HumanAuthConfig
	schedule  func(ctx context.Context, act action.Action, replyTo string) (string, error)
}

// newAgents is the Agents of home h and config cfg.
func newAgents(auth *HumanAuth, h *workspace.Home, cfg workspace.Config) *Agents {
	jobsPath, _ := cronFiles(h, cfg)
	jt := jobsTarget{jobsPath: jobsPath, workspace: h.Workspace(), stateDir: h.State()}
	return &Agents{auth: auth, humanAuth: cfg.HumanAuth,
		schedule: func(ctx context.Context, act action.Action, replyTo string) (string, error) {
			return scheduleAt(ctx, jt, act, replyTo)
		}}
}

// run runs one agent task on svc (its default device).
func (ag *Agents) run(ctx context.Context, svc *run.Service, task string, o agentRunOptions) (engine.RunResult, error) {
	return agentOn(ctx, ag.auth, agentEnv{svc: svc, humanAuth: ag.humanAuth, schedule: ag.schedule}, task, o)
}

// agentEnv is where an agent run happens: the run service and target,
// the humanAuth settings of the config the service was built from, and
// what runs the model's cron_* actions for a chat's run.
type agentEnv struct {
	svc       *run.Service
	target    run.Target
	humanAuth workspace.HumanAuthConfig
	schedule  func(ctx context.Context, act action.Action, replyTo string) (string, error)
}

// agentOn runs one agent task in env, asking people through auth. A
// non-nil error with an empty result means nothing ran (bad config,
// unknown model profile).
func agentOn(ctx context.Context, auth *HumanAuth, env agentEnv, task string, o agentRunOptions) (engine.RunResult, error) {
	ro := run.AgentOptions{Target: env.target, Task: task, SkillTask: o.SkillTask, Model: o.Model, MaxSteps: o.MaxSteps, Stdin: o.Stdin, Stdout: o.Stdout, HumanAuth: o.HumanAuth,
		ReplayFirst: o.ReplayFirst, MaxTokens: o.MaxTokens,
		HumanAuthFor: func(ctx context.Context, sess *engine.Session) (run.HumanAuthFunc, error) {
			return auth.forRun(ctx, env.humanAuth, sess, o)
		}}
	if o.OnEvent != nil {
		ro.Events = func(ev run.Event) { o.OnEvent(engine.Event{Kind: string(ev.Kind), Fields: ev.Fields}) }
	}
	if o.ReplyTo != "" && env.schedule != nil { // started from a chat: questions back and schedules
		ro.UserInput = o.UserInput
		ro.Schedule = func(ctx context.Context, act action.Action) (string, error) {
			return env.schedule(ctx, act, o.ReplyTo)
		}
	}
	res, err := env.svc.Agent(ctx, ro)
	return res.RunResult, err
}

// agentProgress prints one line per agent step: a compact live line on a
// terminal, key=value lines when piped; and a replay-first's skill and
// steps.
type agentProgress struct {
	w   io.Writer
	tty bool
	// quiet keeps track without printing (--json).
	quiet bool
	// replayed is the skill replayed first, from its replay_first events.
	replayed *run.ReplayedSkill
	steps    *stepProgress
}

func newAgentProgress(w io.Writer, tty bool) *agentProgress {
	return &agentProgress{w: w, tty: tty, steps: newStepProgress(w, tty)}
}

func (p *agentProgress) event(ev engine.Event) {
	switch ev.Kind {
	case string(run.KindReplayFirst):
		p.replayFirst(ev)
		return
	case string(run.KindStepEnd), string(run.KindStepStart):
		if p.replayed != nil && !p.quiet { // the replay's own steps
			p.steps.event(run.Event{Kind: run.Kind(ev.Kind), Step: &run.StepInfo{Label: ev.Str("label"), Status: ev.Str("status"),
				DurationMs: int64(ev.Int("duration_ms")), Error: ev.Str("error"), Depth: ev.Int("depth")}})
		}
		return
	case "agent_step":
	default:
		return
	}
	if p.quiet {
		return
	}
	f := ev.Fields
	step, maxSteps := ev.Int("step"), ev.Int("max_steps")
	act, _ := f["action"].(string)
	res, _ := f["result"].(string)
	ms := ev.Int("model_ms")
	if p.tty {
		fmt.Fprintf(p.w, "\x1b[1mstep %d/%d\x1b[0m  %-32s %s \x1b[2m(model %.1fs)\x1b[0m\n", step, maxSteps, agentShort(act, 32), agentShort(agentFirstLine(res), 60), float64(ms)/1000)
		return
	}
	fmt.Fprintf(p.w, "step %d/%d action=%s model_ms=%d result=%q\n", step, maxSteps, act, ms, agentShort(agentFirstLine(res), 120))
}

// replayFirst keeps and prints the replay-first events: which skill is
// replayed (and why it matched), and where it stopped.
func (p *agentProgress) replayFirst(ev engine.Event) {
	rs := run.ReplayedSkill{Name: ev.Str("skill"), Location: ev.Str("location"), Script: ev.Str("script"), By: ev.Str("by"),
		Passed: ev.Int("passed"), Error: ev.Str("error")}
	p.replayed = &rs
	if p.quiet {
		return
	}
	switch ev.Str("status") {
	case "started":
		fmt.Fprintf(p.w, "replaying the learned skill %s (%s, matched by %s), no model calls…\n", rs.Name, rs.Location, rs.By)
	case "failed":
		fmt.Fprintf(p.w, "the replay of %s stopped after %d step(s): %s\nhanding the task to the model…\n", rs.Name, rs.Passed, oneLine(rs.Error))
	}
}

func agentFirstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func agentShort(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
