package sim_test

import (
	"testing"

	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// BenchmarkRoundTrip measures what the runtime pays per device call: a
// fresh adb server connection, host:transport, the service, and its output
// to EOF, through the real adb server into the virtual phone.
func BenchmarkRoundTrip(b *testing.B) {
	phone := simtest.Start(b)
	client := goadbClient(b)
	for _, bc := range []struct{ name, service string }{
		{"exec-screencap", "exec:screencap -p"},
		{"exec-uiautomator-dump", "exec:uiautomator dump /dev/tty"},
		{"shell-v2-input-tap", "shell,v2,raw:input tap 10 10"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := testContext(b)
			outputBytes := 0
			for b.Loop() {
				out, err := wireRun(ctx, client, phone.Serial(), bc.service)
				if err != nil {
					b.Fatal(err)
				}
				outputBytes = len(out)
			}
			if outputBytes == 0 && bc.name != "shell-v2-input-tap" {
				b.Fatalf("%s returned no output", bc.service)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N), "ms/op")
			b.ReportMetric(float64(outputBytes), "bytes/op")
		})
	}
}

// BenchmarkPushPull5MB measures a 5 MB push and pull with goadb's sync client.
func BenchmarkPushPull5MB(b *testing.B) {
	phone := simtest.Start(b)
	_, data := randomFile(b, 5<<20)
	device := goadbDevice(b, phone.Serial())
	for b.Loop() {
		pushPull(b, device, "/sdcard/bench.bin", data)
	}
	b.SetBytes(int64(2 * len(data)))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N), "ms/op")
}
