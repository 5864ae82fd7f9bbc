package run_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/capability"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/android"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/workspace"
)

// A playbook that taps "While using the app" itself gets the policy's
// answer instead: the dialog is answered when the playbook's wait first
// dumps the screen, and the button it wants is gone.
func TestPlaybookObeysThePermissionPolicy(t *testing.T) {
	s := phone.Take(t)
	s.Phone().InstallCapabilityApps()
	client := adb.NewClient("127.0.0.1:5037")
	var events recorder
	for _, c := range []struct {
		answer capability.Answer
		pass   bool
		seen   string
	}{
		{capability.Deny, false, android.AnswerDeny},
		{capability.Allow, false, android.AnswerForeground},
	} {
		t.Run(string(c.answer), func(t *testing.T) {
			s.Phone().Reset()
			svc := run.New(run.Config{StateDir: t.TempDir(),
				Permissions: &capability.Policy{Source: "humanAuth.permissions", Groups: map[string]capability.Answer{"camera": c.answer}},
				OpenDevice: func(ctx context.Context, _ string) (engine.Device, func(), error) {
					d, err := client.Open(ctx, adb.Target{Serial: s.Serial()})
					return d, func() {}, err
				}})
			defer svc.Close()
			file := writeFile(t, "camera.yaml", `name: camera
steps:
  - launch: {app: com.openpocket.camera}
  - tap: {text: While using the app, timeout: 1s}
`)
			res, err := svc.Playbook(t.Context(), run.PlaybookOptions{File: file, Events: events.add})
			require.NoError(t, err)
			assert.Equal(t, c.pass, res.Passed(), "the playbook never finds the dialog's button")
			assert.Equal(t, []android.PermissionAnswer{{Package: android.PkgCamera, Group: "camera", Answer: c.seen}}, s.Phone().PermissionAnswers())
			assert.Equal(t, c.answer == capability.Allow, s.Phone().PermissionGranted(android.PkgCamera, "android.permission.CAMERA"))
			lines := events.of(run.Kind("local_vm_permission"))
			require.NotEmpty(t, lines, "the answer is an event of the run")
			assert.Contains(t, lines[len(lines)-1].Fields["line"], "local_vm_permission="+string(c.answer)+" camera for com.openpocket.camera")
		})
	}
}

// A persisted skill replay that looks for the dialog's button finds it
// answered; the session records the policy's line (a step of its own:
// the replay recorded none after it).
func TestReplayObeysThePermissionPolicyAndRecordsIt(t *testing.T) {
	s := phone.Take(t)
	s.Phone().InstallCapabilityApps()
	h, err := workspace.Open(t.TempDir())
	require.NoError(t, err)
	client := adb.NewClient("127.0.0.1:5037")
	svc := run.New(run.Config{StateDir: t.TempDir(), Store: h, WorkspaceDir: h.Workspace(),
		Permissions: &capability.Policy{Source: "humanAuth.permissions", Default: capability.Deny},
		OpenDevice: func(ctx context.Context, _ string) (engine.Device, func(), error) {
			d, err := client.Open(ctx, adb.Target{Serial: s.Serial()})
			return d, func() {}, err
		}})
	defer svc.Close()
	src := `local app, ui = require("app"), require("ui")
app.launch("com.openpocket.maps")
assert(not ui.exists({text = "While using the app"}), "the dialog was left for the replay")`
	res, err := svc.Replay(t.Context(), run.ReplayOptions{Skill: "maps.lua", Source: []byte(src), Persist: true})
	require.NoError(t, err)
	require.True(t, res.Success, res.Message)
	assert.False(t, s.Phone().PermissionGranted(android.PkgMaps, "android.permission.ACCESS_FINE_LOCATION"))
	body, err := os.ReadFile(res.SessionPath)
	require.NoError(t, err)
	assert.Contains(t, string(body), `local_vm_permission=deny location for com.openpocket.maps: pressed "Don't allow" by humanAuth.permissions.default`)
}

