package screen

import (
	"encoding/binary"
	"fmt"
	"image"
)

// Android pixel formats raw screencap writes (system/graphics.h).
const (
	pixelRGBA8888 = 1
	pixelRGBX8888 = 2
	pixelRGB888   = 3
	pixelRGB565   = 4
	pixelBGRA8888 = 5
)

// maxRawSide bounds the width and height a raw header may claim.
const maxRawSide = 1 << 14

// DecodeRawScreencap decodes the output of `screencap` without -p
// (frameworks/base/cmds/screencap): a little-endian header — width, height,
// pixel format, and since Android 9 (API 28) a colour space, so 12 or 16
// bytes — then height rows of width pixels with no padding. The header size
// is told apart by the total length, so output from any Android version
// decodes. RGBA_8888 (what phones and emulators use) is returned without a
// copy: the image shares b's memory. RGBX_8888, BGRA_8888 and RGBA_8888
// without alpha are fixed up in place (screens are opaque); RGB_888 and
// RGB_565 are expanded into a new image.
func DecodeRawScreencap(b []byte) (*image.RGBA, error) {
	if len(b) < 12 {
		return nil, fmt.Errorf("screen: raw screencap: %d bytes, expected a 12- or 16-byte header and pixels", len(b))
	}
	w := int(binary.LittleEndian.Uint32(b[0:]))
	h := int(binary.LittleEndian.Uint32(b[4:]))
	f := binary.LittleEndian.Uint32(b[8:])
	if w <= 0 || h <= 0 || w > maxRawSide || h > maxRawSide {
		return nil, fmt.Errorf("screen: raw screencap: header says %d×%d, expected sides 1..%d", w, h, maxRawSide)
	}
	bpp := 4
	switch f {
	case pixelRGB888:
		bpp = 3
	case pixelRGB565:
		bpp = 2
	case pixelRGBA8888, pixelRGBX8888, pixelBGRA8888:
	default:
		return nil, fmt.Errorf("screen: raw screencap: pixel format %d, expected 1 (RGBA_8888), 2, 3, 4 or 5", f)
	}
	pixels := w * h * bpp
	var hdr int
	switch len(b) {
	case 16 + pixels:
		hdr = 16
	case 12 + pixels:
		hdr = 12
	default:
		return nil, fmt.Errorf("screen: raw screencap: %d bytes for %d×%d at %d bytes per pixel, expected %d (Android 9+) or %d (older)",
			len(b), w, h, bpp, 16+pixels, 12+pixels)
	}
	px := b[hdr:]
	rect := image.Rect(0, 0, w, h)
	switch f {
	case pixelRGBA8888:
		// A screen is opaque; a build that leaves the alpha byte unset
		// (seen as 0 at the first or middle pixel) gets it set.
		if mid := len(px) / 8 * 4; px[3] == 0xFF && px[mid+3] == 0xFF {
			return &image.RGBA{Pix: px, Stride: 4 * w, Rect: rect}, nil
		}
		fallthrough
	case pixelRGBX8888:
		for i := 3; i < len(px); i += 4 {
			px[i] = 0xFF
		}
		return &image.RGBA{Pix: px, Stride: 4 * w, Rect: rect}, nil
	case pixelBGRA8888:
		for i := 0; i+3 < len(px); i += 4 {
			px[i], px[i+2] = px[i+2], px[i]
		}
		return &image.RGBA{Pix: px, Stride: 4 * w, Rect: rect}, nil
	}
	img := image.NewRGBA(rect)
	for i, j := 0, 0; j < len(img.Pix); i, j = i+bpp, j+4 {
		o := img.Pix[j : j+4 : j+4]
		if bpp == 3 {
			o[0], o[1], o[2] = px[i], px[i+1], px[i+2]
		} else {
			v := uint32(binary.LittleEndian.Uint16(px[i:]))
			r, g, bl := v>>11, (v>>5)&0x3F, v&0x1F
			o[0], o[1], o[2] = uint8(r<<3|r>>2), uint8(g<<2|g>>4), uint8(bl<<3|bl>>2)
		}
		o[3] = 0xFF
	}
	return img, nil
}
