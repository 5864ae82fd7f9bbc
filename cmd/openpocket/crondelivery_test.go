package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/channel/telegram/telegramtest"
	"github.com/openpocket/openpocket/internal/workspace"
)

// TestModelWrittenDeliveryNeverReachesAStranger: the gateway (the real
// binary, Telegram against a fake Bot API) runs at startup a job the model
// wrote into jobs.json delivering to a chat that is not allowed, and a job
// the user added with `cron add --channel telegram --to` another chat.
// The user's result is sent (cron add signed it); the model's is not, and
// the log says why.
func TestModelWrittenDeliveryNeverReachesAStranger(t *testing.T) {
	r := newTGRig(t, func(cfg *workspace.Config, home string) { cfg.Cron.TickSec = 1 })
	ws := filepath.Join(r.home, "workspace")
	writeFile(t, ws, "hello.lua", "print(\"hello\")\n")
	res := runQuick(t, r.home, "-s", "dev-user", "cron", "add", "--id", "user", "--every", "24h", "--run-on-startup",
		"--lua", filepath.Join(ws, "hello.lua"), "--channel", "telegram", "--to", "7777")
	require.Equal(t, 0, res.code, res.stderr)

	jobsPath := filepath.Join(ws, "cron", "jobs.json")
	raw, err := os.ReadFile(jobsPath)
	require.NoError(t, err)
	var f map[string]any
	require.NoError(t, json.Unmarshal(raw, &f))
	f["jobs"] = append(f["jobs"].([]any), map[string]any{"id": "model", "name": "model", "enabled": true, "runOnStartup": true,
		"device": "dev-model", "schedule": map[string]any{"kind": "every", "everyMs": 86400000},
		"payload": map[string]any{"kind": "lua", "path": "hello.lua"}, "delivery": map[string]any{"channel": "telegram", "to": tgStranger.ID}})
	out, err := json.Marshal(f)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(jobsPath, out, 0o644))

	stderr, stop := r.gateway()
	r.wait("the user's job delivered", func(c []telegramtest.Call) bool {
		for _, x := range c {
			if x.Method == "sendMessage" && x.Params["chat_id"] == "7777" {
				return true
			}
		}
		return false
	})
	waitFor(t, "the model's job refused", func() bool {
		return strings.Contains(stderr.String(), "job model: result not delivered")
	})
	stop()
	for _, c := range r.tg.Calls("sendMessage") {
		assert.NotEqual(t, "6666", c.Params["chat_id"], "a result went to the stranger: %+v", c)
	}
	assert.Contains(t, stderr.String(), "written outside openpocket")
}
