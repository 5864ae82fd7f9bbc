package sim_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// TestTVProfile: the TV profile reports a landscape 1080p screen and the
// tv characteristics over the real adb server.
func TestTVProfile(t *testing.T) {
	s := simtest.Start(t, sim.TV)
	d, err := adb.NewClient("").Open(context.Background(), adb.Target{Serial: s.Serial()})
	require.NoError(t, err)
	for cmd, want := range map[string]string{
		"getprop ro.build.characteristics": "tv",
		"wm size":                          "Physical size: 1920x1080",
		"wm density":                       "Physical density: 320",
		"getprop ro.product.model":         "OpenPocket Virtual TV",
	} {
		res, err := d.Shell(context.Background(), cmd)
		require.NoError(t, err)
		assert.Equal(t, want, strings.TrimSpace(string(res.Stdout)), cmd)
	}
	for _, key := range []string{"KEYCODE_DPAD_UP", "KEYCODE_DPAD_CENTER", "KEYCODE_MEDIA_PLAY_PAUSE"} {
		res, err := d.Shell(context.Background(), "input keyevent "+key)
		require.NoError(t, err)
		assert.Equal(t, 0, res.ExitCode, "%s: %s", key, res.Stderr)
	}
	phone := simtest.Start(t)
	pd, err := adb.NewClient("").Open(context.Background(), adb.Target{Serial: phone.Serial()})
	require.NoError(t, err)
	res, err := pd.Shell(context.Background(), "getprop ro.build.characteristics")
	require.NoError(t, err)
	assert.Equal(t, "phone", strings.TrimSpace(string(res.Stdout)))
}
