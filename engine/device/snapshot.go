package device

import (
	"context"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine/screen"
)

// CaptureOptions choose what a snapshot includes beyond the screenshot,
// current app and elements.
type CaptureOptions struct {
	// Scaled adds the model-sized screenshot (Snapshot.ScaledScreenshot).
	Scaled bool
	// SOM adds the set-of-mark overlay on the scaled screenshot
	// (Snapshot.SOMScreenshot). When it is drawn, the plain scaled image is
	// not encoded (the model reads one of them); without elements SOM
	// gives the plain scaled image instead.
	SOM bool
	// FullPNG starts encoding the full-size PNG in the background when the
	// device did not send one (raw capture), for a step screenshot saved
	// later with Snapshot.FullPNG.
	FullPNG bool
	// Installed adds the launchable packages (fetched once per Phone).
	Installed bool
	// NoCache forces a fresh UI dump.
	NoCache bool
	// KeyboardKeys lists the soft keyboard's keys instead of one note
	// (screen.TaskNeedsKeys).
	KeyboardKeys bool
}

// Capture takes a snapshot following the pipeline of docs/formats.md#screen-snapshot. The
// screenshot, the current app and the UI dump are fetched concurrently; the
// UI dump is skipped when the cached element list still applies.
func (p *Phone) Capture(ctx context.Context, o CaptureOptions) (*screen.Snapshot, error) {
	start := p.opts.Now()
	m := &screen.CaptureMetrics{}
	snap := &screen.Snapshot{DeviceID: p.Serial(), CaptureMetrics: m}

	t0 := time.Now()
	if _, _, err := p.Size(ctx); err != nil {
		return nil, err
	}
	m.ScreenSizeMs = ms(time.Since(t0))

	// Background round trips use cctx: an early return cancels them and
	// waits for them, so none outlives Capture or delays its error.
	cctx, cancel := context.WithCancel(ctx)
	bg := &background{ctx: cctx, p: p}
	defer bg.wg.Wait()
	defer cancel()

	st, prev := p.cacheAtStart(o, start)
	if !st.mayReuse && prev != nil {
		bg.startDump() // nothing to reuse: overlap the dump with the rest
	}
	appCh := bg.currentApp()
	windowsCh := bg.windows()
	var installedCh <-chan []string
	if o.Installed {
		installedCh = bg.installed()
	}

	// Screenshot, decoded, scaled and hashed while the other round trips
	// run (or reused whole when the bytes did not change).
	fr, took, work, err := p.grab(ctx)
	if err != nil {
		return nil, err
	}
	if prev == nil && !st.mayReuse {
		bg.startDump() // first look: this screenshot vouches (cacheState.stable)
	}
	m.ScreencapMs = ms(took)
	t2 := time.Now()
	w, h := p.useFrame(ctx, snap, fr)
	m.ScaleMs = ms(work + time.Since(t2)) // decode, scale and hash, 0 for a reused frame

	ar := <-appCh
	m.CurrentAppMs = ms(ar.took)
	if ar.err != nil {
		return nil, ar.err
	}
	snap.CurrentApp = ar.app

	// Secure surfaces render black: never let a cached element list stand
	// in for a screen we cannot see.
	snap.SecureSurface = parseSecure(normalizeOutput([]byte(<-windowsCh)), snap.CurrentApp)
	st.frame = keyOf(fr)
	st.stable = prev == nil || keyOf(prev) == st.frame
	if err := p.resolveElements(ctx, snap, bg, st, w, h); err != nil {
		return nil, err
	}

	t3 := time.Now()
	if o.Scaled || o.SOM {
		snap.ScaledScreenshot, snap.SOMScreenshot, snap.ImageFormat, err = p.modelImages(fr, snap.UIElements, o.SOM, true)
		if err != nil {
			return nil, err
		}
	}
	m.OverlayMs = ms(time.Since(t3))
	if o.FullPNG {
		snap.PrepareFullPNG()
	}
	if installedCh != nil {
		snap.InstalledPackages = <-installedCh
	}
	end := p.opts.Now()
	snap.CapturedAt = end.UTC().Format(time.RFC3339Nano)
	m.TotalMs = ms(end.Sub(start))
	return snap, nil
}

// background runs a capture's side round trips; wg tracks them.
type background struct {
	ctx  context.Context
	p    *Phone
	wg   sync.WaitGroup
	dump <-chan dumpResult
}

type dumpResult struct {
	root     *screen.Node
	timedOut bool
	err      error
	took     time.Duration
}

type appResult struct {
	app  string
	err  error
	took time.Duration
}

func (b *background) do(f func()) {
	b.wg.Add(1)
	go func() { defer b.wg.Done(); f() }()
}

// startDump starts the UI dump once.
func (b *background) startDump() <-chan dumpResult {
	if b.dump == nil {
		ch := make(chan dumpResult, 1)
		b.do(func() {
			t := time.Now()
			root, to, err := b.p.Hierarchy(b.ctx)
			ch <- dumpResult{root, to, err, time.Since(t)}
		})
		b.dump = ch
	}
	return b.dump
}

