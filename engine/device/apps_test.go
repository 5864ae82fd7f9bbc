package device_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/device/devicetest"
)

func TestAppOperations(t *testing.T) {
	f := devicetest.New()
	f.OnOutput("am force-stop", "")
	f.OnExit("pm clear com.locked", "", "Failed to clear", 1)
	f.OnOutput("pm clear", "Success\n")
	f.OnOutput("pm path com.android.settings", "package:/system/priv-app/Settings/Settings.apk\n")
	f.OnExit("pm path", "", "", 1)
	p := device.NewPhone(f, device.Options{})
	ctx := context.Background()

	require.NoError(t, p.StopApp(ctx, "com.example.app"))
	require.NoError(t, p.ClearApp(ctx, "com.example.app"))
	err := p.ClearApp(ctx, "com.locked")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exit code 1: Failed to clear")
	ok, err := p.AppInstalled(ctx, "com.android.settings")
	require.NoError(t, err)
	assert.True(t, ok)
	ok, err = p.AppInstalled(ctx, "com.missing")
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Contains(t, f.Calls(), "am force-stop com.example.app")
	assert.Contains(t, f.Calls(), "pm clear com.example.app")
}
