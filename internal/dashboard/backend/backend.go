// Package backend implements the dashboard's Manager and Agent ports
// (internal/dashboard) over an install: agents' summaries from their config,
// binding, gateway lock and fleet; screens and actions through each agent's
// run services (opened by the CLI, handed over as dashenv.AgentRuntime);
// sessions, screenshots, cron jobs, skills and human-auth requests from the
// agent's files. The pages never touch files, adb or the engine; this
// package does, and never selects devices or takes leases itself.
package backend

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/dashboard"
	"github.com/openpocket/openpocket/internal/dashenv"
	"github.com/openpocket/openpocket/internal/fleet"
	"github.com/openpocket/openpocket/internal/humanauth"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/internal/workspace"
)

// Manager implements dashboard.Manager over an install. It keeps each
// agent it opens until Close.
type Manager struct {
	in      *workspace.Install
	only    string
	runtime dashenv.Opener
	mu      sync.Mutex
	open    map[string]*dashenv.AgentRuntime
	// fleets are the Redis clients of the fleets the agents join, one per
	// URL and host name (fleetview.go).
	fleets map[string]*fleet.Fleet
}

// New is the manager of install in, opening agents with runtime; only,
// when set, limits it to that agent (a gateway serving its own agent's
// dashboard).
func New(in *workspace.Install, only string, runtime dashenv.Opener) *Manager {
	return &Manager{in: in, only: only, runtime: runtime, open: map[string]*dashenv.AgentRuntime{}}
}

// Close closes every agent runtime the manager opened.
func (m *Manager) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, rt := range m.open {
		rt.Close()
	}
	for _, fl := range m.fleets {
		fl.Close()
	}
	m.fleets = nil
}

func (m *Manager) Agents(ctx context.Context) ([]dashboard.AgentSummary, error) {
	list, err := m.in.Agents()
	if err != nil {
		return nil, err
	}
	out := make([]dashboard.AgentSummary, 0, len(list))
	for _, info := range list {
		if m.only != "" && info.ID != m.only {
			continue
		}
		out = append(out, m.summary(info.ID, info.Dir))
	}
	return out, nil
}

func (m *Manager) summary(id, dir string) dashboard.AgentSummary {
	s := dashboard.AgentSummary{ID: id, Dir: dir, Gateway: "stopped"}
	cfg, _, err := workspace.LoadConfigWarnings(filepath.Join(dir, "config.json"))
	if errors.Is(err, fs.ErrNotExist) {
		cfg, err = workspace.DefaultConfig(), nil // no init yet: the defaults a run would use
	}
	if err == nil {
		s.TargetType = cfg.Target.Type
		s.Fleet, s.FleetPaused = m.fleetView(cfg)
		if tg := cfg.Channels.Telegram; tg.Enabled {
			s.Channels = append(s.Channels, fmt.Sprintf("telegram (%d users, %d chats allowed)", len(tg.AllowedUserIDs), len(tg.AllowedChatIDs)))
		}
	}
	if b, ok, err := m.in.Binding(id); err == nil && ok {
		s.Binding = b.Fingerprint()
	}
	if l, ok := cron.GatewayRunning(filepath.Join(dir, "state")); ok {
		s.Gateway, s.GatewayRunning = fmt.Sprintf("running (pid %d, since %s)", l.PID, l.StartedAt), true
	}
	return s
}

