package gateway

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/gwenv"
	"github.com/openpocket/openpocket/internal/workspace"
)

// chatChannel is a chat channel recording deliveries; allowed are the
// chats it allows (as Telegram's allowedUserIds/allowedChatIds do).
type chatChannel struct {
	allowed []string
	mu      sync.Mutex
	sent    []string // "to: text"
}

func (c *chatChannel) Name() string { return "telegram" }
func (c *chatChannel) Run(ctx context.Context) error {
	<-ctx.Done()
	return nil
}
func (c *chatChannel) Deliver(_ context.Context, to, text string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, to+": "+text)
	return nil
}
func (c *chatChannel) AllowsChat(to string) bool {
	for _, a := range c.allowed {
		if a == to {
			return true
		}
	}
	return false
}
func (c *chatChannel) deliveries() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.sent...)
}

// TestModelWrittenJobsDeliverOnlyToAllowedChats: the model wrote jobs.json
// (it lives in the workspace) with runOnStartup jobs delivering to a chat
// that is not allowed; the gateway runs them but sends nothing there. A
// job whose delivery OpenPocket signed (the cron_add action from a chat)
// still delivers to its chat, allowed or not; a signed delivery whose
// target the model changed loses its signature.
func TestModelWrittenJobsDeliverOnlyToAllowedChats(t *testing.T) {
	home := newGwHome(t, nil, "")
	ws, err := workspace.Open(home)
	require.NoError(t, err)
	key, err := cron.DeliveryKey(ws.State())
	require.NoError(t, err)
	signed := cron.Job{ID: "signed", Name: "signed", Enabled: true, RunOnStartup: true,
		Schedule: cron.Schedule{Kind: cron.KindEvery, EveryMs: 3600000}, Payload: cron.Payload{Kind: cron.PayloadAgentTurn, Task: "signed task"}}
	signed.SignDelivery(cron.Delivery{Channel: "telegram", To: "-100555"}, key)
	tampered := signed
	tampered.ID, tampered.Name, tampered.Payload.Task, tampered.Device = "tampered", "tampered", "tampered task", "emu-2"
	tampered.Extra = nil
	tampered.SignDelivery(cron.Delivery{Channel: "telegram", To: "-100555"}, key)
	tampered.SetDelivery(cron.Delivery{Channel: "telegram", To: "999"}) // the model's edit
	f := cron.JobsFile{Version: cron.JobsVersion, Jobs: []cron.Job{signed, tampered}}
	require.NoError(t, cron.SaveJobs(ws.JobsPath(), f))
	// The model's own entries, written straight into the file.
	appendRawJobs(t, ws.JobsPath(),
		gwEvery("stranger", 3600000, "stranger task", `, "runOnStartup": true, "device": "emu-3", "delivery": {"channel": "telegram", "to": 999}`),
		gwEvery("allowed", 3600000, "allowed task", `, "runOnStartup": true, "device": "emu-4", "delivery": {"channel": "telegram", "to": "42"}`))

	ch := &chatChannel{allowed: []string{"42"}}
	runs := newFakeRuns()
	runs.result = func(c fakeCall) (engine.RunResult, error) {
		return engine.RunResult{Success: true, Message: "done"}, nil
	}
	o := Options{Gateway: gwenv.Gateway{Home: ws, Config: ws.Config(),
		StartChannels: func(workspace.Config, string, Current, *slog.Logger) ([]Channel, error) { return []Channel{ch}, nil }},
		runsFor: runs.runsFor}
	h := startGatewayWith(t, home, o, runs)
	for _, task := range []string{"signed task", "tampered task", "stranger task", "allowed task"} {
		h.waitCall(task, 0)
	}
	h.eventually("deliveries", func() bool { return len(ch.deliveries()) >= 2 })
	h.eventually("refusals", func() bool { return strings.Count(h.stderr.String(), "result not delivered") >= 2 })
	time.Sleep(200 * time.Millisecond)
	got := strings.Join(ch.deliveries(), "\n")
	assert.Contains(t, got, "42: ✓ allowed: done")
	assert.Contains(t, got, "-100555: ✓ signed: done")
	assert.NotContains(t, got, "999")
	assert.Contains(t, h.stderr.String(), "job stranger: result not delivered: its delivery to telegram 999 was written outside openpocket")
	assert.Contains(t, h.stderr.String(), "job tampered: result not delivered")
}

// appendRawJobs adds entries to the jobs file as text, as a model editing
// the file would.
func appendRawJobs(t *testing.T, path string, entries ...string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &top))
	var jobs []json.RawMessage
	require.NoError(t, json.Unmarshal(top["jobs"], &jobs))
	for _, e := range entries {
		jobs = append(jobs, json.RawMessage(e))
	}
	top["jobs"], err = json.Marshal(jobs)
	require.NoError(t, err)
	data, err = json.Marshal(top)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// TestStartupResultsWaitForTheChannels: a runOnStartup job that finishes
// before the chat channels have started still delivers its result once
// they have (it was dropped: the scheduler starts first).
func TestStartupResultsWaitForTheChannels(t *testing.T) {
	home := newGwHome(t, nil, "")
	ws, err := workspace.Open(home)
	require.NoError(t, err)
	require.NoError(t, cron.SaveJobs(ws.JobsPath(), cron.JobsFile{Version: cron.JobsVersion}))
	appendRawJobs(t, ws.JobsPath(),
		gwEvery("early", 3600000, "early task", `, "runOnStartup": true, "delivery": {"channel": "telegram", "to": "42"}`))
	ch := &chatChannel{allowed: []string{"42"}}
	runs := newFakeRuns()
	runs.result = func(fakeCall) (engine.RunResult, error) { return engine.RunResult{Success: true, Message: "done"}, nil }
	slowChannels := func(workspace.Config, string, Current, *slog.Logger) ([]Channel, error) {
		// The channel comes up only after the startup job has run and
		// had time to finish.
		deadline := time.Now().Add(gwWait)
		for time.Now().Before(deadline) {
			runs.mu.Lock()
			n := len(runs.calls)
			runs.mu.Unlock()
			if n > 0 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond)
		return []Channel{ch}, nil
	}
	o := Options{Gateway: gwenv.Gateway{Home: ws, Config: ws.Config(), StartChannels: slowChannels}, runsFor: runs.runsFor}
	h := startGatewayWith(t, home, o, runs)
	h.waitCall("early task", 0)
	h.eventually("the early result delivered", func() bool { return len(ch.deliveries()) == 1 })
	assert.Equal(t, []string{"42: ✓ early: done"}, ch.deliveries())
}
