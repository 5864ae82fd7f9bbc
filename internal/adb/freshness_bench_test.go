package adb_test

import (
	"context"
	"testing"
	"time"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
)

// BenchmarkStaticSnapshotVsFresh measures what the element cache saves on
// a static screen (Settings, no action between captures): static-ms is a
// default capture (the cache may answer), fresh-ms a capture that always
// dumps, measured interleaved on the same phone; cache-share is the share
// of static captures the cache answered. ratio = static-ms / fresh-ms
// (below 1 while the cache works). Run it before and after a change to
// the cache policy to compare static-ms (target: after/before ≤ 1.2).
func BenchmarkStaticSnapshotVsFresh(b *testing.B) {
	_, d := openShared(b)
	ctx := context.Background()
	p := device.NewPhone(d, device.Options{})
	if _, err := p.LaunchApp(ctx, "com.android.settings"); err != nil {
		b.Fatal(err)
	}
	path := decideCapture(b, p)
	fresh := device.NewPhone(d, device.Options{Capture: device.CaptureMode(path)})
	capture := func(ph *device.Phone, o device.CaptureOptions) *screen.Snapshot {
		s, err := ph.Capture(ctx, o)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	capture(p, device.CaptureOptions{})
	capture(fresh, device.CaptureOptions{NoCache: true})
	b.ReportAllocs()
	b.ResetTimer()
	var tStatic, tFresh time.Duration
	hits := 0
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		s := capture(p, device.CaptureOptions{})
		t1 := time.Now()
		capture(fresh, device.CaptureOptions{NoCache: true})
		t2 := time.Now()
		tStatic += t1.Sub(t0)
		tFresh += t2.Sub(t1)
		if s.CaptureMetrics.UIElementsSource == screen.SourceCache {
			hits++
		}
	}
	b.ReportMetric(float64(tStatic.Microseconds())/1000/float64(b.N), "static-ms")
	b.ReportMetric(float64(tFresh.Microseconds())/1000/float64(b.N), "fresh-ms")
	b.ReportMetric(float64(hits)/float64(b.N), "cache-share")
	b.ReportMetric(float64(tStatic)/float64(tFresh), "ratio")
}