func (b *background) currentApp() <-chan appResult {
	ch := make(chan appResult, 1)
	b.do(func() {
		t := time.Now()
		app, err := b.p.CurrentApp(b.ctx)
		ch <- appResult{app, err, time.Since(t)}
	})
	return ch
}

// windows fetches the window flags on every capture (not only for black
// screenshots): a FLAG_SECURE window may leave the system bars visible
// around its black surface, and its screen must never be served from the
// cache.
func (b *background) windows() <-chan string {
	ch := make(chan string, 1)
	b.do(func() {
		out, err := b.p.run(b.ctx, "dumpsys window windows")
		if err != nil {
			out = ""
		}
		ch <- out
	})
	return ch
}

func (b *background) installed() <-chan []string {
	ch := make(chan []string, 1)
	b.do(func() {
		pk, _ := b.p.InstalledPackages(b.ctx)
		ch <- pk
	})
	return ch
}

// frameKey identifies a screenshot exactly: its size and the exact hashes
// of all its pixels (content area and bars). Every pixel counts, so a
// toggled switch, a ticked box, a typed character or a changed badge is a
// different frame even when the perceptual hash does not move. It keys
// pixels, not bytes: while the capture path is being chosen, looks
// alternate between PNG and raw screenshots, whose bytes never match even
// for a static screen.
type frameKey struct {
	w, h           int
	content, bands string
}

func keyOf(fr *frame) frameKey { return frameKey{fr.w, fr.h, fr.look.Content, fr.bands} }

// cacheState is what a capture knows about the cache when it resolves its
// elements: the entry read at its start, whether reuse is allowed at all,
// the action generation read at its start and its own frame.
type cacheState struct {
	cached   *elementCache
	mayReuse bool
	keys     bool // CaptureOptions.KeyboardKeys
	gen      uint64
	frame    frameKey
	// stable: the screen showed this frame before the dump began, so the
	// dump may be kept (one taken mid-change must never stand for the end
	// state): an earlier screenshot (a settle poll, the previous capture)
	// was this frame, or, on the phone's first look, this screenshot was
	// taken before the dump started. A later capture reuses the dump only
	// when its own screenshot is this frame again, so the dump is
	// bracketed by two equal frames with no action between.
	stable bool
	start  time.Time
}

// cacheAtStart reads what a capture starting now may reuse, and the last
// screenshot taken before it. The action generation is read before
// anything is fetched: an action that runs while this capture does leaves
// its dump stale.
func (p *Phone) cacheAtStart(o CaptureOptions, start time.Time) (cacheState, *frame) {
	gen := p.actions.Load()
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.cache
	may := !o.NoCache && c != nil && !p.lastReuse && c.gen == gen && start.Sub(c.at) <= p.opts.CacheMaxAge
	return cacheState{cached: c, mayReuse: may, keys: o.KeyboardKeys, gen: gen, start: start}, p.frame
}

// resolveElements fills snap's tree and elements from the cache or a fresh
// dump (docs/formats.md#screen-snapshot) and updates the cache. w, h is the input
// coordinate space.
func (p *Phone) resolveElements(ctx context.Context, snap *screen.Snapshot, bg *background, st cacheState, w, h int) error {
	m := snap.CaptureMetrics
	cached, keys, start := st.cached, st.keys, st.start
	// The cached list stands for this screen only when nothing acted on
	// the device since its dump (generation) and the screenshot is the
	// same frame, byte for byte, in the same app; a secure surface is
	// never vouched for by a cache.
	cacheMatches := cached != nil && !snap.SecureSurface && cached.app == snap.CurrentApp &&
		cached.width == snap.Width && cached.height == snap.Height &&
		cached.frame == st.frame && cached.gen == st.gen && p.actions.Load() == st.gen &&
		cached.keys == keys
	mayReuse := st.mayReuse
	elemOpts := screen.ElementOptions{Width: w, Height: h, ScaleX: snap.ScaleX, ScaleY: snap.ScaleY,
		Budget: p.opts.ElementBudget, MaxElements: p.opts.MaxElements, KeyboardKeys: keys}
	p.secretOptions(&elemOpts)
	if mayReuse && cacheMatches {
		snap.Tree = cached.tree
		snap.UIElements, snap.UINotes = cached.elements, cached.notes
		m.UIElementsSource = screen.SourceCache
	} else {
		dr := <-bg.startDump()
		m.UIDumpMs = ms(dr.took)
		m.UIDumpTimedOut = dr.timedOut
		switch {
		case dr.err == nil:
			snap.Tree = dr.root
			sel := screen.Select(dr.root, elemOpts)
			snap.UIElements, snap.UINotes = sel.Elements, sel.Notes
			m.UIElementsSource = screen.SourceFresh
		case ctx.Err() != nil:
			return ctx.Err()
		case cacheMatches:
			snap.Tree = cached.tree
			snap.UIElements, snap.UINotes = cached.elements, cached.notes
			m.UIElementsSource = screen.SourceCacheFallback
		default:
			m.UIElementsSource = screen.SourceFreshEmpty
		}
	}
	if snap.UIElements == nil {
		snap.UIElements = []screen.UIElement{}
	}
	m.UIElementsCount = len(snap.UIElements)

	p.mu.Lock()
	defer p.mu.Unlock()
	switch m.UIElementsSource {
	case screen.SourceFresh:
		if snap.SecureSurface || !st.stable {
			p.cache = nil
		} else {
			p.cache = &elementCache{app: snap.CurrentApp, width: snap.Width, height: snap.Height,
				frame: st.frame, gen: st.gen, at: start, tree: snap.Tree, elements: snap.UIElements,
				notes: snap.UINotes, keys: keys}
		}
		p.lastReuse = false
	case screen.SourceCache, screen.SourceCacheFallback:
		p.lastReuse = true
	default:
		p.lastReuse = false
	}
	return nil
}

