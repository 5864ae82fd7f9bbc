package backend

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/openpocket/openpocket/internal/fleet/redistest"
)

// connectionsReceived is how many connections the Redis server accepted
// since it started.
func connectionsReceived(t *testing.T, c *redis.Client) int {
	t.Helper()
	info, err := c.Info(context.Background(), "stats").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "total_connections_received:"); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no total_connections_received in INFO stats:\n%s", info)
	return 0
}

// TestFleetSectionKeepsOneRedisClient: the manager page of an agent in a
// fleet, rendered thirty times (a page refreshing for a minute and a
// half), dials Redis once, not once per render; Close lets it go.
func TestFleetSectionKeepsOneRedisClient(t *testing.T) {
	srv := redistest.Start(t)
	in, open, _, _ := install(t)
	h, err := in.OpenAgent("work")
	if err != nil {
		t.Fatal(err)
	}
	cfg := h.Config()
	cfg.Fleet.RedisURL, cfg.Fleet.HostName = srv.URL(), "host-a"
	if err := h.SaveConfig(cfg); err != nil {
		t.Fatal(err)
	}
	probe := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer probe.Close()
	before := connectionsReceived(t, probe)

	m := New(in, "work", open)
	for range 30 {
		list, err := m.Agents(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 || list[0].FleetPaused || len(list[0].Fleet) != 1 || !strings.Contains(list[0].Fleet[0], "no host has joined yet") {
			t.Fatalf("fleet section = %+v, want one line saying no host joined", list)
		}
	}
	if n := connectionsReceived(t, probe) - before; n > 2 {
		t.Fatalf("thirty renders dialled Redis %d times, want one client kept (at most 2 connections)", n)
	}
	m.Close()
	if len(m.fleets) != 0 {
		t.Fatalf("Close left %d fleet clients", len(m.fleets))
	}
}
