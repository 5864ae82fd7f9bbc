package screen

import (
	"fmt"
	"image"
)

// Rect is a rectangle in pixels; Right and Bottom are exclusive as in
// Android's bounds="[l,t][r,b]".
type Rect struct {
	Left   int `json:"left"`
	Top    int `json:"top"`
	Right  int `json:"right"`
	Bottom int `json:"bottom"`
}

// Point is a pixel position.
type Point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

// UIElement is one numbered interactive element offered to a model or a
// script (docs/formats.md#screen-snapshot). ID is the mark number "1".."N".
type UIElement struct {
	ID           string `json:"id"`
	Text         string `json:"text"`
	ContentDesc  string `json:"contentDesc"`
	ResourceID   string `json:"resourceId"`
	ClassName    string `json:"className"`
	Clickable    bool   `json:"clickable"`
	Enabled      bool   `json:"enabled"`
	Bounds       Rect   `json:"bounds"`
	Center       Point  `json:"center"`
	ScaledBounds Rect   `json:"scaledBounds"`
	ScaledCenter Point  `json:"scaledCenter"`
	// Node is the tree node the element came from (nil when the element was
	// not built by Elements, e.g. decoded from JSON).
	Node *Node `json:"-"`

	// Optional state, set by Select from the node (not in docs/formats.md's upstream shape): the
	// flags the model reads on the element's line.
	Checkable  bool `json:"checkable,omitempty"`
	Checked    bool `json:"checked,omitempty"`
	Focused    bool `json:"focused,omitempty"`
	Password   bool `json:"password,omitempty"`
	Scrollable bool `json:"scrollable,omitempty"`
	Selected   bool `json:"selected,omitempty"`
	// Editable marks a text field (its label is the hint when it is empty).
	Editable bool `json:"editable,omitempty"`
	// Disabled marks a control shown greyed out (enabled="false"): listed
	// so the model knows it exists and wakes up later ("Always" before an
	// app is chosen). LongClickable marks a container that reacts only to
	// a long press (a chat bubble, a comment).
	Disabled      bool `json:"disabled,omitempty"`
	LongClickable bool `json:"longClickable,omitempty"`
	// Window is the kind of window the element lies in when it is not the
	// focused app window: "dialog", "keyboard", "system" or "behind" (an
	// app window under the focused one).
	Window string `json:"window,omitempty"`
	// Context names the row an element belongs to when several elements
	// share one label (five "Add to favorites" toggles: whose is whose).
	Context string `json:"context,omitempty"`
}

// Element source values of CaptureMetrics.UIElementsSource.
const (
	SourceFresh         = "fresh"
	SourceCache         = "cache"
	SourceCacheFallback = "cache_fallback"
	SourceFreshEmpty    = "fresh_empty"
)

// CaptureMetrics are the per-capture timings of docs/formats.md#screen-snapshot
// (ScreenSnapshotCaptureMetrics). VisualHashHammingDistance is nil when there
// was no previous capture to compare with.
type CaptureMetrics struct {
	TotalMs                   int64  `json:"totalMs"`
	EnsureReadyMs             int64  `json:"ensureReadyMs"`
	ScreencapMs               int64  `json:"screencapMs"`
	ScreenSizeMs              int64  `json:"screenSizeMs"`
	CurrentAppMs              int64  `json:"currentAppMs"`
	ScaleMs                   int64  `json:"scaleMs"`
	UIDumpMs                  int64  `json:"uiDumpMs"`
	OverlayMs                 int64  `json:"overlayMs"`
	UIElementsSource          string `json:"uiElementsSource"`
	UIElementsCount           int    `json:"uiElementsCount"`
	VisualHash                string `json:"visualHash"`
	VisualHashHammingDistance *int   `json:"visualHashHammingDistance"`
	UIDumpTimedOut            bool   `json:"uiDumpTimedOut"`
}

