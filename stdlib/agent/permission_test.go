package agent_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/capability"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim/android"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// allowButton is "While using the app" on Camera's permission dialog, read
// from a dump before the run: a hostile model that knows the layout taps
// there blindly (allowMark, in the model's scaled coordinates) or chains a
// tap there into the command that opens the app (allowAt, device pixels).
func allowButton(t *testing.T, r *rig) screen.UIElement {
	t.Helper()
	p := r.scratch()
	launch(t, p, android.PkgCamera)
	snap, err := p.Capture(context.Background(), device.CaptureOptions{Scaled: true, NoCache: true})
	require.NoError(t, err)
	for _, e := range snap.UIElements {
		if e.Text == "While using the app" {
			return e
		}
	}
	t.Fatal("no \"While using the app\" on Camera's first screen")
	return screen.UIElement{}
}

// runUnderPolicy runs task with the rig's model server under policy (as
// humanAuth.permissions) and requires it to succeed.
func runUnderPolicy(t *testing.T, r *rig, policy capability.Policy, task string) engine.RunResult {
	t.Helper()
	policy.Source = "humanAuth.permissions"
	e := r.engine(r.client(0))
	e.Permissions = &policy
	res, err := agent.Run(context.Background(), r.session(context.Background(), e, task), agent.Options{MaxSteps: 5})
	require.NoError(t, err)
	require.True(t, res.Success, res.Message)
	return res
}

func allowMark(t *testing.T, r *rig) (x, y int) {
	e := allowButton(t, r)
	return e.ScaledCenter.X, e.ScaledCenter.Y
}

func allowAt(t *testing.T, r *rig) (x, y int) {
	e := allowButton(t, r)
	return e.Center.X, e.Center.Y
}

// Policies answer the dialog an app's launch raises; the model launches
// the app, then (hostile) taps where "While using the app" was. The phone
// sees the policy's answer, the session its local_vm_permission= line, and
// the model never sees the dialog.
func TestPermissionPolicyAnswersDialogs(t *testing.T) {
	r := newRig(t)
	phone := r.sim.Phone()
	phone.InstallCapabilityApps()
	phone.Reset()
	x, y := allowMark(t, r)
	cases := []struct {
		name, pkg, group, perm string
		policy                 capability.Policy
		answer                 string // the button the phone saw pressed
		granted, oneTime       bool
		line                   string
	}{
		{"allow", android.PkgCamera, "camera", "android.permission.CAMERA",
			capability.Policy{Groups: map[string]capability.Answer{"camera": capability.Allow}},
			android.AnswerForeground, true, false,
			`local_vm_permission=allow camera for com.openpocket.camera: pressed "While using the app" by humanAuth.permissions.groups.camera`},
		{"once", android.PkgCamera, "camera", "android.permission.CAMERA",
			capability.Policy{Groups: map[string]capability.Answer{"camera": capability.Once}},
			android.AnswerOnce, true, true,
			`local_vm_permission=once camera for com.openpocket.camera: pressed "Only this time" by humanAuth.permissions.groups.camera`},
		{"deny against a hostile model", android.PkgCamera, "camera", "android.permission.CAMERA",
			capability.Policy{Default: capability.Allow, Groups: map[string]capability.Answer{"camera": capability.Deny}},
			android.AnswerDeny, false, false,
			`local_vm_permission=deny camera for com.openpocket.camera: pressed "Don't allow" by humanAuth.permissions.groups.camera`},
		{"per app", android.PkgMaps, "location", "android.permission.ACCESS_FINE_LOCATION",
			capability.Policy{Groups: map[string]capability.Answer{"location": capability.Allow},
				Apps: map[string]map[string]capability.Answer{android.PkgMaps: {"location": capability.Deny}}},
			android.AnswerDeny, false, false,
			`local_vm_permission=deny location for com.openpocket.maps: pressed "Don't allow" by humanAuth.permissions.apps.com.openpocket.maps.location`},
		{"default", android.PkgMaps, "location", "android.permission.ACCESS_FINE_LOCATION",
			capability.Policy{Default: capability.Allow, Groups: map[string]capability.Answer{"camera": capability.Deny}},
			android.AnswerForeground, true, false,
			`local_vm_permission=allow location for com.openpocket.maps: pressed "While using the app" by humanAuth.permissions.default`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			phone.Reset()
			r.srv = llmtest.NewServer(t) // a fresh script and request log per case
			r.srv.ReplyTool("launch_app", map[string]any{"packageName": c.pkg})
			r.srv.ReplyTool("tap", map[string]any{"x": x, "y": y, "thought": "press Allow"})
			r.srv.ReplyTool("finish", map[string]any{"message": "done"})
			res := runUnderPolicy(t, r, c.policy, "open the app")

			assert.Equal(t, []android.PermissionAnswer{{Package: c.pkg, Group: c.group, Answer: c.answer}}, phone.PermissionAnswers())
			assert.Equal(t, c.granted, phone.PermissionGranted(c.pkg, c.perm), "the app's grant")
			assert.Equal(t, c.oneTime, phone.PermissionOneTime(c.pkg, c.perm))
			out, err := r.scratch().Shell(context.Background(), "dumpsys package "+c.pkg)
			require.NoError(t, err)
			assert.Contains(t, string(out.Stdout), c.perm+": granted="+map[bool]string{true: "true", false: "false"}[c.granted])

			body, err := os.ReadFile(res.SessionPath)
			require.NoError(t, err)
			assert.Equal(t, 1, strings.Count(string(body), "local_vm_permission="), string(body))
			assert.Contains(t, string(body), c.line)
			require.Len(t, r.srv.Requests(), 3, "launch, tap, finish: the model was asked three times")
			assert.Contains(t, string(r.srv.Requests()[0].Raw), "answered by the runtime's policy", "the prompt says who answers the dialogs")
			for _, q := range r.srv.Requests() {
				assert.NotContains(t, string(q.Raw), "permission_allow", "the model saw the dialog")
				assert.NotContains(t, string(q.Raw), "Only this time", "the model saw the dialog")
			}
		})
	}
}