func (m *Manager) Agent(id string) (dashboard.Agent, error) {
	ok, err := m.in.Exists(id)
	if err != nil || !ok || m.only != "" && id != m.only {
		return nil, fmt.Errorf("%w: %q", dashboard.ErrNoAgent, id)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	rt := m.open[id]
	if rt == nil {
		if rt, err = m.runtime(id); err != nil {
			return nil, err
		}
		m.open[id] = rt
	}
	return &agent{m: m, rt: rt}, nil
}

// agent implements dashboard.Agent over one agent's runtime.
type agent struct {
	m  *Manager
	rt *dashenv.AgentRuntime
}

func (a *agent) Summary(ctx context.Context) (dashboard.AgentSummary, error) {
	return a.m.summary(a.rt.ID, a.rt.Home.Dir()), nil
}

func (a *agent) Screen(ctx context.Context) (dashboard.Screen, error) {
	snap, err := a.rt.View.Snapshot(ctx, run.SnapshotOptions{Capture: device.CaptureOptions{Scaled: true, SOM: true, NoCache: true}})
	if err != nil {
		return dashboard.Screen{}, err
	}
	png := snap.SOMScreenshot
	if len(png) == 0 {
		png = snap.Screenshot
	}
	return dashboard.Screen{PNG: png, Width: snap.Width, Height: snap.Height, CurrentApp: snap.CurrentApp}, nil
}

func (a *agent) Act(ctx context.Context, actionJSON string) error {
	act, _, err := action.Parse([]byte(actionJSON), action.Defaults{})
	if err != nil {
		return err
	}
	_, err = a.rt.Drive.Act(ctx, run.ActOptions{Action: act})
	return err
}

// sessionID keeps ids to what session files are named with.
var sessionID = regexp.MustCompile(`^[0-9]{8}-[0-9]{6}(-[0-9]+)?$`)

func (a *agent) sessionsDir() string { return filepath.Join(a.rt.Home.Workspace(), "sessions") }

func (a *agent) Sessions() ([]dashboard.SessionInfo, error) {
	files, err := filepath.Glob(filepath.Join(a.sessionsDir(), "session-*.md"))
	if err != nil {
		return nil, err
	}
	sort.Sort(sort.Reverse(sort.StringSlice(files))) // newest first
	var out []dashboard.SessionInfo
	for _, f := range files {
		id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "session-"), ".md")
		data, err := a.rt.Home.ReadSessionFile(f)
		if err != nil {
			continue
		}
		out = append(out, sessionInfo(id, string(data)))
	}
	return out, nil
}

// sessionInfo reads the task and the final status of a session file.
func sessionInfo(id, md string) dashboard.SessionInfo {
	si := dashboard.SessionInfo{ID: id, Running: !strings.Contains(md, "\n## Final\n")}
	if _, rest, ok := strings.Cut(md, "\n## Task\n\n"); ok {
		si.Task, _, _ = strings.Cut(rest, "\n")
	}
	if _, rest, ok := strings.Cut(md, "\n- status: "); ok {
		si.Status, _, _ = strings.Cut(rest, "\n")
	}
	return si
}

func (a *agent) SessionMarkdown(id string) (string, error) {
	if !sessionID.MatchString(id) {
		return "", fmt.Errorf("session %q: expected an id like 20260222-030000", id)
	}
	data, err := a.rt.Home.ReadSessionFile(filepath.Join(a.sessionsDir(), "session-"+id+".md"))
	return string(data), err
}

func (a *agent) SessionScreenshots(id string) (map[int]string, error) {
	if !sessionID.MatchString(id) {
		return nil, fmt.Errorf("session %q: expected an id like 20260222-030000", id)
	}
	files, err := filepath.Glob(filepath.Join(a.rt.Home.ScreenshotsDir(), "*-session-"+id+"-step-*.png"))
	if err != nil {
		return nil, err
	}
	shots := map[int]string{}
	for _, f := range files {
		name := filepath.Base(f)
		_, rest, _ := strings.Cut(name, "-session-"+id+"-step-")
		n, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
		if err == nil {
			shots[n] = name
		}
	}
	return shots, nil
}

func (a *agent) Screenshot(name string) ([]byte, error) {
	if name != filepath.Base(name) || !strings.HasSuffix(name, ".png") || strings.HasPrefix(name, ".") {
		return nil, fmt.Errorf("screenshot %q: expected a PNG name", name)
	}
	root, err := os.OpenRoot(a.rt.Home.ScreenshotsDir())
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.ReadFile(name)
}

