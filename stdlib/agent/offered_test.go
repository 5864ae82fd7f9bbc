package agent

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
)

// A run offers only what it can execute: with codingTools.enabled=false
// the executor set has no coding actions, so neither the tools nor the
// system prompt name them.
func TestOfferedToolsFollowTheExecutors(t *testing.T) {
	names := func(ts []action.Tool) map[string]bool {
		m := map[string]bool{}
		for _, t := range ts {
			m[t.Name] = true
		}
		return m
	}
	var ex engine.Executor = nil
	got := names(offeredTools(action.Tools(nil), Options{}, map[string]engine.Executor{"memory_search": ex, "run_script": noopExecutor{}}))
	assert.True(t, got["run_script"])
	assert.True(t, got["tap"])
	for _, absent := range []string{"read", "write", "edit", "apply_patch", "exec", "process", "memory_search", "cron_add", "request_user_input"} {
		assert.False(t, got[absent], absent)
	}
}

type noopExecutor struct{}

func (noopExecutor) Execute(context.Context, action.Action) (string, error) { return "", nil }
