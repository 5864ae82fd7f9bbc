package main_test

import (
	"context"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/cli"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// BenchmarkMCPSnapshot measures the snapshot tool (MCP request, device
// lease, run service, capture, JSON and image content) against the floor
// of the same capture through the same backend without MCP, in the same
// run: mcp/direct is what serving over MCP costs per snapshot.
func BenchmarkMCPSnapshot(b *testing.B) {
	phone := simtest.Start(b)
	withMCPBackend(b, b.TempDir(), phone.Serial(), nil, func(ctx context.Context, cs *sdk.ClientSession, backend *cli.MCPBackend) {
		capture := func() {
			p, release, err := backend.Phone(ctx, "")
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
		capture()
		snapshot() // warm both paths
		var direct, viaMCP time.Duration
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
		b.ReportMetric(float64(direct.Microseconds())/float64(b.N)/1000, "direct-ms/op")
		b.ReportMetric(float64(viaMCP.Microseconds())/float64(b.N)/1000, "mcp-ms/op")
		b.ReportMetric(float64(viaMCP)/float64(direct), "mcp/direct")
	})
}
