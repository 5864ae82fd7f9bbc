package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/gwenv"
)

// TestGatewaySecondOneRefused: the command refuses to start while another
// gateway of the agent holds its lock (moved from the gateway tests, which
// now live in internal/gateway: the lock is the command's).
func TestGatewaySecondOneRefused(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home") // opened (and created) by the command
	release, err := cron.AcquireGatewayLock(filepath.Join(home, "state"))
	require.NoError(t, err)
	defer release()

	var errOut bytes.Buffer
	served := false
	app := &App{Globals: Globals{Home: home}, Stdout: &bytes.Buffer{}, Stderr: &errOut, Ctx: context.Background(),
		sys: testSystem{gateway: func(context.Context, gwenv.Gateway) error { served = true; return nil }}}
	h, err := app.home()
	require.NoError(t, err)
	cfg, err := app.config()
	require.NoError(t, err)
	err = (&GatewayCmd{}).Run(app.Ctx, app.services(), app.humanAuth(), app.sys, app.sys, app.sys, app.sys, h, cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), fmt.Sprintf("gateway already running (pid %d, started ", os.Getpid()))
	assert.Equal(t, ExitFailed, ExitCode(err))
	assert.False(t, served, "the second gateway never started")
	assert.FileExists(t, cron.GatewayLockPath(filepath.Join(home, "state")), "the first gateway keeps its lock")
}
