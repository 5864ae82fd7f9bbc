package screen

import (
	"bytes"
	"image"
	"image/jpeg"
	"testing"
)

func TestEncodeJPEGBandsDecodeLikeOneScan(t *testing.T) {
	for _, size := range []image.Point{{768, 1707}, {1080, 2400}, {300, 700}, {64, 64}} {
		src := image.NewRGBA(image.Rect(0, 0, size.X, size.Y))
		testPix := testScreen(size.X, size.Y, 3)
		copy(src.Pix, testPix.Pix)
		banded, err := EncodeJPEG(src, 80)
		if err != nil {
			t.Fatal(err)
		}
		single, err := encodeJPEG(src, 80)
		if err != nil {
			t.Fatal(err)
		}
		if SniffImageMIME(banded) != "image/jpeg" {
			t.Fatalf("%v: not a JPEG signature", size)
		}
		a, err := jpeg.Decode(bytes.NewReader(banded))
		if err != nil {
			t.Fatalf("%v: banded JPEG does not decode: %v", size, err)
		}
		b, _ := jpeg.Decode(bytes.NewReader(single))
		if a.Bounds() != src.Bounds() {
			t.Fatalf("%v: decoded bounds %v", size, a.Bounds())
		}
		ya, yb := a.(*image.YCbCr), b.(*image.YCbCr)
		if !bytes.Equal(ya.Y, yb.Y) || !bytes.Equal(ya.Cb, yb.Cb) || !bytes.Equal(ya.Cr, yb.Cr) {
			t.Errorf("%v: banded JPEG decodes differently from a single scan", size)
		}
		if size.Y >= 1000 && !bytes.Contains(banded, []byte{0xFF, markerDRI}) {
			t.Errorf("%v: large image was not banded", size)
		}
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

func BenchmarkEncodeModelImage(b *testing.B) {
	img, els := scaledFixture(b)
	som := SetOfMark(img, els, true)
	for _, enc := range []ImageEncoding{{Format: FormatPNG}, {Format: FormatJPEG}} {
		b.Run(string(enc.Format), func(b *testing.B) {
			var out []byte
			for b.Loop() {
				var err error
				if out, err = enc.Encode(som); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(out))/1024, "KiB")
		})
	}
}

func TestEncodeJPEGKeepsColours(t *testing.T) {
	for _, c := range [][3]uint8{{255, 0, 0}, {0, 229, 255}, {16, 16, 16}, {250, 250, 250}, {129, 199, 132}} {
		img := image.NewRGBA(image.Rect(0, 0, 33, 17))
		for i := 0; i < len(img.Pix); i += 4 {
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c[0], c[1], c[2], 255
		}
		b, err := EncodeJPEG(img, 90)
		if err != nil {
			t.Fatal(err)
		}
		back, err := jpeg.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		r, g, bl, _ := back.At(32, 16).RGBA()
		got := [3]int{int(r >> 8), int(g >> 8), int(bl >> 8)}
		for k := range got {
			if d := got[k] - int(c[k]); d < -4 || d > 4 {
				t.Errorf("colour %v came back as %v", c, got)
				break
			}
		}
	}
}
