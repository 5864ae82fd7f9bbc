package action

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Upstream's cron_add (src/agent/actions.ts) nests the schedule and names
// the job and its delivery: {id, name, schedule: {kind, expr, tz,
// summaryText}, task, channel, to}. Normalized, it reads like ours.
func TestCronAddAcceptsUpstreamsNestedShape(t *testing.T) {
	a, notes := NormalizeTool("cron_add", map[string]any{
		"id": "daily-weather", "name": "Weather", "task": "check the weather",
		"schedule": map[string]any{"kind": "cron", "expr": "0 8 * * *", "tz": "Europe/Berlin", "summaryText": "every day at 8"},
		"channel":  "telegram", "to": "12345",
	}, nil)
	assert.Empty(t, notes)
	assert.Equal(t, "cron_add", a.Type)
	assert.Equal(t, map[string]any{"id": "daily-weather", "name": "Weather", "task": "check the weather",
		"kind": "cron", "expr": "0 8 * * *", "tz": "Europe/Berlin", "summary": "every day at 8",
		"channel": "telegram", "to": "12345"}, a.Params)

	// Ours stays as it was; a flat parameter wins over the nested one.
	a, notes = NormalizeTool("cron_add", map[string]any{"task": "t", "kind": "every", "everyMs": 60000,
		"schedule": map[string]any{"kind": "cron", "everyMs": 5000}}, nil)
	assert.Empty(t, notes)
	assert.Equal(t, map[string]any{"task": "t", "kind": "every", "everyMs": 60000}, a.Params)

	// A nested value of the wrong kind is told, not fatal.
	a, notes = Normalize(map[string]any{"type": "cron_add", "task": "t", "schedule": map[string]any{"kind": "weekly", "expr": "0 8 * * 1"}}, nil)
	assert.Equal(t, "cron", a.Params["kind"], "the default kind stays")
	assert.Equal(t, "0 8 * * 1", a.Params["expr"])
	assert.NotEmpty(t, notes)
}

// Upstream offers cron_update; an unknown tool becomes wait, so before it
// had a spec the model's update silently did nothing.
func TestCronUpdateIsAnActionNotAWait(t *testing.T) {
	for _, a := range []Action{
		first(NormalizeTool("cron_update", map[string]any{"id": "j1", "enabled": false, "schedule": map[string]any{"expr": "30 7 * * *"}}, nil)),
		first(Normalize(map[string]any{"type": "cron_update", "id": "j1", "enabled": false, "expr": "30 7 * * *"}, nil)),
	} {
		assert.Equal(t, "cron_update", a.Type)
		assert.Equal(t, map[string]any{"id": "j1", "enabled": false, "expr": "30 7 * * *"}, a.Params,
			"only what was given: no kind default that would overwrite the job's")
	}
}

func first(a Action, _ []string) Action { return a }
