// Package dashenv is what the dashboards are built from (types only): one
// agent as a long-running front end drives it. The CLI opens agents (it owns
// device selection, leases and human auth) and the dashboard's backend
// (internal/dashboard/backend) drives them; neither imports the other, and
// the composition root hands this one definition across unchanged, as
// internal/gwenv does for the gateway.
package dashenv

import (
	"context"

	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
)

// AgentRuntime is one agent as a long-running front end drives it.
type AgentRuntime struct {
	ID   string
	Home *workspace.Home
	// View captures the screen without taking the device lease: looking
	// does not drive, so a running task is not disturbed.
	View *run.Service
	// Drive acts on the device, taking its lease for each action only.
	Drive *run.Service
	// RunJob and ReplaySkill run a cron job (in the agent's gateway when
	// it runs) or a skill replay now, as `openpocket cron run` and
	// `openpocket skills run` would, and return how it ended: its message,
	// or an error with the reason.
	RunJob      func(ctx context.Context, id string) (string, error)
	ReplaySkill func(ctx context.Context, name string) (string, error)
	// Device names the phone the agent's runs use, or says why there is
	// none (the resolver's error).
	Device func(ctx context.Context) (string, error)
	Close  func()
}

// Opener opens agent id for a long-running front end: its home and run
// services. The caller closes what it opens.
type Opener func(id string) (*AgentRuntime, error)
