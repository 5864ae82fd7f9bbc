package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/openpocket/openpocket/internal/atomicfile"
	"github.com/openpocket/openpocket/internal/lease"
)

// A binding gives one agent a target exclusively (docs/agents.md: "two agents
// cannot bind or run against the same target fingerprint"). It is a file,
// INSTALL/state/targets/AGENT.json, so it survives restarts and crashes; it
// ends only with `target clear` or `agents remove`. Live use of the phone
// is guarded separately by the device lease (internal/lease) each run
// takes. Bindings name agents by id, never by path or pid, so another host
// reading them needs nothing of this one.

// TargetTypes are the values of target.type.
var TargetTypes = []string{"emulator", "physical-phone", "android-tv", "cloud"}

// Binding is one agent's target binding.
type Binding struct {
	Agent string `json:"agent"`
	Type  string `json:"type"`
	// Device is the adb serial; Endpoint a host:port adb connects to.
	Device   string `json:"device,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
	// SerialNo is the device's ro.serialno once seen: the same phone
	// reached by another serial (USB vs. Wi-Fi) is still the same target.
	SerialNo string `json:"serialno,omitempty"`
	BoundAt  string `json:"boundAt"`
}

// Fingerprint names the target: serial or endpoint, plus ro.serialno once
// seen ("emulator-5554", "10.0.0.7:5555/R58M1234").
func (b Binding) Fingerprint() string {
	fp := b.Device
	if fp == "" {
		fp = b.Endpoint
	}
	if b.SerialNo != "" && b.SerialNo != fp {
		fp += "/" + b.SerialNo
	}
	return fp
}

// identities are the names under which the target can be reached; two
// bindings sharing one are the same phone. A TCP device's adb serial is its
// endpoint, so serials and endpoints share one namespace on purpose.
func (b Binding) identities() []string {
	var ids []string
	for _, s := range []string{b.Device, b.Endpoint, b.SerialNo} {
		if s != "" && !slices.Contains(ids, s) {
			ids = append(ids, s)
		}
	}
	return ids
}

// Names reports whether the binding's target is reachable as any of names.
func (b Binding) Names(names ...string) bool {
	for _, n := range names {
		if n != "" && slices.Contains(b.identities(), n) {
			return true
		}
	}
	return false
}

// BoundError refuses a binding or a run: another agent holds the target.
type BoundError struct {
	Target string
	Holder Binding
}

func (e *BoundError) Error() string {
	return fmt.Sprintf("target %s is bound to agent %q (since %s); free it with `openpocket --agent %s target clear`",
		e.Target, e.Holder.Agent, e.Holder.BoundAt, e.Holder.Agent)
}

// Unwrap makes a refused binding count as a busy device (exit code 3).
func (e *BoundError) Unwrap() error { return lease.ErrBusy }

// bindingPath is the file of agent's binding.
func (in *Install) bindingPath(agent string) string {
	if agent == "" {
		agent = DefaultAgent
	}
	return filepath.Join(in.TargetsDir(), agent+".json")
}

// withRegistry runs fn holding the bindings lock, so two agents binding
// the same phone at once cannot both succeed.
func (in *Install) withRegistry(fn func() error) error {
	if err := os.MkdirAll(in.TargetsDir(), 0o755); err != nil {
		return fmt.Errorf("target bindings: %w", err)
	}
	l, err := lease.Acquire(context.Background(), "bindings", lease.Options{Dir: in.TargetsDir(), Wait: 10 * time.Second, Command: "openpocket target", Poll: 10 * time.Millisecond})
	if err != nil {
		return fmt.Errorf("target bindings: %w", err)
	}
	defer l.Release()
	return fn()
}

// Bind records b as its agent's binding, replacing the agent's previous
// one. A target another agent has bound is refused with a *BoundError.
func (in *Install) Bind(b Binding, now time.Time) (Binding, error) {
	if b.Agent == "" {
		b.Agent = DefaultAgent
	}
	if !slices.Contains(TargetTypes, b.Type) {
		return b, fmt.Errorf("target type %q: expected one of %s", b.Type, strings.Join(TargetTypes, ", "))
	}
	if len(b.identities()) == 0 {
		return b, errors.New("a binding needs a device serial or an endpoint")
	}
	b.BoundAt = isoTime(now)
	err := in.withRegistry(func() error {
		all, err := in.readBindings()
		if err != nil {
			return err
		}
		for _, other := range all {
			if other.Agent != b.Agent && other.Names(b.identities()...) {
				return &BoundError{Target: b.Fingerprint(), Holder: other}
			}
		}
		return in.writeBinding(b)
	})
	return b, err
}

func (in *Install) writeBinding(b Binding) error {
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(in.bindingPath(b.Agent), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("record binding: %w", err)
	}
	return nil
}

// RecordSerialNo adds the device's ro.serialno to agent's binding once
// seen, so the phone stays bound under any serial it shows up with.
func (in *Install) RecordSerialNo(agent, serialNo string) error {
	if serialNo == "" {
		return nil
	}
	return in.withRegistry(func() error {
		b, ok, err := in.readBinding(agent)
		if err != nil || !ok || b.SerialNo == serialNo {
			return err
		}
		b.SerialNo = serialNo
		return in.writeBinding(b)
	})
}

// Unbind releases agent's binding (nothing to do when there is none).
func (in *Install) Unbind(agent string) error {
	return in.withRegistry(func() error {
		err := os.Remove(in.bindingPath(agent))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("release binding: %w", err)
		}
		return nil
	})
}

// Binding returns agent's binding; ok is false when it has none.
func (in *Install) Binding(agent string) (b Binding, ok bool, err error) {
	return in.readBinding(agent)
}

// Bindings lists every agent's binding, by agent id.
func (in *Install) Bindings() ([]Binding, error) { return in.readBindings() }

// HolderOf returns the binding of another agent than self under which the
// target is reachable as any of names.
func (in *Install) HolderOf(self string, names ...string) (Binding, bool, error) {
	if self == "" {
		self = DefaultAgent
	}
	all, err := in.readBindings()
	if err != nil {
		return Binding{}, false, err
	}
	for _, b := range all {
		if b.Agent != self && b.Names(names...) {
			return b, true, nil
		}
	}
	return Binding{}, false, nil
}

func (in *Install) readBinding(agent string) (Binding, bool, error) {
	var b Binding
	path := in.bindingPath(agent)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return b, false, nil
	}
	if err != nil {
		return b, false, fmt.Errorf("read binding: %w", err)
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return b, false, positionError(path, data, err, nil)
	}
	return b, true, nil
}

func (in *Install) readBindings() ([]Binding, error) {
	entries, err := os.ReadDir(in.TargetsDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read bindings: %w", err)
	}
	var all []Binding
	for _, e := range entries {
		agent, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() {
			continue
		}
		b, found, err := in.readBinding(agent)
		if err != nil {
			return nil, err
		}
		if found {
			b.Agent = agent
			all = append(all, b)
		}
	}
	return all, nil
}
