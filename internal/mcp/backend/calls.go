package backend

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine"
	enginedevice "github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/atomicfile"
	"github.com/openpocket/openpocket/internal/mcp"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/internal/workspace"
	"github.com/openpocket/openpocket/playbooks"
)

var _ mcp.Runner = (*Backend)(nil)

// Phone opens device ("" = the default) for direct use through the run
// service, its lease held until release. The phone is the same from call
// to call (see the package doc); the lease is not kept in between.
func (b *Backend) Phone(ctx context.Context, device string) (*enginedevice.Phone, func(), error) {
	leave, err := b.enter(ctx, device)
	if err != nil {
		return nil, nil, err
	}
	// The service targets device, so the service's default target.
	phone, releasePhone, err := b.directService(device).Phone(ctx, run.Target{}, 0)
	if err != nil {
		leave()
		return nil, nil, err
	}
	return phone, sync.OnceFunc(func() {
		releasePhone()
		leave()
	}), nil
}

// RunLua runs src (named chunk) through the run service: a sandboxed VM
// bound to a fresh session on device, args as arg[1..n], stopped after
// timeout (0 = only ctx). output holds what the script printed.
func (b *Backend) RunLua(ctx context.Context, device, chunk string, src []byte, args []string, timeout time.Duration) (string, error) {
	svc, _, release, err := b.call(ctx, device)
	if err != nil {
		return "", err
	}
	defer release()
	var mu sync.Mutex
	var out strings.Builder
	_, runErr := svc.Script(ctx, run.ScriptOptions{Name: chunk, Source: src, Args: args, Timeout: timeout,
		Print: func(line string) {
			mu.Lock()
			defer mu.Unlock()
			out.WriteString(line)
			out.WriteByte('\n')
		}})
	mu.Lock()
	defer mu.Unlock()
	return out.String(), runErr
}

// Play runs one playbook — file (relative to the workspace), or inline
// YAML written to HOME/state/mcp first — with params, and returns its
// report (status, steps, output directory with log.txt and steps.json,
// artifacts). The playbook and its includes are read inside the
// workspace only: a client names them, and a compile error must never
// quote a file outside.
func (b *Backend) Play(ctx context.Context, device, file string, yaml []byte, params map[string]string, timeout time.Duration, onStep func(done int, label string)) (any, error) {
	svc, _, release, err := b.call(ctx, device)
	if err != nil {
		return nil, err
	}
	defer release()
	h := b.env.Home
	if file != "" && !filepath.IsAbs(file) {
		file = filepath.Join(h.Workspace(), file)
	}
	if file == "" {
		if file, err = b.inlinePlaybook(yaml); err != nil {
			return nil, err
		}
	}
	var res *playbooks.Result
	if len(yaml) > 0 {
		res, err = run.CompilePlaybookSourceIn(h.Workspace(), file, yaml, params, false)
	} else {
		res, err = run.CompilePlaybookIn(h.Workspace(), file, params, false)
	}
	if res != nil {
		for _, w := range res.Warnings {
			fmt.Fprintf(b.env.Warn, "warning: %s\n", w)
		}
	}
	if err != nil {
		return nil, err
	}
	o := run.PlaybookOptions{File: file, Compiled: res, OutputDir: filepath.Join(h.State(), "runs"), Timeout: timeout}
	if onStep != nil {
		o.Events = func(ev run.Event) {
			if ev.Progress != nil {
				onStep(ev.Progress.Done, ev.Progress.Label)
			}
		}
	}
	fr, _ := svc.Playbook(ctx, o)
	return fr, nil
}

// inlinePlaybook writes an inline playbook under HOME/state/mcp, where its
// run finds it again (reports name it).
func (b *Backend) inlinePlaybook(yaml []byte) (string, error) {
	dir := filepath.Join(b.env.Home.State(), "mcp")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	file := filepath.Join(dir, "inline-"+time.Now().UTC().Format("20060102-150405.000000000")+".yaml")
	return file, atomicfile.WriteFile(file, yaml, 0o644)
}

// Skills lists the skills (bundled, home, workspace) with whether each
// has a replay script.
func (b *Backend) Skills(ctx context.Context) (any, error) {
	h := b.env.Home
	entries, _ := (&skills.Loader{HomeDir: h.Dir(), WorkspaceDir: h.Workspace()}).Entries()
	return entries, nil
}

// RunSkill replays a skill (name, or a skill or script file inside the
// workspace) on device without a model.
func (b *Backend) RunSkill(ctx context.Context, device, name string, params map[string]string) (engine.RunResult, error) {
	svc, deviceErr, release, err := b.call(ctx, device)
	if err != nil {
		return engine.RunResult{}, err
	}
	defer release()
	res, err := svc.ReplaySkill(ctx, run.SkillRun{Name: name, Root: b.env.Home.Workspace(), Params: params})
	if first := deviceErr(); err == nil && !res.Success && first != nil {
		err = first
	}
	return res, err
}

// Agent runs a task with OpenPocket's agent on device; a learned skill
// matching the task is replayed first (agent.replayFirst, unless the call
// says no_replay). The session is persisted.
func (b *Backend) Agent(ctx context.Context, a mcp.AgentCall) (engine.RunResult, error) {
	svc, _, release, err := b.call(ctx, a.Device)
	if err != nil {
		return engine.RunResult{}, err
	}
	defer release()
	hc := b.env.Config.HumanAuth
	o := run.AgentOptions{Task: a.Task, Model: a.Model, MaxSteps: a.MaxSteps,
		ReplayFirst: !a.NoReplay && svc.Config().Agent.ReplayFirst,
		HumanAuthFor: func(ctx context.Context, sess *engine.Session) (run.HumanAuthFunc, error) {
			return b.env.Port.HumanAuthFor(ctx, hc, sess)
		}}
	if a.OnEvent != nil {
		o.Events = func(ev run.Event) { a.OnEvent(engine.Event{Kind: string(ev.Kind), Fields: ev.Fields}) }
	}
	res, err := svc.Agent(ctx, o)
	return res.RunResult, err
}

// SessionsList lists recorded sessions, newest first (limit 0 = all).
func (b *Backend) SessionsList(ctx context.Context, limit int) (any, error) {
	return b.env.Home.SessionSummaries(limit, nil)
}

// sessionIDPattern is what a session id looks like; anything else (a
// path) is refused, so a client cannot read files through session_get.
var sessionIDPattern = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z_-]*$`)

// SessionGet returns one session's markdown by id (as listed) or
// "latest".
func (b *Backend) SessionGet(ctx context.Context, id string) (string, error) {
	if id != "latest" && !sessionIDPattern.MatchString(id) {
		return "", fmt.Errorf("session id %q: expected an id as sessions_list shows (YYYYMMDD-HHMMSS) or \"latest\"", id)
	}
	h := b.env.Home
	path, err := workspace.FindSession(h.SessionsDir(), id)
	if err != nil {
		return "", err
	}
	data, err := h.ReadSessionFile(path)
	if err != nil {
		return "", fmt.Errorf("session %s: %w", id, err)
	}
	return string(data), nil
}
