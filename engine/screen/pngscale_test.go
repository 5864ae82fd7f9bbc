package screen

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"testing"
)

// scaledAsWhole checks DecodeScaledPNG against decoding the whole image
// and scaling it: the same pixels, size and content hash, in both styles.
func scaledAsWhole(t *testing.T, name string, b []byte) {
	t.Helper()
	full, err := DecodePNG(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	r := full.Bounds()
	for _, style := range []ModelStyle{StyleOpenAI, StyleAnthropic} {
		f, err := DecodeScaledPNG(b, style)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sw, sh := ScaledSize(r.Dx(), r.Dy(), style)
		want := Resize(full, sw, sh)
		if f.Width != r.Dx() || f.Height != r.Dy() {
			t.Errorf("%s %s: size %dx%d, want %dx%d", name, style, f.Width, f.Height, r.Dx(), r.Dy())
		}
		if f.Scaled.Rect != want.Rect || !bytes.Equal(f.Scaled.Pix, want.Pix) {
			t.Errorf("%s %s: scaled pixels differ from Resize of the whole image", name, style)
		}
		if c := ContentHash(full); f.Content != c {
			t.Errorf("%s %s: content hash %s, want %s", name, style, f.Content, c)
		}
		if b := BandsHash(full); f.Bands != b {
			t.Errorf("%s %s: bands hash %s, want %s", name, style, f.Bands, b)
		}
	}
}

// TestDecodeScaledPNGMatchesDecodeThenResize: the streaming path gives
// exactly what decoding the whole screenshot and scaling it gives, for
// every row filter, RGB and RGBA (translucent pixels premultiplied),
// screens of repeated rows, sizes that are and are not scaled down, and
// PNG kinds that take image/png.
func TestDecodeScaledPNGMatchesDecodeThenResize(t *testing.T) {
	pattern := func(x, y int) [4]byte {
		return [4]byte{byte(x*7 + y), byte(x ^ y*3), byte(200 - x), byte(255 - (x*y)%7*30)}
	}
	// Every filter type is imagecodec's test; here image/png's adaptive
	// choice (DefaultCompression tries all five per row) does, in RGB
	// (opaque) and RGBA.
	for _, opaque := range []bool{true, false} {
		for _, size := range []image.Point{{1, 1}, {3, 200}, {97, 61}, {900, 1700}, {1080, 2400}} {
			img := image.NewNRGBA(image.Rect(0, 0, size.X, size.Y))
			for y := range size.Y {
				for x := range size.X {
					p := pattern(x, y)
					if opaque {
						p[3] = 0xFF
					}
					copy(img.Pix[img.PixOffset(x, y):], p[:])
				}
			}
			var b bytes.Buffer
			if err := png.Encode(&b, img); err != nil {
				t.Fatal(err)
			}
			scaledAsWhole(t, fmt.Sprintf("pattern %v opaque %v", size, opaque), b.Bytes())
		}
	}
	for _, img := range []image.Image{textScreen(), testScreen(1080, 2400, 3), testScreen(2400, 1080, 0)} {
		var b bytes.Buffer
		if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		scaledAsWhole(t, "screen", b.Bytes())
	}
	gray := image.NewGray(image.Rect(0, 0, 1000, 1000))
	for i := range gray.Pix {
		gray.Pix[i] = byte(i / 1000)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, gray); err != nil {
		t.Fatal(err)
	}
	scaledAsWhole(t, "gray (image/png)", b.Bytes())
	if _, err := DecodeScaledPNG(b.Bytes()[:len(b.Bytes())/2], StyleOpenAI); err == nil {
		t.Error("a truncated PNG decoded")
	}
}

// TestEncodePNGRoundTrips: the fast encoder's output (repeated rows, the
// eight-byte row difference, its own zlib wrapper and checksum) decodes
// with image/png — which checks the Adler-32 — to the same pixels.
func TestEncodePNGRoundTrips(t *testing.T) {
	for _, img := range []*image.RGBA{textScreen(), Resize(testScreen(1080, 2400, 7), 768, 1707), Resize(testScreen(5, 3, 0), 5, 3)} {
		b, err := EncodePNG(img)
		if err != nil {
			t.Fatal(err)
		}
		got, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("image/png: %v", err)
		}
		for y := img.Rect.Min.Y; y < img.Rect.Max.Y; y++ {
			for x := img.Rect.Min.X; x < img.Rect.Max.X; x++ {
				r0, g0, b0, _ := img.At(x, y).RGBA()
				r1, g1, b1, _ := got.At(x, y).RGBA()
				if r0 != r1 || g0 != g1 || b0 != b1 {
					t.Fatalf("pixel %d,%d: %v, want %v", x, y, got.At(x, y), img.At(x, y))
				}
			}
		}
	}
}
