package adb_test

import (
	"context"
	"testing"
	"time"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
)

// BenchmarkSnapshotVsFloor compares a full snapshot (screencap, current app,
// UI dump, decode, scale, hash, elements; no cache) with its floor: the same
// three round trips issued raw and sequentially through the same adb server.
// Reported: floor ms, snapshot ms, and their ratio (target ≤ 1.15).
func BenchmarkSnapshotVsFloor(b *testing.B) {
	_, d := openShared(b)
	ctx := context.Background()
	p := device.NewPhone(d, device.Options{})
	if _, err := p.LaunchApp(ctx, "com.android.settings"); err != nil {
		b.Fatal(err)
	}
	floor := func() { snapshotFloor(b, ctx, d) }
	snap := func() {
		if _, err := p.Capture(ctx, device.CaptureOptions{NoCache: true}); err != nil {
			b.Fatal(err)
		}
	}
	floor()
	snap()
	b.ReportAllocs()
	b.ResetTimer()
	var tFloor, tSnap time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		floor()
		t1 := time.Now()
		snap()
		t2 := time.Now()
		tFloor += t1.Sub(t0)
		tSnap += t2.Sub(t1)
	}
	b.ReportMetric(float64(tFloor.Microseconds())/1000/float64(b.N), "floor-ms")
	b.ReportMetric(float64(tSnap.Microseconds())/1000/float64(b.N), "snapshot-ms")
	b.ReportMetric(float64(tSnap)/float64(tFloor), "ratio")
}

// BenchmarkTapVsRawInputTap compares Phone.Execute(tap) with a raw
// shell,v2 `input tap` round trip (target ratio ≤ 1.2).
func BenchmarkTapVsRawInputTap(b *testing.B) {
	_, d := openShared(b)
	ctx := context.Background()
	p := device.NewPhone(d, device.Options{})
	tap := mustParseB(b, `{"type":"tap","x":10,"y":1000}`)
	if _, err := p.Execute(ctx, tap, device.ActOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var tRaw, tTap time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := d.Shell(ctx, "input tap 10 1000"); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := p.Execute(ctx, tap, device.ActOptions{}); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		tRaw += t1.Sub(t0)
		tTap += t2.Sub(t1)
	}
	b.ReportMetric(float64(tRaw.Microseconds())/1000/float64(b.N), "raw-ms")
	b.ReportMetric(float64(tTap.Microseconds())/1000/float64(b.N), "tap-ms")
	b.ReportMetric(float64(tTap)/float64(tRaw), "ratio")
}

// BenchmarkSnapshotChangingScreenVsFloor is the same comparison when every
// capture sees a different screen (Wi-Fi toggled between iterations, the
// virtual phone's re-render warmed outside the timed region), so the
// snapshot must decode and parse anew each time.
func BenchmarkSnapshotChangingScreenVsFloor(b *testing.B) {
	s, d := openShared(b)
	ctx := context.Background()
	p := device.NewPhone(d, device.Options{})
	if _, err := p.LaunchApp(ctx, "com.android.settings"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var tFloor, tSnap time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if _, err := d.Shell(ctx, "settings put global wifi_on "+map[bool]string{true: "1", false: "0"}[i%2 == 0]); err != nil {
			b.Fatal(err)
		}
		s.Phone().ScreenPNG() // warm the virtual phone's render
		s.Phone().UIDumpXML()
		b.StartTimer()
		t0 := time.Now()
		snapshotFloor(b, ctx, d)
		t1 := time.Now()
		if _, err := p.Capture(ctx, device.CaptureOptions{NoCache: true}); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		tFloor += t1.Sub(t0)
		tSnap += t2.Sub(t1)
	}
	b.ReportMetric(float64(tFloor.Microseconds())/1000/float64(b.N), "floor-ms")
	b.ReportMetric(float64(tSnap.Microseconds())/1000/float64(b.N), "snapshot-ms")
	b.ReportMetric(float64(tSnap)/float64(tFloor), "ratio")
}

// snapshotFloor issues a snapshot's device round trips raw and in sequence:
// screencap, the current app's dumpsys, the UI dump.
func snapshotFloor(b *testing.B, ctx context.Context, d *adb.Device) {
	if _, err := d.ExecOut(ctx, "screencap -p"); err != nil {
		b.Fatal(err)
	}
	if _, err := d.Shell(ctx, "dumpsys activity activities"); err != nil {
		b.Fatal(err)
	}
	if _, err := d.ExecOut(ctx, "uiautomator dump /dev/tty"); err != nil {
		b.Fatal(err)
	}
}