// Snapshot is one capture of the screen (docs/formats.md#screen-snapshot). The image
// fields hold encoded bytes; JSON carries them base64 encoded under the
// seed's names. Screenshot is the full-size PNG; it is filled only when the
// device sent a PNG — otherwise FullPNG encodes it from Full on demand, so
// nothing pays for a full-size PNG nobody saves. ScaledScreenshot and
// SOMScreenshot are the model-sized images in ImageFormat ("png" or
// "jpeg": the profile's format, else the smaller of the two). Tree is the whole parsed UI hierarchy (nil when the
// dump failed and no cache applied); UIElements are the numbered interactive
// elements.
type Snapshot struct {
	DeviceID          string          `json:"deviceId"`
	CurrentApp        string          `json:"currentApp"`
	Width             int             `json:"width"`
	Height            int             `json:"height"`
	Screenshot        []byte          `json:"screenshotBase64"`
	SOMScreenshot     []byte          `json:"somScreenshotBase64"`
	CapturedAt        string          `json:"capturedAt"`
	ScaleX            float64         `json:"scaleX"`
	ScaleY            float64         `json:"scaleY"`
	ScaledWidth       int             `json:"scaledWidth"`
	ScaledHeight      int             `json:"scaledHeight"`
	InstalledPackages []string        `json:"installedPackages,omitempty"`
	UIElements        []UIElement     `json:"uiElements"`
	UINotes           []string        `json:"uiNotes,omitempty"` // what the model reads after the elements (Selection.Notes)
	CaptureMetrics    *CaptureMetrics `json:"captureMetrics,omitempty"`
	SecureSurface     bool            `json:"secureSurface,omitempty"`
	Tree              *Node           `json:"-"`
	// ContentHash fingerprints the screenshot's content area exactly
	// (ContentHash); it decides state_delta changed and is never persisted.
	ContentHash      string `json:"-"`
	ScaledScreenshot []byte `json:"-"`
	// ImageFormat is the encoding of ScaledScreenshot and SOMScreenshot.
	ImageFormat ImageFormat `json:"imageFormat,omitempty"`
	// Full is the decoded full-size screenshot when the device sent raw
	// pixels, shared with the device's frame cache: read it, never modify
	// it. Nil when the device sent a PNG (Screenshot holds it; its decode
	// buffer is reused for the next frame) and when decoded from JSON.
	Full image.Image `json:"-"`

	fullPNG *pendingPNG
}

// pendingPNG is a full-size PNG being encoded in the background.
type pendingPNG struct {
	done chan struct{}
	png  []byte
	err  error
}

// PrepareFullPNG starts encoding the full-size PNG in the background when
// there is none yet, so a later FullPNG (saving a step screenshot) does not
// wait for it. It must not run concurrently with FullPNG.
func (s *Snapshot) PrepareFullPNG() {
	if len(s.Screenshot) > 0 || s.Full == nil || s.fullPNG != nil {
		return
	}
	p := &pendingPNG{done: make(chan struct{})}
	s.fullPNG = p
	img := s.Full
	go func() {
		defer close(p.done)
		p.png, p.err = EncodePNG(img)
	}()
}

// FullPNG returns the full-size screenshot as PNG: the device's own bytes
// when it sent a PNG, else Full encoded once (waiting for PrepareFullPNG's
// encoding when one is under way). The result is kept in Screenshot. It is
// not safe for concurrent use.
func (s *Snapshot) FullPNG() ([]byte, error) {
	if len(s.Screenshot) > 0 {
		return s.Screenshot, nil
	}
	if s.fullPNG == nil {
		if s.Full == nil {
			return nil, fmt.Errorf("screen: the snapshot has no screenshot")
		}
		s.PrepareFullPNG()
	}
	<-s.fullPNG.done
	if s.fullPNG.err != nil {
		return nil, s.fullPNG.err
	}
	s.Screenshot = s.fullPNG.png
	return s.Screenshot, nil
}
