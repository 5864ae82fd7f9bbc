package device

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"image"
	"slices"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine/screen"
)

// CaptureMode chooses how screenshots leave the device.
type CaptureMode string

const (
	// CaptureAuto measures both paths on the first captures of a Phone and
	// keeps the faster one end to end (fetch + decode).
	CaptureAuto CaptureMode = "auto"
	// CapturePNG always uses `screencap -p`: the device encodes a PNG
	// (slow on a phone's CPU, small on the wire).
	CapturePNG CaptureMode = "png"
	// CaptureRaw always uses raw `screencap`: no encoding on the device,
	// width×height×4 bytes on the wire, no decoding on the host.
	CaptureRaw CaptureMode = "raw"
)

// ParseCaptureMode accepts "auto" (or ""), "png" and "raw".
func ParseCaptureMode(s string) (CaptureMode, error) {
	switch CaptureMode(s) {
	case "", CaptureAuto:
		return CaptureAuto, nil
	case CapturePNG, CaptureRaw:
		return CaptureMode(s), nil
	}
	return "", fmt.Errorf("capture mode %q: expected \"auto\", \"png\" or \"raw\"", s)
}

// capturePath is one way of fetching a screenshot.
type capturePath int

const (
	pathPNG capturePath = iota
	pathRaw
)

func (c capturePath) String() string {
	if c == pathRaw {
		return "raw"
	}
	return "png"
}

// pathChooser picks the capture path per device: in auto mode the first
// captures alternate between the paths until each has probes samples (or
// failed), then the one with the lower best time wins for good.
type pathChooser struct {
	mu      sync.Mutex
	mode    CaptureMode
	probes  int
	took    [2][]time.Duration
	failed  [2]bool
	decided bool
	chosen  capturePath
}

func newPathChooser(mode CaptureMode, probes int) *pathChooser {
	c := &pathChooser{mode: mode, probes: probes}
	switch mode {
	case CapturePNG:
		c.decided, c.chosen = true, pathPNG
	case CaptureRaw:
		c.decided, c.chosen = true, pathRaw
	}
	return c
}

// next is the path the next capture uses.
func (c *pathChooser) next() capturePath {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.decided {
		return c.chosen
	}
	if c.failed[pathPNG] || (!c.failed[pathRaw] && len(c.took[pathRaw]) < len(c.took[pathPNG])) {
		return pathRaw
	}
	return pathPNG
}

// record adds one end-to-end measurement (or a failure) of path and
// decides once both paths are measured. A failing path is dropped for good
// in auto mode; a forced mode keeps its path.
func (c *pathChooser) record(path capturePath, took time.Duration, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.decided {
		return
	}
	if err != nil {
		c.failed[path] = true
	} else {
		c.took[path] = append(c.took[path], took)
	}
	other := 1 - path
	switch {
	case c.failed[path] && c.failed[other]:
		c.failed = [2]bool{} // both failed once: keep trying, errors surface
	case c.failed[path]:
		c.decided, c.chosen = true, other
	case len(c.took[pathPNG]) >= c.probes && len(c.took[pathRaw]) >= c.probes:
		c.decided, c.chosen = true, pathPNG
		if slices.Min(c.took[pathRaw]) < slices.Min(c.took[pathPNG]) {
			c.chosen = pathRaw
		}
	}
}

// CaptureChoice reports the capture path in use ("png" or "raw") and
// whether it is settled (false while auto mode is still measuring).
func (p *Phone) CaptureChoice() (path string, decided bool) {
	c := p.chooser
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.chosen.String(), c.decided
}

// frame is one screenshot ready for use: decoded, scaled to the model's
// size and hashed. Frames are shared read-only between captures: a capture
// that receives the same bytes as the last one reuses it whole.
type frame struct {
	sum  uint64 // of the PNG bytes (the raw path compares look and bands)
	size int
	path capturePath
	w, h int    // full size
	png  []byte // the device's PNG (nil on the raw path)
	// full is the full-size image on the raw path (the screencap bytes
	// themselves), kept for Snapshot.FullPNG; the PNG path decodes
	// straight to the model's size (the device's PNG stands for it).
	full image.Image
	// scaled is the model-sized image; the visual hash comes from it.
	scaled *image.RGBA
	look   Look
	// bands is screen.BandsHash of the full image: with look.Content it
	// pins every pixel whichever path fetched it (frameKey).
	bands string

	// Encodings of scaled done for earlier captures of this frame, and
	// the format they are in.
	enc    screen.ImageEncoding
	format screen.ImageFormat
	plain  []byte
	somKey string
	som    []byte
}

var memoSeed = maphash.MakeSeed()

