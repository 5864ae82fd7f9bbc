package agent_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim/android"
	"github.com/openpocket/openpocket/stdlib/agent"
)

// person answers human-auth requests like someone at the relay page: a
// fixed status, every request kept.
type person struct {
	status string
	mu     sync.Mutex
	asked  []agent.HumanAuthRequest
}

func (p *person) auth(_ context.Context, req agent.HumanAuthRequest) (agent.HumanAuthDecision, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, req)
	return agent.HumanAuthDecision{Status: p.status, Message: "the user " + p.status + " the request"}, nil
}

func (p *person) requests() []agent.HumanAuthRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]agent.HumanAuthRequest(nil), p.asked...)
}

// scratch is a device.Phone of the rig's virtual phone for setting up
// screens through the real adb server, as a user's own taps would.
func (r *rig) scratch() *device.Phone {
	r.t.Helper()
	tr, err := r.openDevice(context.Background())
	require.NoError(r.t, err)
	return device.NewPhone(tr, device.Options{})
}

// tapID taps the element whose resource id ends with id.
func tapID(t *testing.T, p *device.Phone, id string) {
	t.Helper()
	ctx := context.Background()
	root, _, err := p.Hierarchy(ctx)
	require.NoError(t, err)
	var hit *screen.Node
	root.Walk(func(n *screen.Node) bool {
		if hit == nil && strings.HasSuffix(n.ResourceID, "/"+id) {
			hit = n
		}
		return hit == nil
	})
	require.NotNil(t, hit, "element %s on screen", id)
	c := hit.Center()
	_, err = p.Shell(ctx, fmt.Sprintf("input tap %d %d", c.X, c.Y))
	require.NoError(t, err)
}

func launch(t *testing.T, p *device.Phone, pkg string) {
	t.Helper()
	_, err := p.Shell(context.Background(), "monkey -p "+pkg+" -c android.intent.category.LAUNCHER 1")
	require.NoError(t, err)
}

func grant(t *testing.T, p *device.Phone, pkg, perm string) {
	t.Helper()
	res, err := p.Shell(context.Background(), "pm grant "+pkg+" "+perm)
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode, "pm grant: %s", res.Stderr)
}

// surfaces set up each screen the probe must recognise, through adb.
var surfaces = []struct {
	name, kind, capability, app string
	setup                       func(t *testing.T, p *device.Phone)
}{
	{"camera app", "camera", "camera", android.PkgCamera, func(t *testing.T, p *device.Phone) {
		grant(t, p, android.PkgCamera, "android.permission.CAMERA")
		launch(t, p, android.PkgCamera)
	}},
	{"gallery picker", "photos", "files", android.PkgPhotoPicker, func(t *testing.T, p *device.Phone) {
		grant(t, p, android.PkgCamera, "android.permission.CAMERA")
		launch(t, p, android.PkgCamera)
		tapID(t, p, "thumbnail_button")
	}},
	{"payment sheet", "payment", "payment", android.PkgGMS, func(t *testing.T, p *device.Phone) {
		launch(t, p, android.PkgPay)
		tapID(t, p, "buy_with_googlepay")
	}},
	{"location prompt", "location", "location", android.PkgMaps, func(t *testing.T, p *device.Phone) {
		launch(t, p, android.PkgMaps)
	}},
	{"recorder app", "microphone", "microphone", android.PkgRecorder, func(t *testing.T, p *device.Phone) {
		grant(t, p, android.PkgRecorder, "android.permission.RECORD_AUDIO")
		launch(t, p, android.PkgRecorder)
	}},
	{"microphone prompt", "microphone", "microphone", android.PkgRecorder, func(t *testing.T, p *device.Phone) {
		launch(t, p, android.PkgRecorder)
		tapID(t, p, "recordButton")
	}},
	{"secure screen", "secure", "unknown", android.PkgPay, func(t *testing.T, p *device.Phone) {
		launch(t, p, android.PkgPay)
		tapID(t, p, "card_button")
	}},
}