// With three phones attached, a run's policy answers only its own phone's
// dialog: the other phones' dialogs stay up, unanswered.
func TestPermissionPolicyOnlyOnTheRunsPhone(t *testing.T) {
	sims := []*sim.Sim{simtest.Start(t), simtest.Start(t), simtest.Start(t)}
	client := adb.NewClient("127.0.0.1:5037")
	for _, s := range sims {
		s.Phone().InstallCapabilityApps()
		s.Phone().RequestPermission(android.PkgMaps, android.GroupLocation)
	}
	svc := run.New(run.Config{StateDir: t.TempDir(),
		Permissions: &capability.Policy{Source: "humanAuth.permissions", Groups: map[string]capability.Answer{"location": capability.Allow}},
		OpenDevice: func(ctx context.Context, serial string) (engine.Device, func(), error) {
			d, err := client.Open(ctx, adb.Target{Serial: serial})
			return d, func() {}, err
		}})
	defer svc.Close()
	var ev recorder
	res, err := svc.Script(t.Context(), run.ScriptOptions{Target: run.Target{Device: sims[1].Serial()}, Name: "look.lua",
		Source: []byte(`assert(not require("ui").exists({text = "While using the app"}))`), Events: ev.add})
	require.NoError(t, err)
	require.True(t, res.Success, res.Message)
	assert.Equal(t, []android.PermissionAnswer{{Package: android.PkgMaps, Group: "location", Answer: android.AnswerForeground}}, sims[1].Phone().PermissionAnswers())
	assert.Equal(t, android.PkgMaps, sims[1].Phone().CurrentPackage(), "Maps is back in front")
	lines := ev.of(run.Kind("local_vm_permission"))
	require.Len(t, lines, 1)
	assert.Equal(t, `local_vm_permission=allow location for com.openpocket.maps: pressed "While using the app" by humanAuth.permissions.groups.location`, lines[0].Fields["line"])
	for _, i := range []int{0, 2} {
		assert.Empty(t, sims[i].Phone().PermissionAnswers(), "phone %d", i)
		assert.Equal(t, android.PkgPermissionControl, sims[i].Phone().CurrentPackage(), "phone %d keeps its dialog", i)
	}
}

// TestReplayedShellIsHeldToThePermissionPolicy: a replayed skill learned
// from a model's run repeats its steps through the device module — a
// `pm grant` the run's hold took back included. Under a policy that denies
// the group, the replay's grant (device.shell and a shell step alike) is
// revoked as the agent's was, and the run records it as an event.
func TestReplayedShellIsHeldToThePermissionPolicy(t *testing.T) {
	s := phone.Take(t)
	s.Phone().InstallCapabilityApps()
	s.Phone().Reset()
	client := adb.NewClient("127.0.0.1:5037")
	svc := run.New(run.Config{StateDir: t.TempDir(),
		Permissions: &capability.Policy{Source: "humanAuth.permissions", Default: capability.Allow,
			Groups: map[string]capability.Answer{"camera": capability.Deny}},
		OpenDevice: func(ctx context.Context, _ string) (engine.Device, func(), error) {
			d, err := client.Open(ctx, adb.Target{Serial: s.Serial()})
			return d, func() {}, err
		}})
	defer svc.Close()
	for name, src := range map[string]string{
		"device.shell": `local device = require("device")
local out, code = device.shell("pm grant ` + android.PkgCamera + ` android.permission.CAMERA")
assert(code == 0, out)`,
		"a shell action": `local device = require("device")
assert(device.act({type = "shell", command = "pm grant ` + android.PkgCamera + ` android.permission.CAMERA"}))`,
	} {
		t.Run(name, func(t *testing.T) {
			var events recorder
			_, err := svc.Replay(t.Context(), run.ReplayOptions{Name: "grant-camera", Source: []byte(src), Events: events.add})
			require.NoError(t, err)
			assert.False(t, s.Phone().PermissionGranted(android.PkgCamera, "android.permission.CAMERA"), "the replay's grant was taken back")
			lines := events.of(run.Kind("local_vm_permission"))
			require.NotEmpty(t, lines)
			assert.Contains(t, lines[0].Fields["line"], "local_vm_permission=revoked camera for "+android.PkgCamera)
		})
	}
}
