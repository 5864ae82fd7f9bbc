package android

import (
	"context"
	"fmt"
	"io"
	"testing"
)

// countingWriter discards output but keeps its size for throughput metrics.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(b []byte) (int, error) {
	w.n += int64(len(b))
	return len(b), nil
}

func benchShell(b *testing.B, p *Phone, cmdline string) {
	b.Helper()
	out := &countingWriter{}
	b.ResetTimer()
	for b.Loop() {
		if code := p.Shell(context.Background(), cmdline, nil, out, io.Discard); code != 0 {
			b.Fatalf("%q exited %d", cmdline, code)
		}
	}
	b.ReportMetric(float64(out.n)/float64(b.N), "bytes/op")
}

// BenchmarkScreencapCached measures screencap -p when nothing changed: the
// cached PNG is written out, no rendering.
func BenchmarkScreencapCached(b *testing.B) {
	p := New(Options{})
	p.ScreenPNG()
	benchShell(b, p, "screencap -p")
}

// BenchmarkScreencapAfterChange re-renders and re-encodes every time (the
// Wi-Fi icon in the status bar toggles).
func BenchmarkScreencapAfterChange(b *testing.B) {
	p := New(Options{})
	launch(b, p, PkgSettings)
	out := &countingWriter{}
	on := false
	for b.Loop() {
		on = !on
		cmd := "settings put global wifi_on 0; screencap -p"
		if on {
			cmd = "settings put global wifi_on 1; screencap -p"
		}
		if code := p.Shell(context.Background(), cmd, nil, out, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
	b.ReportMetric(float64(out.n)/float64(b.N), "bytes/op")
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/screencap")
}

// BenchmarkUIDumpCached is uiautomator dump with an unchanged screen.
func BenchmarkUIDumpCached(b *testing.B) {
	p := New(Options{})
	launch(b, p, PkgContacts)
	benchShell(b, p, "uiautomator dump /dev/tty")
}

// BenchmarkUIDumpAfterScroll re-lays out and re-serializes every time.
func BenchmarkUIDumpAfterScroll(b *testing.B) {
	p := New(Options{})
	launch(b, p, PkgContacts)
	out := &countingWriter{}
	up := true
	for b.Loop() {
		cmd := "input swipe 540 1800 540 1700; uiautomator dump /dev/tty"
		if !up {
			cmd = "input swipe 540 1700 540 1800; uiautomator dump /dev/tty"
		}
		up = !up
		if code := p.Shell(context.Background(), cmd, nil, out, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
	b.ReportMetric(float64(out.n)/float64(b.N), "bytes/op")
}

// BenchmarkInputTap taps the Wi-Fi row: hit test plus a state change.
func BenchmarkInputTap(b *testing.B) {
	p := New(Options{})
	launch(b, p, PkgSettings)
	x, y := center(b, dump(b, p).find(b, "wifi row", byText("Wi-Fi")))
	benchShell(b, p, fmt.Sprintf("input tap %d %d", x, y))
}
