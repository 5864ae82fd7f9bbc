package screen

import (
	"bytes"
	"fmt"
	"image"

	"github.com/openpocket/openpocket/engine/screen/imagecodec"
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

// EncodeJPEG encodes img as a baseline JPEG at quality 1-100 with the
// project's encoder (imagecodec.EncodeJPEG: image/jpeg's tables and quality
// scale, flat blocks without a DCT, parallel bands joined by restart
// markers).
func EncodeJPEG(img image.Image, quality int) ([]byte, error) {
	b, err := imagecodec.EncodeJPEG(img, quality)
	if err != nil {
		return nil, fmt.Errorf("screen: %w", err)
	}
	return b, nil
}
