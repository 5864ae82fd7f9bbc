package humanauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine/hostfs"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// DefaultTimeout is humanAuth.requestTimeoutSec's default.
const DefaultTimeout = 300 * time.Second

// pollEvery is how often a waiting run looks for a decision file.
const pollEvery = 100 * time.Millisecond

// Link is a new request's approval link, for printing and events.
type Link struct {
	Request Pending
	// URL carries the token: give it only to the person who decides.
	URL string
	// Page is URL without its token (for sessions).
	Page string
}

// Broker answers request_human_auth through the store; its Ask is an
// agent.HumanAuthFunc.
type Broker struct {
	Store *Store
	// AgentID is the /a/<agentId>/ segment of links ("default").
	AgentID string
	// BaseURL is the relay's address as the person reaches it
	// (humanAuth.publicBaseUrl or http://relayHost:relayPort).
	BaseURL string
	// MaxTimeout caps a request's timeoutSec (humanAuth.requestTimeoutSec).
	MaxTimeout time.Duration
	// Workspace is the root templatePath is read from.
	Workspace string
	// OnLink is told about each new link (print it, emit an event).
	OnLink func(Link)
	// Terminal, when set, asks at the same time; the first answer wins.
	Terminal agent.HumanAuthFunc
	// Lost, when set, is told the decision that came before the
	// Terminal's answer (the page, `openpocket auth`, the dashboard, the
	// timeout): the person at the terminal must not keep typing into a
	// question nobody reads any more.
	Lost func(id string, d Decision)
	// Delegate (humanAuth.mode "delegate") hands approved artifacts to the
	// model to apply instead of the runtime applying them.
	Delegate bool
	// Device returns the serial of the phone the run drives (nil or "":
	// none): the relay page shows its screen, and with Takeover a tap on
	// it drives the phone. It is asked when a request is made, by then
	// the run holds its phone.
	Device   func() string
	Takeover bool
}

var _ agent.HumanAuthFunc = (*Broker)(nil).Ask

// Ask creates the pending request, publishes its link and waits for the
// first decision or the timeout; the link is dead afterwards.
func (b *Broker) Ask(ctx context.Context, req agent.HumanAuthRequest) (agent.HumanAuthDecision, error) {
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if b.MaxTimeout > 0 && timeout > b.MaxTimeout {
		timeout = b.MaxTimeout
	}
	tmpl, err := b.template(req)
	if err != nil {
		return agent.HumanAuthDecision{}, err
	}
	agentID := b.AgentID
	if agentID == "" {
		agentID = "default"
	}
	token, hash := NewToken()
	now := time.Now().UTC()
	p := Pending{ID: req.ID, AgentID: agentID, Task: req.Task, Capability: req.Capability, Instruction: req.Instruction,
		Reason: req.Reason, UITemplate: tmpl, CreatedAt: now, ExpiresAt: now.Add(timeout), TokenHash: hash,
		Device: b.device()}
	p.Takeover = b.Takeover && p.Device != ""
	if err := b.Store.claim(p.ID, now); err != nil {
		return agent.HumanAuthDecision{}, err
	}
	if err := b.Store.Add(p); err != nil {
		return agent.HumanAuthDecision{}, err
	}
	defer b.Store.Close(p.ID)
	page := strings.TrimRight(b.BaseURL, "/") + "/a/" + agentID + "/auth/" + p.ID
	if b.OnLink != nil {
		b.OnLink(Link{Request: p, URL: page + "?t=" + token, Page: page})
	}

	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if b.Terminal != nil {
		go b.askTerminal(wctx, req, p.ID)
	}
	d, err := b.wait(wctx, p.ID)
	if err != nil {
		return agent.HumanAuthDecision{}, err
	}
	if b.Terminal != nil && b.Lost != nil && d.By != "terminal" {
		b.Lost(p.ID, d)
	}
	out := agent.HumanAuthDecision{Status: d.Status, Text: d.Text, Message: d.Message, Link: page, Delegate: b.Delegate}
	for _, f := range d.Fields {
		out.Fields = append(out.Fields, agent.HumanAuthField{Key: f.Key, Label: f.Label, Type: f.Type, Value: f.Value, Secret: f.Secret, Target: f.Target})
	}
	if a := d.Artifact; a != nil {
		out.Artifact = &agent.HumanAuthArtifact{Path: a.Path, Kind: a.Kind, MIME: a.MIME, Lat: a.Lat, Lon: a.Lon}
	}
	return out, nil
}

func (b *Broker) device() string {
	if b.Device == nil {
		return ""
	}
	return b.Device()
}

// wait polls for the decision file; at the deadline it records a timeout
// (unless an answer got in first) so the link is refused from then on.
func (b *Broker) wait(ctx context.Context, id string) (Decision, error) {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		if d, ok, err := b.Store.Decision(id); err != nil || ok {
			return d, err
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			if context.Cause(ctx) != context.DeadlineExceeded || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return Decision{}, ctx.Err()
			}
			err := b.Store.Decide(id, Decision{Status: "timeout", Message: "no answer before the timeout", By: "timeout"})
			if err != nil && !errors.Is(err, ErrDecided) {
				return Decision{}, err
			}
			d, _, err := b.Store.Decision(id)
			return d, err
		}
	}
}

// askTerminal asks on the terminal at the same time; its answer is
// recorded like any other, so only the first one counts.
func (b *Broker) askTerminal(ctx context.Context, req agent.HumanAuthRequest, id string) {
	d, err := b.Terminal(ctx, req)
	if err != nil || ctx.Err() != nil || d.Status == "timeout" {
		return
	}
	dec := Decision{Status: d.Status, Message: d.Message, Text: d.Text, By: "terminal"}
	if d.Status == "approved" && d.Text != "" {
		if a, err := b.Store.SaveJSON(id, req.Capability, map[string]any{"kind": TextKind(req.Capability), "value": d.Text}); err == nil {
			dec.Artifact = a
		}
	}
	b.Store.Decide(id, dec)
}

// template merges templatePath's JSON (read from the workspace only) with
// the inline uiTemplate, whose fields win.
func (b *Broker) template(req agent.HumanAuthRequest) (map[string]any, error) {
	if strings.TrimSpace(req.TemplatePath) == "" {
		return req.UITemplate, nil
	}
	data, err := readWorkspaceFile(b.Workspace, req.TemplatePath)
	if err != nil {
		return nil, fmt.Errorf("templatePath %q: %w", req.TemplatePath, err)
	}
	var t map[string]any
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("templatePath %q: expected a JSON object (a uiTemplate, docs/formats.md#actions): %w", req.TemplatePath, err)
	}
	maps.Copy(t, req.UITemplate)
	return t, nil
}

// maxTemplateBytes caps a template file.
const maxTemplateBytes = 256 << 10

// readWorkspaceFile reads a workspace-relative path through engine/hostfs:
// no "..", absolute path or link out of the workspace, and a FIFO or
// device is an error at once (it used to block the run).
func readWorkspaceFile(workspace, path string) ([]byte, error) {
	if workspace == "" {
		return nil, errors.New("no workspace to read templates from")
	}
	rel := filepath.FromSlash(strings.TrimPrefix(path, "./"))
	if filepath.IsAbs(rel) {
		return nil, fmt.Errorf("must be a file inside the workspace: %w", hostfs.ErrOutside)
	}
	data, err := hostfs.ReadFile(workspace, rel, maxTemplateBytes)
	if err != nil {
		return nil, fmt.Errorf("must be a regular file inside the workspace: %w", err)
	}
	return data, nil
}
