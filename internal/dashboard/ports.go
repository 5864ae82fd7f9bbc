// Package dashboard serves the web dashboards of an install (docs/agents.md):
// the manager page (every agent, its target binding, channels, gateway
// state, links) and each agent's page (gateway state, bound target, the
// live screen with element marks — click to tap, type, back/home —, the
// running task's steps as they happen, sessions with their step
// screenshots, pending human-auth links, cron jobs, skills).
//
// Pages are server-rendered with html/template; forms POST without
// JavaScript (a click on the screen is an <input type=image>, whose click
// coordinates the form sends), and a few lines of script only refresh the
// screen and the steps. The server binds to loopback by default and asks
// for the install's token otherwise. What it shows and does comes through
// the Manager and Agent ports, implemented by the composition root over
// the workspace and the run service: this package never touches files,
// adb or the engine itself.
package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// AgentSummary is one agent as the manager page lists it.
type AgentSummary struct {
	ID  string
	Dir string
	// TargetType is config's target.type; Binding the bound target's
	// fingerprint ("" when not bound).
	TargetType string
	Binding    string
	// Gateway says whether the agent's gateway runs ("running (pid 12)").
	Gateway        string
	GatewayRunning bool
	// Channels are the agent's configured chat channels.
	Channels []string
	// Fleet, when the agent's gateway joins a fleet (docs/fleet.md), is
	// one line per host (alive or gone, last heartbeat, phones and their
	// jobs); FleetPaused says Redis does not answer (fleet jobs paused).
	Fleet       []string
	FleetPaused bool
}

// Screen is one capture of the agent's device: the screenshot with the
// element marks drawn on it, and the sizes to map a click to the device.
type Screen struct {
	// PNG is the encoded image (PNG, or JPEG when the capture is one).
	PNG []byte
	// Width, Height are the device's screen in pixels.
	Width, Height int
	CurrentApp    string
}

// SessionInfo is one recorded session.
type SessionInfo struct {
	ID      string
	Task    string
	Running bool // not finalized yet
	Status  string
}

// Job is one cron job.
type Job struct {
	ID, Name, Schedule, Payload string
	Enabled                     bool
}

// Skill is one skill of the agent.
type Skill struct {
	Name, Description, Location string
}

// HumanAuthLink is a pending human-auth request. URL is where a person
// answers it when known; the relay's links carry a token only the
// request's own notification holds, so it is often empty.
type HumanAuthLink struct {
	ID, Capability, Instruction, URL string
	// Task is the task of the run that asks; Expires when the request
	// stops waiting.
	Task    string
	Expires time.Time
	// AgentID is the agent that asks; Title and Summary the request
	// template's heading and summary line, as its relay page shows them.
	AgentID, Title, Summary string
	// Fields are the labels of the template's form fields (credentials,
	// a card, several values): such a request is answered on its relay
	// page, never with the dashboard's single text box, which would type
	// a secret into whatever field is focused.
	Fields []string
}

// Left is the time left to answer at now, for the page ("4 min 10 s").
func (l HumanAuthLink) Left(now time.Time) string {
	d := l.Expires.Sub(now).Round(time.Second)
	if l.Expires.IsZero() || d <= 0 {
		return ""
	}
	return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
}

// Agent is what an agent page shows and does.
type Agent interface {
	Summary(ctx context.Context) (AgentSummary, error)
	// Screen captures the device now.
	Screen(ctx context.Context) (Screen, error)
	// Device names the device the agent drives, or says why there is
	// none (several attached, none, not attached, bound elsewhere).
	Device(ctx context.Context) (string, error)
	// Act performs one device action given as JSON
	// ({"type":"tap","x":1,"y":2}, {"type":"keyevent","keycode":"KEYCODE_BACK"}).
	Act(ctx context.Context, actionJSON string) error
	Sessions() ([]SessionInfo, error)
	// SessionMarkdown is the session file; SessionScreenshots the names
	// of its step screenshots, by step.
	SessionMarkdown(id string) (string, error)
	SessionScreenshots(id string) (map[int]string, error)
	// Screenshot reads one step screenshot by name.
	Screenshot(name string) ([]byte, error)
	Jobs() ([]Job, error)
	SetJobEnabled(id string, enabled bool) error
	// RunJob runs the job now (in the agent's gateway when it runs) and
	// returns when it ended: the job's message, or an error saying why
	// it failed.
	RunJob(ctx context.Context, id string) (string, error)
	Skills() ([]Skill, error)
	// SkillText is the skill's markdown.
	SkillText(name string) (string, error)
	// ReplaySkill replays the skill now and returns when it ended, as
	// RunJob.
	ReplaySkill(ctx context.Context, name string) (string, error)
	HumanAuth() ([]HumanAuthLink, error)
	// DecideHumanAuth answers a pending request (approve, with an optional
	// text typed into the focused field, or reject); the first answer
	// wins, as on the relay page.
	DecideHumanAuth(id string, approve bool, text string) error
}

// Manager is the install: its agents.
type Manager interface {
	Agents(ctx context.Context) ([]AgentSummary, error)
	// Agent opens one agent; an unknown id is an error wrapping
	// ErrNoAgent.
	Agent(id string) (Agent, error)
}

// Options configure the server.
type Options struct {
	// Token is asked for (?token= once, then a cookie) when not empty;
	// Serve sets it whenever the address is beyond loopback.
	Token string
	// Relay, when set, is the human-auth relay hub's handler: it gets
	// /a/<agentId>/auth/… (without the dashboard's token: each link
	// carries its own).
	Relay http.Handler
}
