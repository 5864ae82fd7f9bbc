package agent_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/capability"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim/android"
)

// The permission policy holds against the model's shell: a grant its
// command makes — pm grant, through sh -c, or a tap on the dialog chained
// into the launch — in a group the policy does not allow is revoked when
// the command returns, recorded in the session and told to the model. A
// grant the policy allows, or one the phone held before, stays.
func TestPermissionPolicyHoldsTheModelsShell(t *testing.T) {
	r := newRig(t)
	phone := r.sim.Phone()
	phone.InstallCapabilityApps()
	phone.Reset()
	x, y := allowAt(t, r)
	camera, location := "android.permission.CAMERA", "android.permission.ACCESS_FINE_LOCATION"
	deny := capability.Policy{Default: capability.Allow, Groups: map[string]capability.Answer{"camera": capability.Deny, "location": capability.Once}}
	cases := []struct {
		name, command string
		policy        capability.Policy
		heldBefore    bool
		pkg, perm     string
		granted       bool
		line          string
	}{
		{"pm grant", "pm grant " + android.PkgCamera + " " + camera, deny, false, android.PkgCamera, camera, false,
			"local_vm_permission=revoked camera for com.openpocket.camera: android.permission.CAMERA granted by a shell action, not a dialog; humanAuth.permissions.groups.camera"},
		{"sh -c, once outlived", "sh -c 'pm grant " + android.PkgMaps + " " + location + "'", deny, false, android.PkgMaps, location, false,
			"local_vm_permission=revoked location for com.openpocket.maps: android.permission.ACCESS_FINE_LOCATION granted by a shell action, not a dialog; humanAuth.permissions.groups.location"},
		{"a tap on the dialog chained into the launch",
			fmt.Sprintf("monkey -p %s -c android.intent.category.LAUNCHER 1 && sleep 0.3 && input tap %d %d", android.PkgCamera, x, y),
			deny, false, android.PkgCamera, camera, false,
			"local_vm_permission=revoked camera for com.openpocket.camera: android.permission.CAMERA granted by a shell action, not a dialog; humanAuth.permissions.groups.camera"},
		{"allowed", "pm grant " + android.PkgCamera + " " + camera,
			capability.Policy{Groups: map[string]capability.Answer{"camera": capability.Allow}}, false, android.PkgCamera, camera, true, ""},
		{"held before the command", "pm grant " + android.PkgCamera + " " + camera, deny, true, android.PkgCamera, camera, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			phone.Reset()
			if c.heldBefore {
				grant(t, r.scratch(), c.pkg, c.perm)
			}
			r.srv = llmtest.NewServer(t)
			r.srv.ReplyTool("shell", map[string]any{"command": c.command, "thought": "grant it myself"})
			r.srv.ReplyTool("finish", map[string]any{"message": "done"})
			res := runUnderPolicy(t, r, c.policy, "use the camera")

			assert.Equal(t, c.granted, phone.PermissionGranted(c.pkg, c.perm), "the app's grant after the run")
			body, err := os.ReadFile(res.SessionPath)
			require.NoError(t, err)
			reqs := r.srv.Requests()
			require.Len(t, reqs, 2)
			if c.line == "" {
				assert.NotContains(t, string(body), "local_vm_permission=revoked")
				return
			}
			assert.Contains(t, string(body), c.line)
			assert.Equal(t, 1, strings.Count(string(body), "local_vm_permission=revoked"), string(body))
			assert.Contains(t, string(reqs[1].Raw), "local_vm_permission=revoked", "the model is told")
		})
	}
}

// BenchmarkShellActionHeldToPolicy is what the permission policy's hold
// costs a model's shell action: the same `getprop` through the session
// with a policy set (two dumpsys package reads around it) against the
// floor of the same session without one, alternating in the same run.
// ratio = held ÷ plain.
func BenchmarkShellActionHeldToPolicy(b *testing.B) {
	r := newRig(b)
	r.sim.Phone().InstallCapabilityApps()
	ctx := context.Background()
	plain := r.session(ctx, r.engine(&fakeModel{}), "plain")
	e := r.engine(&fakeModel{})
	e.Permissions = &capability.Policy{Source: "humanAuth.permissions", Default: capability.Deny}
	held := r.session(ctx, e, "held")
	a, err := action.New("shell", map[string]any{"command": "getprop ro.build.version.sdk"})
	require.NoError(b, err)
	for _, s := range []*engine.Session{plain, held} { // warm both
		_, err := s.Act(a, device.ActOptions{})
		require.NoError(b, err)
	}
	var floor, hold time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if _, err := plain.Act(a, device.ActOptions{}); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := held.Act(a, device.ActOptions{}); err != nil {
			b.Fatal(err)
		}
		floor += t1.Sub(t0)
		hold += time.Since(t1)
	}
	b.ReportMetric(float64(floor.Microseconds())/float64(b.N)/1000, "plain-ms/op")
	b.ReportMetric(float64(hold.Microseconds())/float64(b.N)/1000, "held-ms/op")
	b.ReportMetric(float64(hold)/float64(floor), "ratio")
}
