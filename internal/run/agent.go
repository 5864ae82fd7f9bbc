package run

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/prompt"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/stdlib/agent"
	"time"
)

// HumanAuthRequest, HumanAuthDecision and HumanAuthFunc are the agent's
// request_human_auth hook: a front end (terminal, web relay, chat) asks a
// person and returns the decision.
type (
	HumanAuthRequest  = agent.HumanAuthRequest
	HumanAuthDecision = agent.HumanAuthDecision
	HumanAuthFunc     = agent.HumanAuthFunc
)

// ErrHumanAuthUnavailable is returned by a HumanAuthFunc when nobody can
// be asked.
var ErrHumanAuthUnavailable = agent.ErrHumanAuthUnavailable

// TerminalAuth asks on a terminal (see stdlib/agent.TerminalAuth).
func TerminalAuth(in io.Reader, out io.Writer) HumanAuthFunc { return agent.TerminalAuth(in, out) }

// AgentOptions name one agent run; zero values use config.json's agent
// settings.
type AgentOptions struct {
	Target
	Task string
	// Model is the profile ("" = defaultModel).
	Model string
	// MaxSteps overrides agent.maxSteps when > 0.
	MaxSteps int
	// HumanAuth answers request_human_auth; nil asks on Stdin/Stdout when
	// Stdin is a terminal, else tells the model nobody can answer.
	HumanAuth HumanAuthFunc
	// HumanAuthFor, when set, builds the answerer once the run's session
	// exists (a relay emits its link events on it); a nil func it returns
	// keeps HumanAuth. An error fails the run before its first step.
	HumanAuthFor func(ctx context.Context, sess *engine.Session) (HumanAuthFunc, error)
	Stdin        io.Reader
	Stdout       io.Writer
	Events       func(Event)
	// UserInput answers request_user_input and Schedule runs cron_add /
	// cron_list / cron_remove: set by a chat channel; nil leaves the
	// actions out of the model's tools.
	UserInput agent.UserInputFunc
	Schedule  agent.ScheduleFunc
	// SkillTask names the skill a successful run learns ("" = Task): the
	// user's task when Task is a prompt built around it.
	SkillTask string
	// ReplayFirst replays the learned skill the task matches
	// (skills.Loader.Match: its recorded task, name or a trigger phrase)
	// before any model call; the model gets the task, from the screen the
	// replay left, only when the replay fails. `openpocket agent`,
	// scheduled agent jobs and chat tasks set it from agent.replayFirst
	// (AgentDefaults.ReplayFirst; `agent --no-replay` clears it); MCP
	// agent runs leave it false.
	ReplayFirst bool
	// MaxTokens overrides agent.maxTokens when > 0.
	MaxTokens int64
}

// AgentResult is an agent run's verdict (engine.RunResult: success,
// message, session path, steps, tokens, learned skill paths).
type AgentResult struct {
	engine.RunResult
	RunID string
	// Replayed is the skill replayed first (nil: none matched, or
	// ReplayFirst was off).
	Replayed *ReplayedSkill
}

// Agent runs one task with the configured model, persisting the session,
// trace, screenshots and daily memory. The session is always finalized. A
// non-nil error with an empty result (no SessionPath, no Message) means
// nothing ran: bad config, unknown model profile, no device; otherwise the
// error is the cause of a failed run (model or device error, cancellation).
func (s *Service) Agent(ctx context.Context, o AgentOptions) (AgentResult, error) {
	lc := s.begin(RunAgent, o.Task, o.Target, o.Events)
	res, replayed, err := s.agent(ctx, lc, o)
	msg := res.Message
	if msg == "" && err != nil {
		msg = err.Error()
	}
	if res.SessionPath != "" {
		lc.artifact(res.SessionPath, "session")
	}
	if res.SkillPath != "" {
		lc.artifact(res.SkillPath, "skill")
		lc.artifact(res.ScriptPath, "script")
	}
	lc.end(res.Success, msg, res.SessionPath)
	return AgentResult{RunResult: res, RunID: lc.id, Replayed: replayed}, err
}

func (s *Service) agent(ctx context.Context, lc *lifecycle, o AgentOptions) (engine.RunResult, *ReplayedSkill, error) {
	e, err := lc.engine(engineOptions{persist: true, model: true, profile: o.Model})
	if err != nil {
		return engine.RunResult{}, nil, err
	}
	sess, err := lc.session(ctx, e, engine.SessionOptions{Task: o.Task, Persist: true})
	if err != nil {
		return engine.RunResult{}, nil, err
	}
	if err := lc.ready(sess); err != nil {
		return sess.Finish(false, err.Error()), nil, err
	}
	if o.HumanAuthFor != nil {
		ask, err := o.HumanAuthFor(ctx, sess)
		if err != nil {
			return sess.Finish(false, err.Error()), nil, err
		}
		if ask != nil {
			o.HumanAuth = ask
		}
	}
	if !o.ReplayFirst {
		res, err := s.agentLoop(ctx, lc, sess, o, nil)
		return res, nil, err
	}
	rs, matched, err := lc.replayFirst(ctx, sess, o.Task)
	switch {
	case !matched:
		res, err := s.agentLoop(ctx, lc, sess, o, nil)
		return res, nil, err
	case err != nil:
		return sess.Finish(false, orText(msgOf(ctx, err), err.Error())), &rs, err
	case rs.Error == "":
		return sess.Finish(true, fmt.Sprintf("Replayed the learned skill %s (%s): %d step(s) passed, no model calls.", rs.Name, rs.Location, rs.Passed)), &rs, nil
	}
	// The replay stopped: the model takes the task from the screen it left.
	// What it does from there is only the rest of the task: learned, it
	// would replace the whole skill (same task) with that rest, so it is
	// not learned (`agent --no-replay` learns the task afresh).
	res, err := s.agentLoop(ctx, lc, sess, o, rs.handOver())
	return res, &rs, err
}

