package wire

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/workspace"
)

// Moved from internal/cli (the executor configuration is assembled here).
func TestExecutorConfigFromHonoursConfig(t *testing.T) {
	cfg := workspace.DefaultConfig()
	cfg.ScriptExecutor.TimeoutSec = 7
	cfg.ScriptExecutor.AllowedCommands = []string{"echo"}
	cfg.CodingTools.WorkspaceOnly = false
	cfg.CodingTools.Enabled = false
	cfg.MemoryTools.MinScore = 0
	got := executorConfigFrom(cfg)
	assert.Equal(t, 7, got.Script.TimeoutSec)
	assert.Equal(t, []string{"echo"}, got.Script.AllowedCommands)
	assert.False(t, got.Coding.WorkspaceOnly, "false in config stays false")
	assert.True(t, got.CodingDisabled)
	assert.True(t, got.Coding.AllowBackground)
	assert.Equal(t, 0.0, got.Memory.MinScore)
	assert.Equal(t, 6, got.Memory.MaxResults)
}

// The device section of config.json reaches the device layer.
func TestPhoneOptionsFromConfig(t *testing.T) {
	cfg := workspace.DefaultConfig()
	o := Assembly{}.PhoneOptions(cfg)
	assert.Equal(t, device.CaptureAuto, o.Capture, "auto by default")
	assert.Zero(t, o.ElementBudget, "the device layer's default budget")

	cfg.Device.Capture, cfg.Device.ElementBudgetChars, cfg.Device.SettleTimeoutMs = "png", 1500, 900
	o = Assembly{}.PhoneOptions(cfg)
	assert.Equal(t, device.CapturePNG, o.Capture)
	assert.Equal(t, 1500, o.ElementBudget)
	assert.Equal(t, 900*time.Millisecond, o.SettleTimeout)
}
