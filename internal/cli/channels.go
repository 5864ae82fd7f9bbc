package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/hostfs"
	"github.com/openpocket/openpocket/engine/prompt"
	"github.com/openpocket/openpocket/internal/gwenv"
	"github.com/openpocket/openpocket/internal/lease"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// ChannelRunner runs chat channels' work on the gateway's run service;
// its method set is internal/channel's Runner.
type ChannelRunner struct {
	// f is the command's factory (global device flags, devices, logger),
	// home the gateway's agent home, auth its human-auth helper (relay);
	// all read only.
	f    services
	home *workspace.Home
	auth *HumanAuth
	// current holds the gateway's current run service (and the config it
	// was built from) for one piece of work.
	current gwenv.Current

	links sync.Map // human-auth request id → relay link
}

// RunTask runs an agent task on the default device; auth asks the person
// in the chat (raced with the relay when humanAuth.enabled).
// replyTo ("telegram:4242") is where jobs the model schedules deliver;
// ask answers request_user_input.
func (r *ChannelRunner) RunTask(ctx context.Context, task, replyTo string, onEvent func(engine.Event), auth agent.HumanAuthFunc, ask agent.UserInputFunc) (engine.RunResult, error) {
	svc, cfg, done := r.current()
	defer done()
	target, release, err := claimDefault(ctx, svc)
	if err != nil {
		return engine.RunResult{Message: err.Error()}, err
	}
	defer release()
	jt := jobsTarget{jobsPath: r.jobsPath(cfg), workspace: r.home.Workspace(), stateDir: r.home.State()}
	env := agentEnv{svc: svc, target: target, humanAuth: cfg.HumanAuth,
		schedule: func(ctx context.Context, act action.Action, replyTo string) (string, error) {
			return scheduleAt(ctx, jt, act, replyTo)
		}}
	return agentOn(ctx, r.auth, env, task, agentRunOptions{OnEvent: chatReplaySteps(onEvent), Ask: auth, ReplyTo: replyTo, UserInput: ask,
		ReplayFirst: cfg.Agent.ReplayFirst, OnAuthLink: func(id, url string) { r.links.Store(id, url) }})
}

// chatReplaySteps narrates a task's replay-first attempt in the chat as
// /skill narrates a replay: each top-level step the replay ends becomes a
// channel.ReplayStep event (the model's steps arrive as agent_step), so
// the status message moves while a learned task replays.
func chatReplaySteps(onEvent func(engine.Event)) func(engine.Event) {
	if onEvent == nil {
		return nil
	}
	var (
		mu        sync.Mutex
		replaying bool
		done      int
	)
	return func(ev engine.Event) {
		mu.Lock()
		switch {
		case ev.Kind == string(run.KindReplayFirst):
			replaying = ev.Fields["status"] == "started"
		case replaying && ev.Kind == string(run.KindStepEnd) && ev.Int("depth") == 0:
			done++
			ev = engine.Event{Kind: replayStepKind, Fields: map[string]any{"step": done, "action": ev.Fields["label"]}}
		}
		mu.Unlock()
		onEvent(ev)
	}
}

// jobsPath is the jobs file cfg names.
func (r *ChannelRunner) jobsPath(cfg workspace.Config) string {
	return r.home.Resolve(cfg.Cron.JobsFile)
}

// Schedule runs a cron_add/cron_list/cron_remove the chat assistant's
// model chose; added jobs deliver to replyTo.
func (r *ChannelRunner) Schedule(ctx context.Context, act action.Action, replyTo string) (string, error) {
	_, cfg, done := r.current()
	defer done()
	return scheduleAt(ctx, jobsTarget{jobsPath: r.jobsPath(cfg), workspace: r.home.Workspace(), stateDir: r.home.State()}, act, replyTo)
}

// RelayLink is the relay page of a pending human-auth request ("" when
// the relay is off or the request unknown).
func (r *ChannelRunner) RelayLink(id string) string {
	if v, ok := r.links.Load(id); ok {
		return v.(string)
	}
	return ""
}

// Converse asks the default model profile as the chat assistant; the
// workspace's context files (USER.md, MEMORY.md, …) join the system prompt
// so it answers from memory too.
func (r *ChannelRunner) Converse(ctx context.Context, req engine.ModelRequest) (text, tool, arguments string, err error) {
	_, cfg, done := r.current()
	defer done()
	h := r.home
	client, err := r.f.asm.Model(r.f.logger, h, cfg, "")
	if err != nil {
		return "", "", "", err
	}
	var b strings.Builder
	b.WriteString(req.System)
	for _, f := range h.ContextFiles(cfg.Agent.ContextBudgetChars) {
		fmt.Fprintf(&b, "\n\n## %s\n\n%s", f.Name, f.Content)
	}
	req.System = b.String()
	rep, err := client.Converse(ctx, req)
	return rep.Text, rep.Tool, rep.Arguments, err
}

