package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/channel"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/workspace"
)

// A chat's /skill replay reports each top-level step as it ends
// (channel.ReplayStep, counting up, with the step's label), so the chat
// narrates it like an agent task instead of only its start and end.
func TestChannelReplayReportsItsSteps(t *testing.T) {
	s := simtest.Start(t)
	app, _, stderr := luaApp(t, t.Context(), s.Serial())
	svc := service(t, app)
	cfg, err := app.config()
	require.NoError(t, err)
	r := &ChannelRunner{f: app.services(), home: home(t, app), auth: app.humanAuth(),
		current: func() (*run.Service, workspace.Config, func()) { return svc, cfg, func() {} }}

	// A skill as learned skills are replayed: one step_end per step.
	skill := "---\nname: settings-twice\ndescription: Open Settings, then go home.\n---\n\n# Settings twice\n\n## Replay\n\n```lua\nlocal app, device, events = require('app'), require('device'), require('events')\n" +
		"assert(app.launch('com.android.settings'))\n" +
		"events.emit('step_end', {id = 1, label = 'Open Settings', status = 'passed', duration_ms = 1})\n" +
		"device.home()\n" +
		"events.emit('step_end', {id = 2, label = 'Go home', status = 'passed', duration_ms = 1})\n```\n"
	dir := filepath.Join(home(t, app).Workspace(), "skills")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "settings-twice.md"), []byte(skill), 0o644))

	var steps []engine.Event
	res, err := r.ReplaySkill(t.Context(), "settings-twice", nil, func(ev engine.Event) { steps = append(steps, ev) })
	require.NoError(t, err, stderr.String())
	require.True(t, res.Success, res.Message)
	require.Len(t, steps, 2, "one event per step")
	for i, label := range []string{"Open Settings", "Go home"} {
		assert.Equal(t, channel.ReplayStep, steps[i].Kind)
		assert.Equal(t, i+1, steps[i].Int("step"), "steps count up")
		assert.Equal(t, label, steps[i].Fields["action"])
	}
}
