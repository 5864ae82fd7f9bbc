package gateway

import (
	"github.com/openpocket/openpocket/internal/cron"
	"slices"

	"context"
	"github.com/openpocket/openpocket/internal/workspace"

	"github.com/openpocket/openpocket/internal/fleet"
)

// openFleet joins the fleet config.json names (fleet.redisUrl): the
// scheduler's coordinator, publishing this host's phones and the jobs
// running on them. nil outside a fleet. Its presence starts with Start.
func (g *Gateway) openFleet() (*fleet.Fleet, error) {
	fc := g.cfg.Fleet
	if !fc.Enabled() {
		return nil, nil
	}
	return fleet.Open(fleet.Options{URL: fc.RedisURL, Host: fc.HostName, Only: fc.Phones, Phones: g.opts.Phones,
		Agent: g.opts.Agent, Agents: g.opts.Agents,
		Busy: func() map[string]string {
			if g.sched == nil {
				return nil
			}
			busy := map[string]string{}
			for _, r := range g.sched.Running() {
				busy[r.Device] = r.JobID
			}
			return busy
		},
		Logger: g.opts.Logger})
}

// startFleet publishes this host's presence and says where the fleet is.
func (g *Gateway) startFleet() {
	if g.fleet == nil {
		return
	}
	g.fleet.Start()
	if ok, err := g.fleet.Reachable(); !ok {
		g.print.line("!", "fleet: host %s; %v: fleet jobs paused until Redis answers", g.fleet.Host(), err)
		return
	}
	g.print.line("●", "fleet: host %s, coordinated through %s", g.fleet.Host(), g.fleet.URL())
}

// FleetPhones lists the phones of this host's adb server for the fleet.
type FleetPhones = func(ctx context.Context) ([]fleet.Phone, error)

// closeFleet withdraws this host from the fleet (its presence key).
func (g *Gateway) closeFleet() {
	if g.fleet != nil {
		_ = g.fleet.Close()
		g.fleet = nil
	}
}

func slicesEqualFleet(a, b workspace.FleetConfig) bool {
	return a.RedisURL == b.RedisURL && a.HostName == b.HostName && slices.Equal(a.Phones, b.Phones)
}

// heartbeatStatus is the scheduler's status, with the fleet's
// reachability as the presence beat last saw it (a fleet whose jobs are
// hours apart still says when Redis is away).
func (g *Gateway) heartbeatStatus() func() cron.HeartbeatStatus {
	status := g.sched.StatusFunc()
	fl := g.fleet
	return func() cron.HeartbeatStatus {
		st := status()
		if fl != nil {
			if ok, _ := fl.Reachable(); !ok {
				st.Fleet = "paused"
			}
		}
		return st
	}
}
