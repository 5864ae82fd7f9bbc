package screen

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/jpeg"
	"runtime"
	"sync"
)

// ImageFormat is how the images a model sees (Snapshot.ScaledScreenshot and
// SOMScreenshot) are encoded.
type ImageFormat string

const (
	// FormatJPEG is the default: a fraction of PNG's bytes and encode time
	// for screenshots, at a quality models read text from without trouble.
	FormatJPEG ImageFormat = "jpeg"
	// FormatPNG is lossless, for models or users that want exact pixels.
	FormatPNG ImageFormat = "png"
)

// DefaultJPEGQuality is the JPEG quality (1-100) used when none is set.
const DefaultJPEGQuality = 80

// ParseImageFormat accepts "jpeg" (or "jpg") and "png", any case; "" means
// FormatJPEG.
func ParseImageFormat(s string) (ImageFormat, error) {
	switch string(bytes.ToLower([]byte(s))) {
	case "", "jpeg", "jpg":
		return FormatJPEG, nil
	case "png":
		return FormatPNG, nil
	}
	return "", fmt.Errorf("image format %q: expected \"jpeg\" or \"png\"", s)
}

// MIME is the format's media type ("image/jpeg", "image/png").
func (f ImageFormat) MIME() string {
	if f == FormatPNG {
		return "image/png"
	}
	return "image/jpeg"
}

// SniffImageMIME names the media type of encoded image bytes from their
// signature: "image/png", "image/jpeg", or "" when neither.
func SniffImageMIME(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg"
	}
	return ""
}

// ImageEncoding is a format and, for JPEG, its quality (1-100; 0 means
// DefaultJPEGQuality).
type ImageEncoding struct {
	Format  ImageFormat
	Quality int
}

// Encode encodes img in the chosen format (FormatJPEG when unset).
func (e ImageEncoding) Encode(img image.Image) ([]byte, error) {
	if e.Format == FormatPNG {
		return EncodePNG(img)
	}
	q := e.Quality
	if q <= 0 {
		q = DefaultJPEGQuality
	}
	return EncodeJPEG(img, min(q, 100))
}

// mcuRows is the height of one JPEG MCU row with 4:2:0 subsampling, the
// layout image/jpeg writes for colour images.
const mcuRows = 16

// EncodeJPEG encodes img as a baseline JPEG (4:2:0, image/jpeg's tables) at
// quality 1-100. Large images are cut into horizontal bands of whole MCU
// rows encoded in parallel, one per CPU, and joined into one file with
// restart markers: each band's entropy-coded data starts with fresh DC
// predictors, which is exactly what a restart interval of one band means
// to every decoder.
func EncodeJPEG(img image.Image, quality int) ([]byte, error) {
	b := img.Bounds()
	workers := min(runtime.GOMAXPROCS(0), b.Dy()/(4*mcuRows))
	sub, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	})
	if b.Dx()*b.Dy() < parallelMinPixels || workers < 2 || !ok || isGray(img) {
		return encodeJPEG(img, quality)
	}
	band := (b.Dy()/workers + mcuRows - 1) / mcuRows * mcuRows
	var parts [][]byte
	for y := b.Min.Y; y < b.Max.Y; y += band {
		parts = append(parts, nil)
	}
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i := range parts {
		r := image.Rect(b.Min.X, b.Min.Y+i*band, b.Max.X, min(b.Max.Y, b.Min.Y+(i+1)*band))
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[i], errs[i] = encodeJPEG(sub.SubImage(r), quality)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	mcusPerBand := (band / mcuRows) * ((b.Dx() + mcuRows - 1) / mcuRows)
	out, err := joinJPEGBands(parts, b.Dy(), mcusPerBand)
	if err != nil {
		return nil, fmt.Errorf("screen: encode jpeg: %w", err)
	}
	return out, nil
}

func encodeJPEG(img image.Image, quality int) ([]byte, error) {
	if rgba, ok := img.(*image.RGBA); ok && !rgba.Rect.Empty() {
		// image/jpeg converts RGBA pixel by pixel through color.RGBToYCbCr
		// (a third of its time); a 4:2:0 YCbCr image is copied as is.
		img = toYCbCr420(rgba)
	}
	var buf bytes.Buffer
	buf.Grow(img.Bounds().Dx() * img.Bounds().Dy() / 8)
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		return nil, fmt.Errorf("screen: encode jpeg: %w", err)
	}
	return buf.Bytes(), nil
}

// isGray reports images image/jpeg writes with one component (other MCU
// sizes): they take the single-band path.
func isGray(img image.Image) bool {
	switch img.(type) {
	case *image.Gray, *image.Gray16:
		return true
	}
	return false
}

// JPEG markers used when joining bands.
const (
	markerSOF0 = 0xC0
	markerSOS  = 0xDA
	markerEOI  = 0xD9
	markerRST0 = 0xD0
	markerDRI  = 0xDD
)

