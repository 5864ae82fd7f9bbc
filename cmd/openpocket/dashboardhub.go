package main

import (
	"context"
	"net/http"
	"path/filepath"

	"github.com/openpocket/openpocket/internal/cli"
	"github.com/openpocket/openpocket/internal/dashboard"
	"github.com/openpocket/openpocket/internal/dashboard/backend"
	"github.com/openpocket/openpocket/internal/humanauth"
	"github.com/openpocket/openpocket/internal/relay"
	"github.com/openpocket/openpocket/internal/workspace"
)

// ServeDashboard serves the dashboard's pages over its backend (the
// install and the agents the CLI opens), with the human-auth relay hub
// beside them (the dashboard itself never touches files, adb or the
// engine, and the two front ends never import each other).
func (*application) ServeDashboard(ctx context.Context, env cli.DashboardEnv) error {
	m := backend.New(env.Install, env.Only, env.Runtime)
	defer m.Close()
	return dashboard.Serve(ctx, env.Addr, m, dashboard.Options{Token: env.Token, Relay: relayHub{env.Install, env.RelayPhone}}, env.Ready)
}

// relayHub routes /a/<agentId>/auth/… to the human-auth relay over that
// agent's own request store, so one address serves every agent (docs/agents.md)
// and each request's state stays in its agent's state directory.
type relayHub struct {
	in    *workspace.Install
	phone relay.Phone
}

func (h relayHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("agent")
	ok, err := h.in.Exists(id)
	if err != nil || !ok {
		http.NotFound(w, r)
		return
	}
	dir, _ := h.in.AgentDir(id)
	relay.New(humanauth.Open(filepath.Join(dir, "state")), relay.Options{Phone: h.phone}).Handler().ServeHTTP(w, r)
}
