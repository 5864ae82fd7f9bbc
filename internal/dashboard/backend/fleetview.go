package backend

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/openpocket/openpocket/internal/fleet"
	"github.com/openpocket/openpocket/internal/workspace"
)

// fleetView is the manager page's fleet section of an agent whose config
// joins a fleet: one line per host, or paused when Redis does not answer
// (the message names Redis with its password redacted).
func fleetView(cfg workspace.Config) (lines []string, paused bool) {
	if !cfg.Fleet.Enabled() {
		return nil, false
	}
	fl, err := fleet.Open(fleet.Options{URL: cfg.Fleet.RedisURL, Host: cfg.Fleet.HostName})
	if err != nil {
		return []string{err.Error()}, true
	}
	defer fl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	hosts, err := fl.Hosts(ctx)
	if err != nil {
		return []string{err.Error()}, true
	}
	now := time.Now()
	for _, h := range hosts {
		state := "gone"
		if h.Alive {
			state = "alive"
		}
		var phones []string
		for _, p := range h.Phone {
			s := p.Serial + " " + p.State
			if p.Busy != "" {
				s += " running " + p.Busy
			}
			phones = append(phones, s)
		}
		if len(phones) == 0 {
			phones = []string{"no phones"}
		}
		lines = append(lines, fmt.Sprintf("%s: %s, heartbeat %s ago; %s", h.Host, state,
			now.Sub(h.At).Round(time.Second), strings.Join(phones, ", ")))
	}
	if len(lines) == 0 {
		lines = []string{"no host has joined yet (" + fl.URL() + ")"}
	}
	return lines, false
}
