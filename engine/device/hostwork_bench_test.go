package device

import (
	"bytes"
	"context"
	"encoding/binary"
	"image"
	"image/png"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/sim/android"
)

// simFrames renders the virtual phone's Settings screen twice (Wi-Fi on,
// then off: the status bar and one row change) as `screencap -p` and raw
// `screencap` bytes, with the elements the model reads of it.
func simFrames(b *testing.B) (pngs, raws [2][]byte, elems []screen.UIElement) {
	ph := android.New(android.Options{})
	sh := func(cmd string) {
		if code := ph.Shell(context.Background(), cmd, nil, io.Discard, io.Discard); code != 0 {
			b.Fatalf("%s: exit %d", cmd, code)
		}
	}
	sh("monkey -p com.android.settings -c android.intent.category.LAUNCHER 1")
	for i, wifi := range []string{"1", "0"} {
		sh("settings put global wifi_on " + wifi)
		pngs[i] = ph.ScreenPNG()
		img := ph.Screenshot().(*image.RGBA)
		w, h := img.Rect.Dx(), img.Rect.Dy()
		raw := make([]byte, 16, 16+len(img.Pix))
		binary.LittleEndian.PutUint32(raw[0:], uint32(w))
		binary.LittleEndian.PutUint32(raw[4:], uint32(h))
		binary.LittleEndian.PutUint32(raw[8:], 1) // RGBA_8888
		raws[i] = append(raw, img.Pix...)
	}
	root, err := screen.ParseHierarchy(ph.UIDumpXML())
	if err != nil {
		b.Fatal(err)
	}
	w, h := ph.Screenshot().Bounds().Dx(), ph.Screenshot().Bounds().Dy()
	sw, sh2 := screen.ScaledSize(w, h, screen.StyleOpenAI)
	elems = screen.Select(root, screen.ElementOptions{Width: w, Height: h,
		ScaleX: float64(w) / float64(sw), ScaleY: float64(h) / float64(sh2)}).Elements
	return pngs, raws, elems
}

// BenchmarkHostWorkPerFrame is the host's work for each new screenshot of
// a changing screen: decode (PNG path) or adopt (raw path), hash, scale,
// draw the marks and encode the image the model reads. "before" is the
// floor: the pipeline composed from standard parts, as it was before
// frame buffers were reused and marks drawn into the encoder's input
// (image/png's decode, Resize, SetOfMark's copy, JPEG), "phone" is what
// Phone does now, measured in the same run;
// reported: CPU ms per frame of each (process CPU time, both cores) and
// phone/before.
func BenchmarkHostWorkPerFrame(b *testing.B) {
	pngs, raws, elems := simFrames(b)
	for _, path := range []capturePath{pathPNG, pathRaw} {
		b.Run(path.String(), func(b *testing.B) {
			frames := pngs
			if path == pathRaw {
				frames = raws
			}
			p := NewPhone(nil, Options{})
			before := func(data []byte) {
				var full image.Image
				var err error
				if path == pathPNG {
					full, err = png.Decode(bytes.NewReader(data))
				} else {
					full, err = screen.DecodeRawScreencap(data)
				}
				if err != nil {
					b.Fatal(err)
				}
				screen.ContentHash(full)
				sw, sh := screen.ScaledSize(full.Bounds().Dx(), full.Bounds().Dy(), screen.StyleOpenAI)
				scaled := screen.Resize(full, sw, sh)
				screen.DHash(scaled)
				if _, err := screen.EncodeJPEG(screen.SetOfMark(scaled, elems, true), screen.DefaultJPEGQuality); err != nil {
					b.Fatal(err)
				}
			}
			now := func(data []byte) {
				fr, err := p.toFrame(data, path)
				if err != nil {
					b.Fatal(err)
				}
				if _, _, _, err := p.modelImages(fr, elems, true, true); err != nil {
					b.Fatal(err)
				}
			}
			// Raw frames are decoded in place: each call gets its own copy,
			// made outside the measured time.
			copies := func(i int) []byte { return append([]byte(nil), frames[i%2]...) }
			var tBefore, tNow time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				d1, d2 := copies(i), copies(i)
				b.StartTimer()
				c0 := processCPU()
				before(d1)
				c1 := processCPU()
				now(d2)
				tBefore += c1 - c0
				tNow += processCPU() - c1
			}
			n := float64(b.N)
			b.ReportMetric(float64(tBefore.Microseconds())/1000/n, "before-cpu-ms")
			b.ReportMetric(float64(tNow.Microseconds())/1000/n, "phone-cpu-ms")
			b.ReportMetric(float64(tNow)/float64(tBefore), "phone/before")
		})
	}
}

// BenchmarkScreencapPNGPath is the measurement behind keeping a PNG
// decoder of our own (imagecodec.DecodePNGRows) instead of image/png: the
// host's work on a new `screencap -p` frame up to the model-size image and
// its hashes, done by toFrame's streaming decode ("rows": inflate,
// unfilter, hash and shrink row by row) and by image/png plus Resize
// ("image/png": the whole 1080×2400 image decoded, then hashed and
// scaled), on the virtual phone's Settings frames as it writes them
// (image/png BestSpeed) and re-encoded at zlib's default level (what a
// phone's screencap writes). Reported per frame: CPU ms of each (process
// CPU, both cores), rows/image-png, and the bytes each allocates.
func BenchmarkScreencapPNGPath(b *testing.B) {
	sim, _, _ := simFrames(b)
	var phone [2][]byte
	for i, data := range sim {
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			b.Fatal(err)
		}
		phone[i] = buf.Bytes()
	}
	for _, c := range []struct {
		name   string
		frames [2][]byte
	}{{"sim-bestspeed", sim}, {"phone-default", phone}} {
		b.Run(c.name, func(b *testing.B) {
			rows := func(data []byte) {
				f, err := screen.DecodeScaledPNG(data, screen.StyleOpenAI)
				if err != nil {
					b.Fatal(err)
				}
				screen.DHash(f.Scaled)
			}
			std := func(data []byte) {
				full, err := png.Decode(bytes.NewReader(data))
				if err != nil {
					b.Fatal(err)
				}
				r := full.Bounds()
				screen.ContentHash(full)
				screen.BandsHash(full)
				sw, sh := screen.ScaledSize(r.Dx(), r.Dy(), screen.StyleOpenAI)
				screen.DHash(screen.Resize(full, sw, sh))
			}
			var tRows, tStd time.Duration
			var mRows, mStd uint64
			var ms runtime.MemStats
			alloc := func() uint64 { runtime.ReadMemStats(&ms); return ms.TotalAlloc }
			for i := range b.N {
				data := c.frames[i%2]
				a0, c0 := alloc(), processCPU()
				rows(data)
				c1, a1 := processCPU(), alloc()
				std(data)
				tRows += c1 - c0
				tStd += processCPU() - c1
				mRows += a1 - a0
				mStd += alloc() - a1
			}
			n := float64(b.N)
			b.ReportMetric(float64(tRows.Microseconds())/1000/n, "rows-cpu-ms")
			b.ReportMetric(float64(tStd.Microseconds())/1000/n, "image/png-cpu-ms")
			b.ReportMetric(float64(tRows)/float64(tStd), "rows/image-png")
			b.ReportMetric(float64(mRows)/n/(1<<20), "rows-alloc-MiB")
			b.ReportMetric(float64(mStd)/n/(1<<20), "image/png-alloc-MiB")
		})
	}
}
