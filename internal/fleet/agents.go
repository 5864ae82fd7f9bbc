package fleet

import (
	"context"
	"fmt"
	"slices"

	"github.com/openpocket/openpocket/internal/cron"
)

// A gateway runs as one agent of its install (docs/agents.md), and an
// agent's phone is bound per install. So each host publishes the agent
// its gateway serves and every agent of its install with its bound phone;
// a job naming an agent (cron.Job.Agent) runs on the host whose gateway
// serves that agent, with the agent's phone online there. Another
// agent's gateway cannot run it: the binding refuses runs on a phone
// bound to someone else.

// AgentPhone is one agent of a host's install and its bound phone.
type AgentPhone struct {
	ID string `json:"id"`
	// Phone is the binding's fingerprint ("serial" or
	// "endpoint/serialno"); "" when the agent has no binding (it drives
	// the host's only phone).
	Phone string `json:"phone,omitempty"`
}

// localAgents lists this host's agents (nil when unknown).
func (f *Fleet) localAgents(ctx context.Context) []AgentPhone {
	if f.o.Agents == nil {
		return nil
	}
	as, err := f.o.Agents(ctx)
	if err != nil {
		f.o.Logger.Warn("fleet: agents not listed", "err", err)
		return nil
	}
	return as
}

// agentOf is agent id's entry on host h.
func agentOf(h HostInfo, id string) (AgentPhone, bool) {
	i := slices.IndexFunc(h.Agents, func(a AgentPhone) bool { return a.ID == id })
	if i < 0 {
		return AgentPhone{}, false
	}
	return h.Agents[i], true
}

// agentReady is the serial agent id's run uses on h ("" for an unbound
// agent), and whether h can run it now: its gateway serves the agent and
// the bound phone (any phone, when unbound) is online there.
func agentReady(h HostInfo, id string) (serial string, ok bool) {
	if h.Agent != id {
		return "", false
	}
	a, _ := agentOf(h, id)
	if a.Phone == "" {
		return "", slices.ContainsFunc(h.Phone, online)
	}
	ns := names(a.Phone)
	i := slices.IndexFunc(h.Phone, func(p Phone) bool { return online(p) && slices.Contains(ns, p.Serial) })
	if i < 0 {
		return "", false
	}
	return h.Phone[i].Serial, true
}

// placeAgent places a job naming agent id: here, on another host, or
// nowhere, with a reason that says what is missing.
func placeAgent(id string, me HostInfo, others []HostInfo) cron.Placement {
	if serial, ok := agentReady(me, id); ok {
		return cron.Placement{Where: cron.Here, Device: serial}
	}
	for _, h := range others {
		if _, ok := agentReady(h, id); ok {
			return cron.Placement{Where: cron.Elsewhere, Reason: fmt.Sprintf("agent %s is on %s", id, h.Host)}
		}
	}
	for _, h := range append([]HostInfo{me}, others...) {
		a, has := agentOf(h, id)
		switch {
		case has && h.Agent == id && a.Phone != "":
			return cron.Placement{Where: cron.Nowhere, Reason: fmt.Sprintf("agent %s's phone %s is not online on %s", id, a.Phone, h.Host)}
		case has && h.Agent == id:
			return cron.Placement{Where: cron.Nowhere, Reason: fmt.Sprintf("agent %s has no phone online on %s", id, h.Host)}
		case has:
			return cron.Placement{Where: cron.Nowhere, Reason: fmt.Sprintf("agent %s is on %s but no gateway of it is in the fleet (start `openpocket --agent %s gateway` there)", id, h.Host, id)}
		}
	}
	return cron.Placement{Where: cron.Nowhere, Reason: fmt.Sprintf("agent %s is on no live host", id)}
}
