// Package backend runs the MCP server's tool calls (internal/mcp's Runner)
// on the run service: each call is like one command of its own (its
// device, its lease, its session), so a call holds its device only while
// it runs and other openpocket processes can drive it in between; calls
// on one device from this server queue instead of refusing each other.
// Direct calls (snapshot, act, the selector tools) share one phone per
// device for the server's lifetime — its frame and element caches, its
// capture path — from one run service per device kept until Close.
//
// Which device a call gets, its lease and its executors are the command's
// (the Port the CLI implements); files a client names — playbooks, their
// includes, skill and script paths, session ids — are read inside the
// workspace only.
package backend

import (
	"context"
	"io"
	"sync"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
)

// Port is what the backend needs of the command serving it.
type Port interface {
	// Service builds a run service whose default device is device ("" =
	// the one the command's resolver picks), with the command's executors.
	// perRun: it leases its device for each run (direct calls); otherwise
	// it holds the lease from its first run until it is closed (one call).
	// deviceErr reports the first failure to open or lease a device.
	Service(device string, perRun bool) (svc *run.Service, deviceErr func() error)
	// DefaultDevice is the device "" stands for, as far as it is known
	// without asking the adb server ("" for the only attached device):
	// calls naming it and calls naming nothing share a queue.
	DefaultDevice() string
	// HumanAuthFor answers an agent run's human-auth requests with the
	// humanAuth settings hc (the relay; never the terminal: stdio is the
	// MCP transport).
	HumanAuthFor(ctx context.Context, hc workspace.HumanAuthConfig, sess *engine.Session) (run.HumanAuthFunc, error)
}

// Env is what a backend is built from.
type Env struct {
	Home   *workspace.Home
	Config workspace.Config
	Port   Port
	// ADBServer is the adb server the devices tool lists ("" = adb's own
	// default and environment).
	ADBServer string
	// Warn receives playbooks' compile warnings (nil: dropped).
	Warn io.Writer
}

// Backend implements internal/mcp's Runner over Env.
type Backend struct {
	env Env

	mu sync.Mutex
	// queues holds one slot per device key: a call waits for the previous
	// call on its device to end.
	queues map[string]chan struct{}
	// direct are the run services of direct calls, one per device key;
	// each keeps its phone (run.Service.Phone) and leases per call.
	direct map[string]*run.Service
}

// New is the backend of env.
func New(env Env) *Backend {
	if env.Warn == nil {
		env.Warn = io.Discard
	}
	return &Backend{env: env, queues: map[string]chan struct{}{}, direct: map[string]*run.Service{}}
}

// Close closes the direct calls' run services and their phones' devices.
func (b *Backend) Close() {
	b.mu.Lock()
	direct := b.direct
	b.direct = map[string]*run.Service{}
	b.mu.Unlock()
	for _, svc := range direct {
		svc.Close()
	}
}

// call builds the run service of one call on device ("" = the default),
// after the previous call on that device ended, its lease held for the
// call. deviceErr reports the call's first device failure; release ends
// the call: its lease and service.
func (b *Backend) call(ctx context.Context, device string) (svc *run.Service, deviceErr func() error, release func(), err error) {
	leave, err := b.enter(ctx, device)
	if err != nil {
		return nil, nil, nil, err
	}
	svc, deviceErr = b.env.Port.Service(device, false)
	return svc, deviceErr, func() {
		svc.Close()
		leave()
	}, nil
}

// enter waits for the previous call on device to end; leave lets the
// next one in.
func (b *Backend) enter(ctx context.Context, device string) (leave func(), err error) {
	key := b.deviceKey(device)
	b.mu.Lock()
	slot := b.queues[key]
	if slot == nil {
		slot = make(chan struct{}, 1)
		b.queues[key] = slot
	}
	b.mu.Unlock()
	select {
	case slot <- struct{}{}:
		return func() { <-slot }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (b *Backend) deviceKey(device string) string {
	if device == "" {
		return b.env.Port.DefaultDevice()
	}
	return device
}

// directService is device's run service for direct calls, built on first
// use and kept, leasing its device per call.
func (b *Backend) directService(device string) *run.Service {
	key := b.deviceKey(device)
	b.mu.Lock()
	defer b.mu.Unlock()
	if svc := b.direct[key]; svc != nil {
		return svc
	}
	svc, _ := b.env.Port.Service(device, true)
	b.direct[key] = svc
	return svc
}

// Device is one attached device as the devices tool lists it.
type Device struct {
	Model   string `json:"model"`
	Product string `json:"product"`
	Serial  string `json:"serial"`
	State   string `json:"state"`
}

// Devices lists the attached devices (serial, state, model, product).
func (b *Backend) Devices(ctx context.Context) (any, error) {
	client := adb.NewClient(b.env.ADBServer)
	if err := client.EnsureServer(ctx); err != nil {
		return nil, err
	}
	devs, err := client.Devices(ctx)
	if err != nil {
		return nil, err
	}
	out := []Device{}
	for _, d := range devs {
		out = append(out, Device{Serial: d.Serial, State: d.State, Model: d.Model, Product: d.Product})
	}
	return out, nil
}