// grab fetches a screenshot on the chosen path and turns it into a frame,
// reusing the last frame when the bytes are the same. took is the fetch
// time, work the time spent decoding, scaling and hashing (zero when the
// frame was reused).
func (p *Phone) grab(ctx context.Context) (fr *frame, took, work time.Duration, err error) {
	path := p.chooser.next()
	t0 := time.Now()
	fr, took, work, err = p.grabOn(ctx, path)
	if err != nil && ctx.Err() == nil && !errors.Is(err, ErrDeviceLost) && p.opts.Capture == CaptureAuto {
		// This path does not work on this device: note it, use the other.
		// (A lost device says nothing about the path.)
		p.chooser.record(path, 0, err)
		first := fmt.Errorf("%s: %w", path, err)
		path = 1 - path
		t0 = time.Now()
		if fr, took, work, err = p.grabOn(ctx, path); err != nil {
			err = fmt.Errorf("%w; %s: %w", first, path, err)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, took, work, ctx.Err()
		}
		return nil, took, work, fmt.Errorf("screencap: %w", err)
	}
	p.chooser.record(path, time.Since(t0), nil)
	return fr, took, work, nil
}

// grabOn fetches and processes one screenshot on path.
func (p *Phone) grabOn(ctx context.Context, path capturePath) (fr *frame, took, work time.Duration, err error) {
	t0 := time.Now()
	data, err := p.fetch(ctx, path)
	took = time.Since(t0)
	if err != nil {
		return nil, took, 0, err
	}
	t1 := time.Now()
	fr, err = p.toFrame(data, path)
	return fr, took, time.Since(t1), err
}

// fetch runs one screencap on path.
func (p *Phone) fetch(ctx context.Context, path capturePath) ([]byte, error) {
	if path == pathPNG {
		return p.Screencap(ctx)
	}
	p.mu.Lock()
	hint := p.rawSize
	p.mu.Unlock()
	var data []byte
	var err error
	if t, ok := p.t.(SizedExecOuter); ok && hint > 0 {
		data, err = t.ExecOutSized(ctx, "screencap", hint)
	} else {
		data, err = p.t.ExecOut(ctx, "screencap")
	}
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.rawSize = len(data)
	p.mu.Unlock()
	return data, nil
}

// SizedExecOuter is implemented by transports that can read an exec:
// reply of about a known size into one buffer (raw screenshots are
// megabytes; growing a buffer by doubling copies them several times).
type SizedExecOuter interface {
	ExecOutSized(ctx context.Context, command string, sizeHint int) ([]byte, error)
}

// toFrame decodes, scales and hashes data, or returns the last frame when
// data shows the same screen: on the PNG path the same bytes, on the raw
// path the same pixels (the content and bands hashes a new frame needs
// anyway, so a changed raw frame is read once, not hashed whole first).
func (p *Phone) toFrame(data []byte, path capturePath) (*frame, error) {
	p.mu.Lock()
	last := p.frame
	p.mu.Unlock()
	var fr *frame
	if path == pathPNG {
		sum := maphash.Bytes(memoSeed, data)
		if last != nil && last.sum == sum && last.size == len(data) && last.path == path {
			return last, nil
		}
		p.dropFrame(last)
		// Decoded straight to the model's size: no full-size image.
		f, err := screen.DecodeScaledPNG(data, p.opts.ModelStyle)
		if err != nil {
			return nil, err
		}
		if f.Width <= 0 || f.Height <= 0 {
			return nil, errors.New("empty screenshot")
		}
		fr = &frame{w: f.Width, h: f.Height, png: data, scaled: f.Scaled, sum: sum,
			look: Look{Visual: screen.DHash(f.Scaled), Content: f.Content}, bands: f.Bands}
	} else {
		full, err := screen.DecodeRawScreencap(data)
		if err != nil {
			return nil, err
		}
		b := full.Bounds()
		if b.Empty() {
			return nil, errors.New("empty screenshot")
		}
		content := make(chan string, 1)
		go func() { content <- screen.ContentHash(full) }()
		bands := screen.BandsHash(full)
		c := <-content
		if last != nil && last.path == path && last.w == b.Dx() && last.h == b.Dy() && last.look.Content == c && last.bands == bands {
			return last, nil
		}
		p.dropFrame(last)
		sw, sh := screen.ScaledSize(b.Dx(), b.Dy(), p.opts.ModelStyle)
		scaled := screen.Resize(full, sw, sh)
		fr = &frame{w: b.Dx(), h: b.Dy(), full: full, scaled: scaled, bands: bands,
			look: Look{Visual: screen.DHash(scaled), Content: c}}
	}
	p.framesMade.Add(1)
	fr.size, fr.path = len(data), path
	p.mu.Lock()
	p.frame = fr
	p.mu.Unlock()
	return fr, nil
}

// dropFrame forgets last when it is still the phone's frame: the screen
// changed, so its images are garbage from now on, not live while the new
// one is made.
func (p *Phone) dropFrame(last *frame) {
	p.mu.Lock()
	if p.frame == last {
		p.frame = nil
	}
	p.mu.Unlock()
}