// Each surface in each mode: off leaves the step to the model; ask and
// auto take it before the model, with the surface's capability; the
// model's own finish then ends the run.
func TestProbeSurfacesInEachMode(t *testing.T) {
	r := newRig(t)
	phone := r.sim.Phone()
	phone.InstallCapabilityApps()
	for _, s := range surfaces {
		for _, mode := range []string{"off", "ask", "auto"} {
			t.Run(s.name+"/"+mode, func(t *testing.T) {
				phone.Reset()
				s.setup(t, r.scratch())
				if s.kind == "secure" {
					require.Equal(t, android.PkgPay+"/.CardEntryActivity", phone.CurrentActivity())
				}
				r.srv.ReplyTool("finish", map[string]any{"message": "done"})
				before := len(r.srv.Requests())
				who := &person{status: "approved"}
				res, err := r.run(context.Background(), r.client(0), "pay for the order", agent.Options{Probe: mode, HumanAuth: who.auth, MaxSteps: 4})
				require.NoError(t, err)
				assert.True(t, res.Success, res.Message)
				assert.Equal(t, 1, len(r.srv.Requests())-before, "the model is asked once, for its finish")
				body, err := os.ReadFile(res.SessionPath)
				require.NoError(t, err)
				asked := who.requests()
				if mode == "off" {
					assert.Empty(t, asked, "probe off asks nobody")
					assert.NotContains(t, string(body), "capability probe")
					assert.Equal(t, 1, res.Steps)
					return
				}
				require.Len(t, asked, 1, "the probe asks once")
				assert.Equal(t, s.capability, asked[0].Capability)
				assert.Contains(t, asked[0].Instruction, s.app)
				assert.Equal(t, mode == "ask", strings.HasPrefix(asked[0].Instruction, "Take over this step?"), asked[0].Instruction)
				assert.Contains(t, string(body), fmt.Sprintf("capability probe (humanAuth.probe=%s): %s surface in %s", mode, s.kind, s.app))
				assert.Contains(t, string(body), "Human auth approved")
				assert.Equal(t, 2, res.Steps, "the probe's step and the model's finish")
			})
		}
	}
}

// "ask": a person who declines (or never answers) lets the agent go on;
// "auto": a rejection or timeout ends the run FAILED before the model acts
// again.
func TestProbeDeclinedOfferGoesOnRejectedRequestFails(t *testing.T) {
	r := newRig(t)
	phone := r.sim.Phone()
	phone.InstallCapabilityApps()
	for _, mode := range []string{"ask", "auto"} {
		for _, status := range []string{"rejected", "timeout"} {
			t.Run(mode+"/"+status, func(t *testing.T) {
				phone.Reset()
				surfaces[0].setup(t, r.scratch())
				r.srv = llmtest.NewServer(t) // a fresh script and request log per case
				r.srv.ReplyTool("keyevent", map[string]any{"keycode": "KEYCODE_HOME"})
				r.srv.ReplyTool("finish", map[string]any{"message": "done"})
				who := &person{status: status}
				res, err := r.run(context.Background(), r.client(0), "take a photo", agent.Options{Probe: mode, HumanAuth: who.auth, MaxSteps: 5})
				require.Len(t, who.requests(), 1)
				if mode == "ask" {
					require.NoError(t, err)
					assert.True(t, res.Success, res.Message)
					assert.Equal(t, 3, res.Steps, "probe, the model's HOME, finish")
					assert.Equal(t, "com.android.launcher3", phone.CurrentPackage(), "the model went on")
					body, _ := os.ReadFile(res.SessionPath)
					assert.Contains(t, string(body), "the person did not take over; the agent goes on")
					return
				}
				assert.False(t, res.Success)
				assert.Contains(t, res.Message, "human auth "+status)
				assert.Equal(t, android.PkgCamera, phone.CurrentPackage(), "no action after the "+status)
				assert.Empty(t, r.srv.Requests(), "the model is not asked after a "+status)
			})
		}
	}
}
