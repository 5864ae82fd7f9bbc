package adb_test

import (
	"context"
	"testing"
	"time"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/android"
)

// BenchmarkSnapshotVsFloor compares a full snapshot (screencap, current app,
// UI dump, decode, scale, hash, elements; no cache) with its floor: the same
// three round trips issued raw and sequentially through the same adb server
// (the screencap on the path the phone chose). Reported: floor ms, snapshot
// ms, and their ratio (target ≤ 1.15).
func BenchmarkSnapshotVsFloor(b *testing.B) {
	_, d := openShared(b)
	ctx := context.Background()
	p := device.NewPhone(d, device.Options{})
	if _, err := p.LaunchApp(ctx, "com.android.settings"); err != nil {
		b.Fatal(err)
	}
	path := decideCapture(b, p)
	floor := func() { snapshotFloor(b, ctx, d, path) }
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
// snapshot must decode and parse anew each time. Sub-benchmarks: the path
// auto mode picks on this phone, and each path forced; the floor always
// uses the same screencap command as the snapshot.
func BenchmarkSnapshotChangingScreenVsFloor(b *testing.B) {
	for _, mode := range []device.CaptureMode{device.CaptureAuto, device.CapturePNG, device.CaptureRaw} {
		b.Run(string(mode), func(b *testing.B) {
			s, d := openShared(b)
			ctx := context.Background()
			p := device.NewPhone(d, device.Options{Capture: mode})
			if _, err := p.LaunchApp(ctx, "com.android.settings"); err != nil {
				b.Fatal(err)
			}
			path := decideCapture(b, p)
			r := changingScreenRun(b, s, d, path, func() *screen.Snapshot {
				snap, err := p.Capture(ctx, device.CaptureOptions{NoCache: true})
				if err != nil {
					b.Fatal(err)
				}
				return snap
			}, nil)
			r.report(b, path)
		})
	}
}

// BenchmarkAgentSnapshotChangingScreen is the full agent snapshot — scaled
// image and set-of-mark overlay encoded for the model — on a screen that
// changes between captures (target ≤ 15 ms on the virtual phone), with
// its floor, and the bytes sent to the model per step against the smaller
// of PNG and JPEG of the same marked image (target ≤ 1: the model gets
// the smaller encoding), and against the JPEG every step sent before.
func BenchmarkAgentSnapshotChangingScreen(b *testing.B) {
	s, d := openShared(b)
	ctx := context.Background()
	p := device.NewPhone(d, device.Options{})
	if _, err := p.LaunchApp(ctx, "com.android.settings"); err != nil {
		b.Fatal(err)
	}
	path := decideCapture(b, p)
	var sent, smaller, jpegBytes int
	r := changingScreenRun(b, s, d, path, func() *screen.Snapshot {
		snap, err := p.Capture(ctx, device.CaptureOptions{Scaled: true, SOM: true, NoCache: true})
		if err != nil {
			b.Fatal(err)
		}
		return snap
	}, func(snap *screen.Snapshot) {
		if len(snap.SOMScreenshot) == 0 {
			b.Fatal("no set-of-mark image")
		}
		png, jpg := bothEncodings(b, snap)
		sent += len(snap.SOMScreenshot)
		smaller += min(png, jpg)
		jpegBytes += jpg
	})
	r.report(b, path)
	b.ReportMetric(float64(sent)/float64(b.N)/1024, "model-KiB/step")
	b.ReportMetric(float64(sent)/float64(smaller), "bytes-vs-smaller")
	b.ReportMetric(float64(sent)/float64(jpegBytes), "bytes-vs-jpeg")
}

// bothEncodings rebuilds snap's set-of-mark image from its full-size
// screenshot and returns its size as PNG and as JPEG.
func bothEncodings(b *testing.B, snap *screen.Snapshot) (png, jpg int) {
	full, err := snap.FullPNG()
	if err != nil {
		b.Fatal(err)
	}
	img, err := screen.DecodePNG(full)
	if err != nil {
		b.Fatal(err)
	}
	som := screen.SetOfMark(screen.Resize(img, snap.ScaledWidth, snap.ScaledHeight), snap.UIElements, true)
	pb, err := screen.EncodePNG(som)
	if err != nil {
		b.Fatal(err)
	}
	jb, err := screen.EncodeJPEG(som, screen.DefaultJPEGQuality)
	if err != nil {
		b.Fatal(err)
	}
	return len(pb), len(jb)
}

// BenchmarkCapturePathsWithEncodeDelay compares the two capture paths end
// to end (Capture with the scaled image, screen changing) when the virtual
// phone spends a real phone's time encoding: PNG encoding of a 1080×2400
// frame on a phone CPU is of the order of 100 ms or more, reading back the
// raw frame a few ms. Reported per path: capture ms; and raw/png.
func BenchmarkCapturePathsWithEncodeDelay(b *testing.B) {
	const pngEncode, rawReadback = 100 * time.Millisecond, 5 * time.Millisecond
	s, d := openShared(b)
	s.Phone().SetScreencap(android.ScreencapOptions{PNGDelay: pngEncode, RawDelay: rawReadback})
	ctx := context.Background()
	phones := map[string]*device.Phone{
		"png": device.NewPhone(d, device.Options{Capture: device.CapturePNG}),
		"raw": device.NewPhone(d, device.Options{Capture: device.CaptureRaw}),
	}
	if _, err := phones["png"].LaunchApp(ctx, "com.android.settings"); err != nil {
		b.Fatal(err)
	}
	auto := device.NewPhone(d, device.Options{})
	decideCapture(b, auto)
	took := map[string]time.Duration{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, name := range []string{"png", "raw"} {
			b.StopTimer()
			toggleWifi(b, ctx, s, d, i)
			b.StartTimer()
			t0 := time.Now()
			if _, err := phones[name].Capture(ctx, device.CaptureOptions{Scaled: true, NoCache: true}); err != nil {
				b.Fatal(err)
			}
			took[name] += time.Since(t0)
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(took["png"].Microseconds())/1000/n, "png-ms")
	b.ReportMetric(float64(took["raw"].Microseconds())/1000/n, "raw-ms")
	b.ReportMetric(float64(took["raw"])/float64(took["png"]), "raw/png")
	if path, _ := auto.CaptureChoice(); path != "raw" {
		b.Errorf("auto mode chose %s with a %s PNG encode delay", path, pngEncode)
	}
}

// decideCapture captures until the phone has settled on a capture path and
// returns it.
func decideCapture(b *testing.B, p *device.Phone) string {
	for i := 0; i < 20; i++ {
		if path, ok := p.CaptureChoice(); ok {
			return path
		}
		if _, err := p.Capture(context.Background(), device.CaptureOptions{NoCache: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.Fatal("the capture path was not decided after 20 captures")
	return ""
}

// toggleWifi changes the screen (the status bar and the Wi-Fi row) and
// warms the virtual phone's render so the next capture pays only for
// sending it.
func toggleWifi(b *testing.B, ctx context.Context, s *sim.Sim, d *adb.Device, i int) {
	if _, err := d.Shell(ctx, "settings put global wifi_on "+map[bool]string{true: "1", false: "0"}[i%2 == 0]); err != nil {
		b.Fatal(err)
	}
	s.Phone().ScreenPNG()
	s.Phone().UIDumpXML()
}

// floorRun sums a benchmark's floors, snapshots and the process CPU time
// the snapshots used (the virtual phone's share of serving them included).
type floorRun struct{ floor, snap, cpu time.Duration }

// changingScreenRun times b.N pairs of (floor, capture) with the screen
// changed before each pair; after (optional) inspects each snapshot
// outside the timed region.
func changingScreenRun(b *testing.B, s *sim.Sim, d *adb.Device, path string, capture func() *screen.Snapshot, after func(*screen.Snapshot)) floorRun {
	ctx := context.Background()
	var r floorRun
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		toggleWifi(b, ctx, s, d, i)
		b.StartTimer()
		t0 := time.Now()
		snapshotFloor(b, ctx, d, path)
		t1, c1 := time.Now(), processCPU()
		snap := capture()
		r.cpu += processCPU() - c1
		r.floor += t1.Sub(t0)
		r.snap += time.Since(t1)
		if after != nil {
			b.StopTimer()
			after(snap)
			b.StartTimer()
		}
	}
	return r
}

func (r floorRun) report(b *testing.B, path string) {
	n := float64(b.N)
	b.ReportMetric(float64(r.floor.Microseconds())/1000/n, "floor-ms")
	b.ReportMetric(float64(r.snap.Microseconds())/1000/n, "snapshot-ms")
	b.ReportMetric(float64(r.cpu.Microseconds())/1000/n, "snapshot-cpu-ms")
	b.ReportMetric(float64(r.snap)/float64(r.floor), "ratio")
	raw := 0.0
	if path == "raw" {
		raw = 1
	}
	b.ReportMetric(raw, "raw-path")
}

// rawFloorHint is the size of the virtual phone's raw screenshot.
const rawFloorHint = 16 + 1080*2400*4

// snapshotFloor issues a snapshot's device round trips raw and in sequence:
// screencap (on path, "png" or "raw"), the current app's dumpsys, the UI
// dump.
func snapshotFloor(b *testing.B, ctx context.Context, d *adb.Device, path string) {
	if path == "raw" {
		// Read into one buffer of the right size, as the phone does.
		if _, err := d.ExecOutSized(ctx, "screencap", rawFloorHint); err != nil {
			b.Fatal(err)
		}
	} else if _, err := d.ExecOut(ctx, "screencap -p"); err != nil {
		b.Fatal(err)
	}
	if _, err := d.Shell(ctx, "dumpsys activity activities"); err != nil {
		b.Fatal(err)
	}
	if _, err := d.ExecOut(ctx, "uiautomator dump /dev/tty"); err != nil {
		b.Fatal(err)
	}
}
