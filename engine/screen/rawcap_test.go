package screen

import (
	"encoding/binary"
	"image/color"
	"strings"
	"testing"
)

func rawCapture(w, h int, format uint32, header int, px []byte) []byte {
	b := make([]byte, header, header+len(px))
	binary.LittleEndian.PutUint32(b[0:], uint32(w))
	binary.LittleEndian.PutUint32(b[4:], uint32(h))
	binary.LittleEndian.PutUint32(b[8:], format)
	if header == 16 {
		binary.LittleEndian.PutUint32(b[12:], 1) // sRGB
	}
	return append(b, px...)
}

func TestDecodeRawScreencapFormats(t *testing.T) {
	// 2×1 image: an orange pixel and a blue one, in each pixel format.
	orange, blue := color.RGBA{255, 128, 0, 255}, color.RGBA{0, 0, 255, 255}
	for _, tc := range []struct {
		name   string
		format uint32
		px     []byte
		exact  bool
	}{
		{"rgba8888", 1, []byte{255, 128, 0, 255, 0, 0, 255, 255}, true},
		{"rgbx8888", 2, []byte{255, 128, 0, 7, 0, 0, 255, 0}, true},
		{"rgb888", 3, []byte{255, 128, 0, 0, 0, 255}, true},
		{"bgra8888", 5, []byte{0, 128, 255, 255, 255, 0, 0, 255}, true},
		// RGB565 little endian: orange = 11111 100000 00000, blue = 00000 000000 11111.
		{"rgb565", 4, []byte{0x00, 0xFC, 0x1F, 0x00}, false},
	} {
		for _, header := range []int{12, 16} {
			img, err := DecodeRawScreencap(rawCapture(2, 1, tc.format, header, append([]byte(nil), tc.px...)))
			if err != nil {
				t.Fatalf("%s/%d: %v", tc.name, header, err)
			}
			got0, got1 := img.RGBAAt(0, 0), img.RGBAAt(1, 0)
			if tc.exact && (got0 != orange || got1 != blue) {
				t.Errorf("%s/%d: pixels %v %v, want %v %v", tc.name, header, got0, got1, orange, blue)
			}
			if !tc.exact && (got0.R != 255 || got0.G < 126 || got0.G > 130 || got0.B != 0 || got1 != blue) {
				t.Errorf("%s/%d: pixels %v %v", tc.name, header, got0, got1)
			}
		}
	}
}

func TestDecodeRawScreencapSharesRGBAMemory(t *testing.T) {
	b := rawCapture(1, 1, 1, 16, []byte{1, 2, 3, 255})
	img, err := DecodeRawScreencap(b)
	if err != nil {
		t.Fatal(err)
	}
	b[16] = 9
	if img.Pix[0] != 9 {
		t.Error("RGBA_8888 was copied")
	}
}

func TestDecodeRawScreencapErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"short", []byte{1, 2, 3}, "3 bytes, expected a 12- or 16-byte header"},
		{"truncated", rawCapture(4, 4, 1, 16, make([]byte, 20)), "expected 80 (Android 9+) or 76 (older)"},
		{"format", rawCapture(1, 1, 0x22, 16, make([]byte, 4)), "pixel format 34"},
		{"huge", rawCapture(1<<15, 2, 1, 16, nil), "header says 32768×2"},
		{"png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"), "raw screencap"},
	} {
		_, err := DecodeRawScreencap(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", tc.name, err, tc.want)
		}
	}
}

func TestDecodeRawScreencapMakesUnsetAlphaOpaque(t *testing.T) {
	img, err := DecodeRawScreencap(rawCapture(2, 1, 1, 16, []byte{9, 8, 7, 0, 6, 5, 4, 0}))
	if err != nil {
		t.Fatal(err)
	}
	if !img.Opaque() || img.RGBAAt(0, 0) != (color.RGBA{9, 8, 7, 255}) {
		t.Errorf("pixels %v, want opaque with the colours kept", img.Pix)
	}
}
