package backend

import (
	"context"
	"fmt"
	"time"

	"github.com/openpocket/openpocket/internal/fleet"
	"github.com/openpocket/openpocket/internal/workspace"
)

// fleetView is the manager page's fleet section of an agent whose config
// joins a fleet: one line per host, or paused when Redis does not answer
// (the message names Redis with its password redacted). The Redis client
// of each fleet is opened once and kept until Close: a page that refreshes
// every few seconds must not dial Redis anew each time.
func (m *Manager) fleetView(cfg workspace.Config) (lines []string, paused bool) {
	if !cfg.Fleet.Enabled() {
		return nil, false
	}
	fl, err := m.fleetOf(cfg.Fleet)
	if err != nil {
		return []string{err.Error()}, true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	hosts, err := fl.Hosts(ctx)
	if err != nil {
		return []string{err.Error()}, true
	}
	now := time.Now()
	for _, h := range hosts {
		lines = append(lines, fmt.Sprintf("%s: %s, heartbeat %s ago; %s", h.Host, h.State(), now.Sub(h.At).Round(time.Second), h.Phones()))
	}
	if len(lines) == 0 {
		lines = []string{"no host has joined yet (" + fl.URL() + ")"}
	}
	return lines, false
}

// fleetOf is the manager's client of the fleet fc names, opened on first
// use.
func (m *Manager) fleetOf(fc workspace.FleetConfig) (*fleet.Fleet, error) {
	key := fc.RedisURL + "\x00" + fc.HostName
	m.mu.Lock()
	defer m.mu.Unlock()
	if fl := m.fleets[key]; fl != nil {
		return fl, nil
	}
	fl, err := fleet.Open(fleet.Options{URL: fc.RedisURL, Host: fc.HostName})
	if err != nil {
		return nil, err
	}
	if m.fleets == nil {
		m.fleets = map[string]*fleet.Fleet{}
	}
	m.fleets[key] = fl
	return fl, nil
}