func (a *agent) Jobs() ([]dashboard.Job, error) {
	f, _, err := cron.LoadJobs(a.rt.Home.JobsPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []dashboard.Job
	for _, j := range f.Jobs {
		out = append(out, dashboard.Job{ID: j.ID, Name: j.Name, Enabled: j.Enabled, Schedule: scheduleText(j.Schedule), Payload: payloadText(j.Payload)})
	}
	return out, nil
}

func scheduleText(s cron.Schedule) string {
	switch {
	case s.SummaryText != "":
		return s.SummaryText
	case s.Kind == "cron":
		return "cron " + s.Expr
	case s.Kind == "at":
		return "at " + s.At
	default:
		return fmt.Sprintf("every %dms", s.EveryMs)
	}
}

func payloadText(p cron.Payload) string {
	if p.Task != "" {
		return p.Kind + ": " + p.Task
	}
	return p.Kind + ": " + p.Path
}

func (a *agent) SetJobEnabled(id string, enabled bool) error {
	return cron.UpdateJobs(a.rt.Home.JobsPath(), func(f *cron.JobsFile) error {
		for i := range f.Jobs {
			if f.Jobs[i].ID == id {
				f.Jobs[i].Enabled = enabled
				return nil
			}
		}
		return fmt.Errorf("no job %q", id)
	})
}

func (a *agent) RunJob(ctx context.Context, id string) (string, error) { return a.rt.RunJob(ctx, id) }

func (a *agent) Device(ctx context.Context) (string, error) { return a.rt.Device(ctx) }

func (a *agent) loader() *skills.Loader {
	return &skills.Loader{HomeDir: a.rt.Home.Dir(), WorkspaceDir: a.rt.Home.Workspace()}
}

func (a *agent) Skills() ([]dashboard.Skill, error) {
	list, _ := a.loader().Load() // a broken skill file is skills validate's to report
	out := make([]dashboard.Skill, 0, len(list))
	for _, s := range list {
		out = append(out, dashboard.Skill{Name: s.Name, Description: s.Description, Location: s.Location})
	}
	return out, nil
}

func (a *agent) SkillText(name string) (string, error) {
	s, err := a.loader().Find(name)
	if err != nil {
		return "", err
	}
	return s.Body, nil
}

func (a *agent) ReplaySkill(ctx context.Context, name string) (string, error) {
	if _, err := a.loader().Find(name); err != nil {
		return "", err
	}
	return a.rt.ReplaySkill(ctx, name)
}

// HumanAuth lists the agent's pending human-auth requests. Their links
// carry a token kept only in the request's notification, so none is made
// here: the page names the request and the auth command instead.
func (a *agent) HumanAuth() ([]dashboard.HumanAuthLink, error) {
	pending, err := humanauth.Open(a.rt.Home.State()).List()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	var out []dashboard.HumanAuthLink
	for _, p := range pending {
		if !p.Expired(now) {
			out = append(out, dashboard.HumanAuthLink{ID: p.ID, Capability: p.Capability, Instruction: p.Instruction,
				Task: p.Task, Expires: p.ExpiresAt, AgentID: p.AgentID, Title: templateText(p, "title"),
				Summary: templateText(p, "summary"), Fields: humanauth.FormFields(p)})
		}
	}
	return out, nil
}

// DecideHumanAuth answers a pending request from the agent page, as
// `openpocket auth approve|reject` does (the first answer wins).
func (a *agent) DecideHumanAuth(id string, approve bool, text string) error {
	s := humanauth.Open(a.rt.Home.State())
	p, err := s.Get(id)
	if err != nil {
		return err
	}
	if p.Expired(time.Now()) {
		return fmt.Errorf("request %s has expired", id)
	}
	if f := humanauth.FormFields(p); approve && len(f) > 0 {
		return fmt.Errorf("request %s asks for %s: answer it on its relay page", id, strings.Join(f, ", "))
	}
	d := humanauth.Decision{Status: "rejected", Message: "the user rejected the request (dashboard)", By: "dashboard"}
	if approve {
		d = humanauth.Decision{Status: "approved", Message: "the user approved (dashboard)", By: "dashboard", Text: text}
		if text != "" {
			if d.Artifact, err = s.SaveJSON(id, p.Capability, map[string]any{"kind": humanauth.TextKind(p.Capability), "value": text}); err != nil {
				return err
			}
			d.Message += " and provided text"
		}
	}
	return s.Decide(id, d)
}

// templateText is a string key of the request's uiTemplate ("" if none).
func templateText(p humanauth.Pending, key string) string {
	s, _ := p.UITemplate[key].(string)
	return strings.TrimSpace(s)
}
