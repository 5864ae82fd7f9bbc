package screen

import (
	"testing"
)

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
