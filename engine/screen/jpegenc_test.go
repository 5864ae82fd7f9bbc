package screen

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"
	"testing"
)

// psnr is the peak signal-to-noise ratio (dB) of b against a over RGB.
func psnr(a, b image.Image) float64 {
	var se float64
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			for _, d := range []float64{float64(r1>>8) - float64(r2>>8), float64(g1>>8) - float64(g2>>8), float64(b1>>8) - float64(b2>>8)} {
				se += d * d
			}
		}
	}
	mse := se / float64(3*r.Dx()*r.Dy())
	if mse == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/mse)
}

func TestEncodeJPEGMatchesImageJPEGQuality(t *testing.T) {
	for _, size := range []image.Point{{768, 1707}, {300, 700}, {37, 21}, {1, 1}} {
		src := image.NewRGBA(image.Rect(0, 0, size.X, size.Y))
		copy(src.Pix, testScreen(size.X, size.Y, 3).Pix)
		som := SetOfMark(src, []UIElement{{ID: "7", Bounds: Rect{2, 2, size.X / 2, size.Y / 2}}}, false)
		ours, err := EncodeJPEG(som, 80)
		if err != nil {
			t.Fatal(err)
		}
		var ref bytes.Buffer
		if err := jpeg.Encode(&ref, som, &jpeg.Options{Quality: 80}); err != nil {
			t.Fatal(err)
		}
		if SniffImageMIME(ours) != "image/jpeg" {
			t.Fatalf("%v: not a JPEG signature", size)
		}
		a, err := jpeg.Decode(bytes.NewReader(ours))
		if err != nil {
			t.Fatalf("%v: our JPEG does not decode: %v", size, err)
		}
		b, _ := jpeg.Decode(bytes.NewReader(ref.Bytes()))
		if a.Bounds() != src.Bounds() {
			t.Fatalf("%v: decoded bounds %v", size, a.Bounds())
		}
		pOurs, pRef := psnr(som, a), psnr(som, b)
		if pOurs < pRef-0.5 {
			t.Errorf("%v: PSNR %.2f dB, image/jpeg %.2f dB", size, pOurs, pRef)
		}
		if n := float64(len(ours)) / float64(ref.Len()); n > 1.05 {
			t.Errorf("%v: %d bytes, %.2f× image/jpeg's %d", size, len(ours), n, ref.Len())
		}
		if size.Y >= 1000 && !bytes.Contains(ours, []byte{0xFF, markerDRI}) {
			t.Errorf("%v: large image was not banded", size)
		}
		t.Logf("%v: PSNR %.2f dB (image/jpeg %.2f), %d bytes (image/jpeg %d)", size, pOurs, pRef, len(ours), ref.Len())
	}
}

func TestImageEncoding(t *testing.T) {
	img := Resize(testScreen(400, 800, 0), 200, 400)
	png, err := ImageEncoding{Format: FormatPNG}.Encode(img)
	if err != nil || SniffImageMIME(png) != "image/png" {
		t.Fatalf("png: %v %q", err, SniffImageMIME(png))
	}
	lo, _ := ImageEncoding{Quality: 30}.Encode(img)
	hi, _ := ImageEncoding{Quality: 95}.Encode(img)
	if SniffImageMIME(lo) != "image/jpeg" || len(lo) >= len(hi) {
		t.Errorf("jpeg default format and quality: %d bytes at 30, %d at 95", len(lo), len(hi))
	}
	for in, want := range map[string]ImageFormat{"": FormatJPEG, "JPG": FormatJPEG, "png": FormatPNG} {
		if got, err := ParseImageFormat(in); err != nil || got != want {
			t.Errorf("ParseImageFormat(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseImageFormat("webp"); err == nil {
		t.Error("webp accepted")
	}
	if SniffImageMIME([]byte("GIF89a")) != "" {
		t.Error("gif sniffed as something")
	}
}

// BenchmarkEncodeModelImage encodes the set-of-mark image of a screen with
// gradients and fine detail (unlike the virtual phone's flat colours, closer
// to photos, wallpapers and anti-aliased text) as PNG and as JPEG, and
// reports their sizes and the JPEG/PNG byte ratio.
func BenchmarkEncodeModelImage(b *testing.B) {
	img, els := scaledFixture(b)
	som := SetOfMark(img, els, true)
	sizes := map[ImageFormat]int{}
	for _, enc := range []ImageEncoding{{Format: FormatPNG}, {Format: FormatJPEG}} {
		b.Run(string(enc.Format), func(b *testing.B) {
			var out []byte
			for b.Loop() {
				var err error
				if out, err = enc.Encode(som); err != nil {
					b.Fatal(err)
				}
			}
			sizes[enc.Format] = len(out)
			b.ReportMetric(float64(len(out))/1024, "KiB")
			if enc.Format == FormatJPEG && sizes[FormatPNG] > 0 {
				b.ReportMetric(float64(len(out))/float64(sizes[FormatPNG]), "bytes-vs-png")
			}
		})
	}
}
