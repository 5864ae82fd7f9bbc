package main_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// TestMCPPlayReadsFilesInTheWorkspaceOnly: a client asking play for a host
// file — by absolute path, by "..", through a link in the workspace, or as
// an include of an inline playbook — gets a tool error that names the
// confinement and never quotes a line of the file.
func TestMCPPlayReadsFilesInTheWorkspaceOnly(t *testing.T) {
	phone := simtest.Start(t)
	home := t.TempDir()
	secret := filepath.Join(t.TempDir(), "shadow")
	require.NoError(t, os.WriteFile(secret, []byte("root:$6$SECRETHASH:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n"), 0o600))
	withMCPClient(t, home, phone.Serial(), nil, func(ctx context.Context, cs *sdk.ClientSession) {
		ws := filepath.Join(home, "workspace")
		require.NoError(t, os.Symlink(secret, filepath.Join(ws, "flow.yaml")))
		cases := []map[string]any{
			{"file": secret},
			{"file": "../../" + filepath.Base(filepath.Dir(secret)) + "/shadow"},
			{"file": "../config.json"},
			{"file": "flow.yaml"},
			{"yaml": "name: x\nsteps:\n  - run: " + secret + "\n"},
		}
		for _, args := range cases {
			res := call(t, ctx, cs, "play", args)
			assert.True(t, res.IsError, "%v", args)
			out := text(res)
			assert.NotContains(t, out, "SECRETHASH", "%v", args)
			assert.NotContains(t, out, "daemon", "%v", args)
			assert.NotContains(t, out, "apiKey", "%v", args)
			assert.Regexp(t, `outside the directory|symbolic link`, out, "%v", args)
		}
	})
}