// joinJPEGBands builds one JPEG from bands encoded separately with the same
// tables: the first band's headers with the full height and a restart
// interval (DRI) inserted before its scan, then every band's entropy-coded
// data separated by RST0..RST7.
func joinJPEGBands(parts [][]byte, height, interval int) ([]byte, error) {
	if interval > 0xFFFF {
		return nil, fmt.Errorf("restart interval %d exceeds 65535 MCUs", interval)
	}
	sosAt, sofAt, err := jpegLayout(parts[0])
	if err != nil {
		return nil, err
	}
	total := 0
	for _, p := range parts {
		total += len(p)
	}
	out := make([]byte, 0, total+8*len(parts)+6)
	out = append(out, parts[0][:sosAt]...)
	binary.BigEndian.PutUint16(out[sofAt+5:], uint16(height))
	out = append(out, 0xFF, markerDRI, 0, 4, byte(interval>>8), byte(interval))
	for i, p := range parts {
		start, _, err := jpegLayout(p)
		if err != nil {
			return nil, fmt.Errorf("band %d: %w", i, err)
		}
		if i == 0 {
			out = append(out, p[start:scanStart(p, start)]...) // the SOS header once
		} else {
			out = append(out, 0xFF, byte(markerRST0+(i-1)%8))
		}
		if len(p) < 2 || p[len(p)-2] != 0xFF || p[len(p)-1] != markerEOI {
			return nil, fmt.Errorf("band %d does not end with EOI", i)
		}
		out = append(out, p[scanStart(p, start):len(p)-2]...)
	}
	return append(out, 0xFF, markerEOI), nil
}

// jpegLayout returns the offsets of the SOS and SOF0 markers of a JPEG
// written by image/jpeg.
func jpegLayout(b []byte) (sos, sof int, err error) {
	sof = -1
	for i := 2; i+4 <= len(b); {
		if b[i] != 0xFF {
			return 0, 0, fmt.Errorf("no marker at offset %d", i)
		}
		switch b[i+1] {
		case markerSOF0:
			sof = i
		case markerSOS:
			if sof < 0 {
				return 0, 0, fmt.Errorf("scan before SOF0")
			}
			return i, sof, nil
		}
		i += 2 + int(binary.BigEndian.Uint16(b[i+2:]))
	}
	return 0, 0, fmt.Errorf("no scan (SOS) found")
}

// scanStart is where the entropy-coded data after the SOS header at sos
// begins.
func scanStart(b []byte, sos int) int {
	return sos + 2 + int(binary.BigEndian.Uint16(b[sos+2:]))
}

// toYCbCr420 converts an RGBA image (alpha ignored: screenshots are opaque)
// to JPEG's YCbCr with one chroma sample per 2×2 pixels, the mean of their
// colours, using color.RGBToYCbCr's fixed-point coefficients.
func toYCbCr420(src *image.RGBA) *image.YCbCr {
	r := src.Rect
	dst := image.NewYCbCr(r, image.YCbCrSubsampleRatio420)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := src.Pix[src.PixOffset(r.Min.X, y):]
		yrow := dst.Y[(y-r.Min.Y)*dst.YStride:]
		for x := 0; x < r.Dx(); x++ {
			p := row[4*x : 4*x+3 : 4*x+3]
			yrow[x] = uint8((19595*int32(p[0]) + 38470*int32(p[1]) + 7471*int32(p[2]) + 1<<15) >> 16)
		}
	}
	cw, ch := (r.Dx()+1)/2, (r.Dy()+1)/2
	for cy := 0; cy < ch; cy++ {
		y0 := r.Min.Y + 2*cy
		y1 := min(y0+1, r.Max.Y-1)
		top, bot := src.Pix[src.PixOffset(r.Min.X, y0):], src.Pix[src.PixOffset(r.Min.X, y1):]
		cbRow, crRow := dst.Cb[cy*dst.CStride:], dst.Cr[cy*dst.CStride:]
		for cx := 0; cx < cw; cx++ {
			i0 := 8 * cx
			i1 := min(i0+4, 4*(r.Dx()-1))
			rr := int32(top[i0]) + int32(top[i1]) + int32(bot[i0]) + int32(bot[i1])
			gg := int32(top[i0+1]) + int32(top[i1+1]) + int32(bot[i0+1]) + int32(bot[i1+1])
			bb := int32(top[i0+2]) + int32(top[i1+2]) + int32(bot[i0+2]) + int32(bot[i1+2])
			// Sums of four samples: the coefficients absorb the /4.
			cb := -11056*rr - 21712*gg + 32768*bb + 257<<17
			cr := 32768*rr - 27440*gg - 5328*bb + 257<<17
			cbRow[cx] = clampYCbCr(cb >> 18)
			crRow[cx] = clampYCbCr(cr >> 18)
		}
	}
	return dst
}

func clampYCbCr(v int32) uint8 {
	return uint8(max(0, min(255, v)))
}