// msgOf is the final message of a run stopped by err ("" to use err's).
func msgOf(ctx context.Context, err error) string {
	if errors.Is(err, context.Canceled) || ctx.Err() != nil {
		return agent.CancelledMessage
	}
	return ""
}

// agentLoop runs the model's loop on sess and learns from a success of a
// run the model did from its start (no history).
func (s *Service) agentLoop(ctx context.Context, lc *lifecycle, sess *engine.Session, o AgentOptions, history []prompt.HistoryEntry) (engine.RunResult, error) {
	cfg := s.cfg
	files := []prompt.ContextFile{} // none: do not fall back to reading them again
	if cfg.ContextFiles != nil {
		files = append(files, cfg.ContextFiles(cfg.Agent.ContextBudgetChars)...)
	}
	maxSteps := cfg.Agent.MaxSteps
	if o.MaxSteps > 0 {
		maxSteps = o.MaxSteps
	}
	maxTokens := cfg.Agent.MaxTokens
	if o.MaxTokens > 0 {
		maxTokens = o.MaxTokens
	}
	res, err := agent.Run(ctx, sess, agent.Options{
		Registry:           agent.Registry(lc.modules()...),
		Skills:             cfg.Skills.Index(0),
		MaxSteps:           maxSteps,
		SystemPromptMode:   cfg.Agent.SystemPromptMode,
		ReturnHome:         cfg.Agent.ReturnHome,
		LoopDelay:          cfg.Agent.LoopDelay,
		ContextFiles:       files,
		ContextBudgetChars: cfg.Agent.ContextBudgetChars,
		Stdin:              o.Stdin,
		Stdout:             o.Stdout,
		HumanAuth:          lc.humanAuth(o),
		UserInput:          o.UserInput,
		Schedule:           o.Schedule,
		Probe:              cfg.Agent.Probe,
		StuckAfter:         cfg.Agent.StuckAfter,
		MaxTokens:          maxTokens,
		History:            history,
	})
	if res.Success && cfg.Agent.AutoArtifacts && cfg.WorkspaceDir != "" && len(history) == 0 {
		// What worked becomes a skill and a replay script; failing to write
		// them does not fail the run.
		// The skill is named and described after the user's task, not an
		// internal prompt (a replay's fallback hand-over).
		task := o.SkillTask
		if task == "" {
			task = o.Task
		}
		a, werr := skills.Write(skills.ArtifactOptions{Workspace: cfg.WorkspaceDir, Task: task, SessionPath: res.SessionPath, Steps: sess.Trace(), Now: time.Now()})
		res.Replaced = a.Removed
		switch {
		case errors.Is(werr, skills.ErrNothingToLearn):
		case werr != nil:
			cfg.Logger.Warn("auto artifacts not written", "err", werr)
		default:
			res.SkillPath, res.ScriptPath = a.SkillPath, a.ScriptPath
		}
	}
	return res, err
}

// humanAuth wraps the run's human-auth answerer so every request and its
// decision are events. The terminal fallback of agent.Run (Stdin is a TTY)
// is kept by resolving it here.
func (lc *lifecycle) humanAuth(o AgentOptions) HumanAuthFunc {
	ask := o.HumanAuth
	if ask == nil {
		if o.Stdin == nil || !agent.IsTerminal(o.Stdin) {
			ask = func(context.Context, HumanAuthRequest) (HumanAuthDecision, error) {
				return HumanAuthDecision{}, ErrHumanAuthUnavailable
			}
		} else {
			ask = agent.TerminalAuth(o.Stdin, o.Stdout)
		}
	}
	return func(ctx context.Context, req HumanAuthRequest) (HumanAuthDecision, error) {
		info := HumanAuthInfo{ID: req.ID, Capability: req.Capability, Instruction: req.Instruction, Timeout: req.Timeout}
		asked := info
		lc.emit(Event{Kind: KindHumanAuth, HumanAuth: &asked})
		d, err := ask(ctx, req)
		answered := info
		answered.Answered, answered.Status = true, d.Status
		if err != nil {
			answered.Status = "unavailable"
		}
		lc.emit(Event{Kind: KindHumanAuth, HumanAuth: &answered})
		return d, err
	}
}