// modelImages encodes what the model reads of fr: the set-of-mark image
// when som is set and there are elements, else the plain scaled image when
// plain is set, and says their format. Encodings are kept on the frame, so
// a static screen is encoded once.
func (p *Phone) modelImages(fr *frame, elems []screen.UIElement, som, plain bool) (scaledImg, somImg []byte, format screen.ImageFormat, err error) {
	enc := p.opts.Image
	key := ""
	if som && len(elems) > 0 {
		key = somKey(elems)
	}
	p.mu.Lock()
	if fr.enc == enc {
		if key != "" && fr.somKey == key {
			somImg = fr.som
		}
		if key == "" && plain {
			scaledImg = fr.plain
		}
		format = fr.format
	}
	p.mu.Unlock()
	switch {
	case key != "" && somImg == nil:
		// The marks are drawn into a pooled copy of the scaled image, the
		// encoder's input, given back once encoded.
		marked := screen.SetOfMarkInto(screen.GetRGBA(fr.scaled.Rect), fr.scaled, elems, true)
		somImg, format, err = p.encode(marked)
		screen.PutRGBA(marked)
	case key == "" && plain && scaledImg == nil:
		scaledImg, format, err = p.encode(fr.scaled)
	default:
		return scaledImg, somImg, format, nil
	}
	if err != nil {
		return nil, nil, "", err
	}
	p.mu.Lock()
	if fr.enc != enc {
		fr.enc, fr.plain, fr.somKey, fr.som = enc, nil, "", nil
	}
	if somImg != nil {
		fr.somKey, fr.som = key, somImg
	}
	if scaledImg != nil {
		fr.plain = scaledImg
	}
	fr.format = format
	p.mu.Unlock()
	return scaledImg, somImg, format, nil
}

// encode encodes a model image in the profile's format, or, when the
// profile names none, in whichever of PNG and JPEG is smaller for it
// (formatChooser).
func (p *Phone) encode(img *image.RGBA) ([]byte, screen.ImageFormat, error) {
	enc := p.opts.Image
	if enc.Format != "" {
		b, err := enc.Encode(img)
		return b, enc.Format, err
	}
	only, both := p.formats.plan()
	if !both {
		b, err := screen.ImageEncoding{Format: only, Quality: enc.Quality}.Encode(img)
		return b, only, err
	}
	var jpg []byte
	var jerr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		jpg, jerr = screen.ImageEncoding{Format: screen.FormatJPEG, Quality: enc.Quality}.Encode(img)
	}()
	png, perr := screen.EncodePNG(img)
	<-done
	switch {
	case perr != nil && jerr != nil:
		return nil, "", perr
	case perr != nil:
		return jpg, screen.FormatJPEG, nil
	case jerr != nil:
		return png, screen.FormatPNG, nil
	}
	p.formats.record(len(png), len(jpg))
	if len(png) <= len(jpg) {
		return png, screen.FormatPNG, nil
	}
	return jpg, screen.FormatJPEG, nil
}

// formatChooser picks the model image's encoding for a phone whose model
// profile names none. Which of PNG and JPEG is smaller depends on the
// screen: flat UI screens (solid fills, text) make PNGs a fraction of the
// JPEG, photos and gradients the reverse. It encodes both and keeps the
// smaller, and while one format wins by a wide margin it encodes only that
// one, checking both again every recheckFrames encodings, so the second
// encoding is paid for on a fraction of the frames.
type formatChooser struct {
	mu     sync.Mutex
	winner screen.ImageFormat
	margin float64 // loser's size over the winner's at the last check
	since  int     // encodings with the winner alone since the last check
}

const (
	// wideMargin is how much bigger the other format must have been for
	// the winner to be used alone.
	wideMargin = 1.5
	// recheckFrames is how many encodings go by between checks.
	recheckFrames = 8
)

// plan says which format to encode the next image in, or both.
func (c *formatChooser) plan() (only screen.ImageFormat, both bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.winner == "" || c.margin < wideMargin || c.since >= recheckFrames {
		return "", true
	}
	c.since++
	return c.winner, false
}

// record notes both sizes of one image.
func (c *formatChooser) record(pngSize, jpegSize int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.since = 0
	if pngSize <= jpegSize {
		c.winner, c.margin = screen.FormatPNG, float64(jpegSize)/float64(max(pngSize, 1))
	} else {
		c.winner, c.margin = screen.FormatJPEG, float64(pngSize)/float64(max(jpegSize, 1))
	}
}

// somKey identifies what a set-of-mark overlay draws: ids and boxes.
func somKey(elems []screen.UIElement) string {
	b := make([]byte, 0, len(elems)*24)
	for _, e := range elems {
		r := e.ScaledBounds
		b = fmt.Appendf(b, "%s:%d,%d,%d,%d;", e.ID, r.Left, r.Top, r.Right, r.Bottom)
	}
	return string(b)
}
