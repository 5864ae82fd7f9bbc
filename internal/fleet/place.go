package fleet

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/openpocket/openpocket/internal/cron"
)

// Place implements cron.Coordinator. A job naming an agent runs on the
// host whose gateway serves it, on its bound phone (agents.go); a job naming a phone (serial, or a
// fingerprint "serial/serialno") runs on the host that has it online; a
// job naming a target type runs on a host with an idle phone of that
// type (this host first: it chooses its phone); any other job runs on
// any host with a phone. The live hosts are read from Redis, so an
// unreachable Redis is an error: the run pauses.
func (f *Fleet) Place(ctx context.Context, job cron.Job) (cron.Placement, error) {
	live, err := f.liveHosts(ctx)
	if err != nil {
		return cron.Placement{}, err
	}
	mine := f.freshPhones()
	var others []HostInfo
	for _, h := range live {
		if h.Host != f.host {
			others = append(others, h)
		}
	}
	switch {
	case job.Agent != "":
		f.mu.Lock()
		me := HostInfo{Host: f.host, Agent: f.o.Agent, Agents: slices.Clone(f.agents), Phone: mine}
		f.mu.Unlock()
		return placeAgent(job.Agent, me, others), nil
	case job.Device != "":
		return placePhone(job.Device, mine, others), nil
	case job.Target != nil && job.Target.Type != "":
		return placeType(job.Target.Type, mine, others), nil
	}
	if f.o.Phones == nil || slices.ContainsFunc(mine, online) {
		return cron.Placement{Where: cron.Here}, nil
	}
	for _, h := range others {
		if slices.ContainsFunc(h.Phone, online) {
			return cron.Placement{Where: cron.Elsewhere, Reason: "this host has no phone online; " + h.Host + " has"}, nil
		}
	}
	return cron.Placement{Where: cron.Nowhere, Reason: "no host has a phone online"}, nil
}

// freshPhones are this host's phones at the last beat, with busy marks
// as of now (a run may have started since).
func (f *Fleet) freshPhones() []Phone {
	f.mu.Lock()
	ps := slices.Clone(f.phones)
	f.mu.Unlock()
	if f.o.Busy != nil {
		busy := f.o.Busy()
		for i := range ps {
			ps[i].Busy = busy[ps[i].Serial]
		}
	}
	return ps
}

func online(p Phone) bool { return p.State == "device" }

// names are the serials a job's device may be reached as: a target
// fingerprint is "serial/serialno".
func names(device string) []string {
	a, b, ok := strings.Cut(device, "/")
	if !ok {
		return []string{device}
	}
	return []string{a, b}
}

func has(ps []Phone, device string) bool {
	ns := names(device)
	return slices.ContainsFunc(ps, func(p Phone) bool { return online(p) && slices.Contains(ns, p.Serial) })
}

func placePhone(device string, mine []Phone, others []HostInfo) cron.Placement {
	if has(mine, device) {
		return cron.Placement{Where: cron.Here}
	}
	for _, h := range others {
		if has(h.Phone, device) {
			return cron.Placement{Where: cron.Elsewhere, Reason: fmt.Sprintf("phone %s is on %s", device, h.Host)}
		}
	}
	return cron.Placement{Where: cron.Nowhere, Reason: fmt.Sprintf("phone %s is on no live host", device)}
}

func idleOfType(typ string) func(Phone) bool {
	return func(p Phone) bool { return online(p) && p.Busy == "" && p.Type == typ }
}

func placeType(typ string, mine []Phone, others []HostInfo) cron.Placement {
	if i := slices.IndexFunc(mine, idleOfType(typ)); i >= 0 {
		return cron.Placement{Where: cron.Here, Device: mine[i].Serial}
	}
	for _, h := range others {
		if slices.ContainsFunc(h.Phone, idleOfType(typ)) {
			return cron.Placement{Where: cron.Elsewhere, Reason: fmt.Sprintf("an idle %s is on %s", typ, h.Host)}
		}
	}
	return cron.Placement{Where: cron.Nowhere, Reason: fmt.Sprintf("no live host has an idle %s phone", typ)}
}
