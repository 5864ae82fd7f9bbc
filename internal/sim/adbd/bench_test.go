package adbd

import (
	"fmt"
	"testing"
)

// BenchmarkExecThroughput streams 5 MB of exec: output to a host that
// acknowledges every WRTE at once, over loopback TCP: the cost of the flow
// control and framing without the adb server.
func BenchmarkExecThroughput(b *testing.B) {
	_, addr := startServer(b, newFakePhone())
	h := dialTestHost(b, addr, 1<<20)
	const size = 5 << 20
	b.SetBytes(size)
	for b.Loop() {
		if got := h.open(fmt.Sprintf("exec:pattern %d", size)).drain(); got != size {
			b.Fatalf("got %d bytes", got)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N), "ms/op")
}

// BenchmarkShellV2RoundTrip is one small command: OPEN, output, exit
// packet, CLSE.
func BenchmarkShellV2RoundTrip(b *testing.B) {
	_, addr := startServer(b, newFakePhone())
	h := dialTestHost(b, addr, 1<<20)
	for b.Loop() {
		if r := decodeShellV2(b, h.open("shell,v2,raw:mixed").readAll()); r.exit != 3 {
			b.Fatalf("exit %d", r.exit)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N), "ms/op")
}

// BenchmarkSyncPush pushes 5 MB in 64 KiB DATA chunks and waits for OKAY.
func BenchmarkSyncPush(b *testing.B) {
	_, addr := startServer(b, newFakePhone())
	h := dialTestHost(b, addr, 1<<20)
	data := patternBytes(5 << 20)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if ok, msg := openSync(b, h).push("/sdcard/bench", 0o644, data, 1); !ok {
			b.Fatal(msg)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N), "ms/op")
}
