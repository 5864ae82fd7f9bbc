package cli

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// TestConnectAttachesAPhoneOverTCP: `openpocket connect HOST:PORT` on the
// real adb server attaches the virtual phone (not attached before) and
// names its serial; a bare host means port 5555, and a refused
// connection says what to check.
func TestConnectAttachesAPhoneOverTCP(t *testing.T) {
	simtest.RequireADB(t)
	home := isolatedInstall(t)
	s, err := sim.Start(context.Background(), sim.Options{})
	require.NoError(t, err)
	client := adb.NewClient("")
	t.Cleanup(func() { _ = client.Disconnect(context.Background(), s.Serial()); s.Close() })

	code, out, errOut := runMain(t, home, "connect", s.Serial())
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "connected to "+s.Serial())
	require.Eventually(t, func() bool {
		devs, _ := client.Devices(context.Background())
		for _, d := range devs {
			if d.Serial == s.Serial() && d.State == "device" {
				return true
			}
		}
		return false
	}, 15*time.Second, 50*time.Millisecond, "the adb server lists the phone")

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := l.Addr().(*net.TCPAddr).Port
	l.Close()
	code, _, errOut = runMain(t, home, "connect", fmt.Sprintf("127.0.0.1:%d", closed))
	assert.Equal(t, ExitDevice, code)
	assert.Contains(t, errOut, "Wireless debugging")
	assert.Contains(t, errOut, "openpocket pair")
	code, _, errOut = runMain(t, home, "connect", "127.0.0.2")
	assert.Equal(t, ExitDevice, code)
	assert.Contains(t, errOut, "127.0.0.2:5555", "a bare host is port 5555")
}

// TestPairFailureIsExplained: pairing that fails says why and what to
// do, never echoing the code; malformed input is refused before.
func TestPairFailureIsExplained(t *testing.T) {
	simtest.RequireADB(t)
	home := isolatedInstall(t)
	code, _, errOut := runMain(t, home, "pair", "127.0.0.1:1", "482913")
	assert.Equal(t, ExitDevice, code)
	assert.Contains(t, errOut, "pairing failed")
	assert.NotContains(t, errOut, "482913", "the pairing code is a secret")
	assert.Regexp(t, `platform-tools 30|Pair device with pairing code`, errOut)

	code, _, errOut = runMain(t, home, "pair", "127.0.0.1", "482913")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "expected HOST:PORT")
	code, _, errOut = runMain(t, home, "pair", "127.0.0.1:37000", "48a9")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "six-digit code")
}
