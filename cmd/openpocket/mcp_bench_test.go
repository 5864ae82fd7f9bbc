package main_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/mcp/backend"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// BenchmarkMCPSnapshot measures the snapshot tool (MCP request, device
// lease, run service, capture, JSON and image content) against the floor
// of the same capture through the same backend without MCP, in the same
// run: mcp/direct is what serving over MCP costs per snapshot.
func BenchmarkMCPSnapshot(b *testing.B) {
	phone := simtest.Start(b)
	withMCPBackend(b, b.TempDir(), phone.Serial(), nil, func(ctx context.Context, cs *sdk.ClientSession, be *backend.Backend) {
		capture := func() {
			p, release, err := be.Phone(ctx, "")
			if err != nil {
				b.Fatal(err)
			}
			defer release()
			if _, err := p.Capture(ctx, device.CaptureOptions{Scaled: true}); err != nil {
				b.Fatal(err)
			}
		}
		snapshot := func() {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "snapshot"})
			if err != nil || res.IsError {
				b.Fatalf("snapshot: %v %v", err, res)
			}
		}
		floorAndMCP(b, 1, capture, snapshot, "direct")
	})
}

// floorAndMCP warms capture (the floor) and snapshot (the same through
// MCP) warm times, then times them alternately b.N times, so drift in a
// shared machine's load hits both alike, and reports each one's ms per
// call and mcp/<floor>.
func floorAndMCP(b *testing.B, warm int, capture, snapshot func(), floor string) (direct, viaMCP time.Duration) {
	for range warm {
		capture()
		snapshot()
	}
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		capture()
		t1 := time.Now()
		snapshot()
		direct += t1.Sub(t0)
		viaMCP += time.Since(t1)
	}
	b.StopTimer()
	b.ReportMetric(float64(direct.Microseconds())/float64(b.N)/1000, floor+"-ms/op")
	b.ReportMetric(float64(viaMCP.Microseconds())/float64(b.N)/1000, "mcp-ms/op")
	b.ReportMetric(float64(viaMCP)/float64(direct), "mcp/"+floor)
	return direct, viaMCP
}

// BenchmarkMCPSnapshotStdio measures the snapshot tool as a coding agent
// calls it: the built binary (`openpocket mcp`) as a process of its own,
// the official SDK's client over stdio, a static screen. Its floor, in the
// same loop, is the same capture inside this process on one phone kept
// across iterations: mcp/in-process is what a call costs over a snapshot
// (target ≤ 3, or mcp-in-process ≤ 5 ms).
func BenchmarkMCPSnapshotStdio(b *testing.B) {
	phone := simtest.Start(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	d, err := adb.NewClient("127.0.0.1:5037").Open(ctx, adb.Target{Serial: phone.Serial()})
	if err != nil {
		b.Fatal(err)
	}
	p := device.NewPhone(d, device.Options{})
	if _, err := p.LaunchApp(ctx, "com.android.settings"); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(binary, "--home", b.TempDir(), "-s", phone.Serial(), "mcp")
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "openpocket-bench", Version: "1"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	capture := func() {
		if _, err := p.Capture(ctx, device.CaptureOptions{Scaled: true}); err != nil {
			b.Fatal(err)
		}
	}
	snapshot := func() {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "snapshot"})
		if err != nil || res.IsError {
			b.Fatalf("snapshot: %v %v", err, res)
		}
	}
	// Four warm rounds: both phones choose their capture path.
	direct, viaMCP := floorAndMCP(b, 4, capture, snapshot, "in-process")
	b.ReportMetric(float64((viaMCP-direct).Microseconds())/float64(b.N)/1000, "mcp-in-process-ms")
}