// Skills lists the skills of the home and workspace (and bundled ones).
func (r *ChannelRunner) Skills(ctx context.Context) ([]prompt.Skill, error) {
	svc, _, done := r.current()
	defer done()
	return svc.Config().Skills.Index(0), nil
}

// replayStepKind is channel.ReplayStep: the CLI, a front end, does not
// import the channel package (TestChannelReplayReportsItsSteps pins it).
const replayStepKind = "replay_step"

// ReplaySkill replays a skill without a model on the default device;
// onEvent sees a channel.ReplayStep event as each top-level step ends.
func (r *ChannelRunner) ReplaySkill(ctx context.Context, name string, params []string, onEvent func(engine.Event)) (engine.RunResult, error) {
	svc, _, done := r.current()
	defer done()
	target, release, err := claimDefault(ctx, svc)
	if err != nil {
		return engine.RunResult{Message: err.Error()}, err
	}
	defer release()
	var events func(run.Event)
	if onEvent != nil {
		events = func(ev run.Event) {
			if ev.Progress != nil {
				onEvent(engine.Event{Kind: replayStepKind, Fields: map[string]any{"step": ev.Progress.Done, "action": ev.Progress.Label}})
			}
		}
	}
	return skillOn(ctx, svc, target, name, params, events)
}

// claimDefault claims the default device on svc before a chat's run, so a
// phone another process drives refuses the run up front (busy) instead of
// failing it midway. Other device problems are left for the run to
// report (its target is then the default, unclaimed). release gives back
// a claim no run adopted.
func claimDefault(ctx context.Context, svc *run.Service) (run.Target, func(), error) {
	c, err := svc.Claim(ctx, run.Target{})
	if errors.Is(err, lease.ErrBusy) {
		return run.Target{}, nil, err
	}
	if err != nil {
		return run.Target{}, func() {}, nil
	}
	return c.Target(), c.Release, nil
}

// Onboarded reports whether workspace-state.json has onboardingCompletedAt.
func (r *ChannelRunner) Onboarded(ctx context.Context) (bool, error) {
	st, err := r.home.ReadWorkspaceState()
	if err != nil {
		return false, err
	}
	return st.OnboardingCompletedAt != nil, nil
}

// CompleteOnboarding adds the person's name to USER.md (a context file
// every run and the chat assistant read) and marks onboarding complete.
func (r *ChannelRunner) CompleteOnboarding(ctx context.Context, name string) error {
	h := r.home
	p := filepath.Join(h.Workspace(), "USER.md")
	// USER.md is in the workspace: read and written through hostfs, so a
	// link the model put there neither copies a secret into the workspace
	// nor carries the write out.
	old, err := hostfs.ReadFile(h.Workspace(), p, 0)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	text := string(old)
	if text == "" {
		text = "# User\n"
	}
	text = strings.TrimRight(text, "\n") + "\n\n- Call the user: " + name + "\n"
	if err := hostfs.WriteFile(h.Workspace(), p, []byte(text), 0o644); err != nil {
		return err
	}
	return h.MarkOnboardingCompleted(time.Now())
}

// Target is the default device's serial as the resolver chooses it
// ("" = the only attached one).
func (r *ChannelRunner) Target() string {
	g, phones := r.f.g, r.f.phones
	_, cfg, done := r.current()
	defer done()
	name := phones.chosenName(g.agentID(), cfg.Target)
	if s := phones.virtual(); s != nil && name == s.Serial() {
		return name + " (virtual phone)"
	}
	return name
}

// Screenshot captures the default device's screen as PNG: the device the
// resolver chooses for the agent, as its tasks do.
func (r *ChannelRunner) Screenshot(ctx context.Context) ([]byte, error) {
	_, cfg, done := r.current()
	defer done()
	// No device lease: a screenshot only reads the screen, so /screen
	// works while a task drives the phone.
	d, _, err := r.f.phones.openChosen(ctx, r.f.g.agentID(), cfg.Target)
	if err != nil {
		return nil, err
	}
	return device.NewPhone(d, r.f.asm.PhoneOptions(cfg)).Screencap(ctx)
}
