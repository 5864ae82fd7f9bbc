package run_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

func TestDealShardsRoundRobin(t *testing.T) {
	shards := run.DealShards([]string{"a", "b"}, []string{"1.yaml", "2.yaml", "3.yaml"})
	assert.Equal(t, []run.Shard{{Device: "a", Files: []string{"1.yaml", "3.yaml"}}, {Device: "b", Files: []string{"2.yaml"}}}, shards)
	assert.Equal(t, []run.Shard{{Device: "a"}}, run.DealShards([]string{"a"}, nil), "no files: an empty share")
}

// TestPlayShardsRunsEachShareOnItsPhone: three phones, four playbooks
// (one that does not compile): each phone runs its own share in order,
// the bad one is a failed result of its shard, and Done hears of every
// playbook one at a time.
func TestPlayShardsRunsEachShareOnItsPhone(t *testing.T) {
	phones := []*sim.Sim{phone.Take(t), simtest.Start(t), simtest.Start(t)}
	for _, p := range phones {
		p.Phone().Reset()
		require.True(t, p.Phone().WifiOn())
	}
	client := adb.NewClient("127.0.0.1:5037")
	svc := run.New(run.Config{StateDir: t.TempDir(),
		OpenDevice: func(ctx context.Context, serial string) (engine.Device, func(), error) {
			d, err := client.Open(ctx, adb.Target{Serial: serial})
			return d, func() {}, err
		}})
	defer svc.Close()
	wifiOff := writeFile(t, "wifi-off.yaml", "name: wifi off\nsteps:\n  - launch: com.android.settings\n  - tap: {id: wifi_switch}\n  - assert_visible: {id: wifi_switch, checked: false}\n")
	look := writeFile(t, "look.yaml", "name: look\nsteps:\n  - launch: com.android.settings\n  - assert_visible: Wi-Fi\n")
	bad := writeFile(t, "bad.yaml", "name: bad\nsteps:\n  - tap_everything: yes\n")
	devices := []string{phones[0].Serial(), phones[1].Serial(), phones[2].Serial()}
	shards := run.DealShards(devices, []string{wifiOff, look, look, bad})

	var inFlight, calls atomic.Int32
	results := svc.PlayShards(t.Context(), shards, run.ShardOptions{
		Done: func(device string, i, n int, r run.PlaybookResult, compileErr error) {
			assert.Equal(t, int32(1), inFlight.Add(1), "Done calls never overlap")
			defer inFlight.Add(-1)
			calls.Add(1)
			time.Sleep(5 * time.Millisecond)
			assert.Equal(t, r.File == bad, compileErr != nil, "only bad.yaml fails to compile: %v", compileErr)
		}})
	assert.Equal(t, int32(4), calls.Load())
	require.Len(t, results, 3)
	require.Len(t, results[0], 2, "phone 0 had wifi-off.yaml and bad.yaml")
	assert.Equal(t, "passed", results[0][0].Status, results[0][0].Error)
	assert.Equal(t, "failed", results[0][1].Status)
	assert.Contains(t, results[0][1].Error, "tap_everything")
	for k := 1; k < 3; k++ {
		require.Len(t, results[k], 1)
		assert.Equal(t, "passed", results[k][0].Status, results[k][0].Error)
	}
	assert.False(t, phones[0].Phone().WifiOn(), "wifi-off.yaml ran on phone 0")
	assert.True(t, phones[1].Phone().WifiOn(), "and on no other phone")
	assert.True(t, phones[2].Phone().WifiOn())
}
