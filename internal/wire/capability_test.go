package wire

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/capability"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/workspace"
)

// humanAuth.probe and humanAuth.permissions of config.json reach every
// run of the service: the agent's probe mode and the engine's policy.
func TestCapabilityConfigReachesTheRunService(t *testing.T) {
	h, err := workspace.Open(t.TempDir())
	require.NoError(t, err)
	cfg, _, err := workspace.ParseConfig("config.json", []byte(`{"humanAuth": {"probe": "auto",
		"permissions": {"groups": {"camera": "once"}, "apps": {"com.example.maps": {"location": "allow"}}}}}`))
	require.NoError(t, err)
	rc := Assembly{}.serviceConfig(h, cfg, run.Config{})
	assert.Equal(t, "auto", rc.Agent.Probe)
	require.NotNil(t, rc.Permissions)
	a, src := rc.Permissions.Decide("com.example.maps", "location")
	assert.Equal(t, capability.Allow, a)
	assert.Equal(t, "humanAuth.permissions.apps.com.example.maps.location", src)
	a, _ = rc.Permissions.Decide("com.example.cam", "camera")
	assert.Equal(t, capability.Once, a)

	rc = Assembly{}.serviceConfig(h, workspace.DefaultConfig(), run.Config{})
	assert.Nil(t, rc.Permissions, "no policy unless configured")
	assert.Empty(t, rc.Agent.Probe)
}