// useFrame puts fr into snap (images, size, hashes, the Hamming distance to
// the previous capture, scale factors) and returns the input coordinate
// space, following a rotated or resized display.
func (p *Phone) useFrame(ctx context.Context, snap *screen.Snapshot, fr *frame) (w, h int) {
	m := snap.CaptureMetrics
	snap.Screenshot = fr.png
	snap.Full = fr.full
	snap.Width, snap.Height = fr.w, fr.h
	m.VisualHash = fr.look.Visual
	snap.ContentHash = fr.look.Content
	p.mu.Lock()
	if p.lastHash != "" {
		d := screen.Hamming(p.lastHash, m.VisualHash)
		m.VisualHashHammingDistance = &d
	}
	p.lastHash = m.VisualHash
	w, h = p.width, p.height
	p.mu.Unlock()
	rotated := func() bool { return w == snap.Height && h == snap.Width }
	if (w != snap.Width || h != snap.Height) && !rotated() {
		// Resized display: ask again, input coordinates follow `wm size`.
		if w2, h2, err := p.refreshSize(ctx); err == nil {
			w, h = w2, h2
		}
	}
	if w != h && rotated() {
		// `wm size` always reports the natural orientation, while screenshots
		// and input coordinates follow the display's rotation.
		w, h = snap.Width, snap.Height
		p.mu.Lock()
		p.width, p.height = w, h
		p.mu.Unlock()
	}
	sw, sh := fr.scaled.Rect.Dx(), fr.scaled.Rect.Dy()
	snap.ScaledWidth, snap.ScaledHeight = sw, sh
	snap.ScaleX = float64(w) / float64(sw)
	snap.ScaleY = float64(h) / float64(sh)
	return w, h
}

func ms(d time.Duration) int64 { return d.Milliseconds() }

// Observation is the quick look taken after a UI action: the screen's
// visual hash and the app in front.
type Observation struct {
	Look
	App string
}

// Observe takes a quick observation (screenshot hashes + current app) in
// parallel round trips.
func (p *Phone) Observe(ctx context.Context) (Observation, error) {
	appCh := make(chan struct {
		app string
		err error
	}, 1)
	go func() {
		app, err := p.CurrentApp(ctx)
		appCh <- struct {
			app string
			err error
		}{app, err}
	}()
	look, err := p.look(ctx)
	r := <-appCh
	if err != nil {
		return Observation{}, err
	}
	if r.err != nil {
		return Observation{}, r.err
	}
	return Observation{Look: look, App: r.app}, nil
}

// look takes a screenshot and returns its hashes. The frame stays
// cached, so the next capture of an unchanged screen reuses its decode,
// scaling and hashes.
func (p *Phone) look(ctx context.Context) (Look, error) {
	fr, _, _, err := p.grab(ctx)
	if err != nil {
		return Look{}, err
	}
	return fr.look, nil
}

// Settle waits until two consecutive screenshots have the same content,
// bounded by SettleTimeout, and returns the last one's hashes. It replaces
// fixed post-action sleeps: a static screen settles in two captures. A
// timeout is not an error: an animating screen is still usable.
func (p *Phone) Settle(ctx context.Context, timeout time.Duration) (Look, error) {
	if timeout <= 0 {
		timeout = p.opts.SettleTimeout
	}
	deadline := time.Now().Add(timeout)
	prev, err := p.look(ctx)
	if err != nil {
		return Look{}, err
	}
	for time.Now().Before(deadline) {
		if err := sleep(ctx, p.opts.SettleInterval); err != nil {
			return prev, err
		}
		cur, err := p.look(ctx)
		if err != nil {
			return prev, err
		}
		if cur.Content == prev.Content {
			return cur, nil
		}
		prev = cur
	}
	return prev, nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
