package device

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openpocket/openpocket/engine/screen"
)

// Options tune a Phone. Zero values take the defaults in parentheses.
type Options struct {
	// ModelStyle picks the scaled size models see (StyleOpenAI).
	ModelStyle screen.ModelStyle
	// SettleTimeout bounds the wait for the screen to stop changing after a
	// UI action (3 s); SettleInterval is the pause between polls (150 ms).
	SettleTimeout  time.Duration
	SettleInterval time.Duration
	// UIDumpTimeout bounds one `uiautomator dump` (8 s).
	UIDumpTimeout time.Duration
	// CacheMaxAge bounds how long the last element list may be reused
	// without a new UI dump (15 s); reuse also needs an identical frame and
	// no action since the dump (snapshot.go). CacheMaxHamming is no longer
	// consulted: a perceptual hash cannot tell a toggled switch apart.
	CacheMaxAge     time.Duration
	CacheMaxHamming int
	// ElementBudget is the size in characters of the element block a
	// snapshot keeps for the model (screen.DefaultElementBudget).
	ElementBudget int
	// MaxElements, when set, also caps the number of elements (no cap).
	MaxElements int
	// ShellOutputChars caps the shell action's result (3,000).
	ShellOutputChars int
	// ShellTimeout bounds one shell action unless the action sets its own
	// timeoutSec (20 s, upstream's figure).
	ShellTimeout time.Duration
	// Image is how model-sized screenshots are encoded; no Format means
	// whichever of PNG and JPEG (at Quality, screen.DefaultJPEGQuality
	// when 0) is smaller for each image.
	Image screen.ImageEncoding
	// Capture chooses the screenshot path (CaptureAuto); CaptureProbes is
	// how many captures auto mode measures on each path before choosing (3).
	Capture       CaptureMode
	CaptureProbes int
	// Now is the clock (time.Now).
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.SettleTimeout == 0 {
		o.SettleTimeout = 3 * time.Second
	}
	if o.SettleInterval == 0 {
		o.SettleInterval = 150 * time.Millisecond
	}
	if o.UIDumpTimeout == 0 {
		o.UIDumpTimeout = 8 * time.Second
	}
	if o.CacheMaxAge == 0 {
		o.CacheMaxAge = 15 * time.Second
	}
	if o.CacheMaxHamming == 0 {
		o.CacheMaxHamming = 4
	}
	if o.ShellOutputChars == 0 {
		o.ShellOutputChars = 3000
	}
	if o.ShellTimeout <= 0 {
		o.ShellTimeout = DefaultShellTimeout
	}
	if o.Capture == "" {
		o.Capture = CaptureAuto
	}
	if o.CaptureProbes <= 0 {
		o.CaptureProbes = 3
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Phone is one device as the runtime uses it. It is safe for concurrent use,
// though a run normally drives it from one goroutine.
type Phone struct {
	t    Transport
	opts Options
	// guard sees every UI dump first (guard.go).
	guard atomic.Pointer[guardBox]

	mu sync.Mutex
	// size is the input coordinate space (`wm size`, override first).
	width, height int
	// installed is the launchable package list, fetched once per Phone.
	installed []string
	// cache is the last fresh element list, reused per REFERENCE step 8.
	cache     *elementCache
	lastHash  string
	lastReuse bool
	// frame is the last screenshot, decoded, scaled and hashed, and parsed
	// the last dump's parse, both keyed by their bytes: static screens
	// (settle polls, the capture after a post-action look, a waiting agent)
	// then cost a round trip and a byte hash, no decode.
	frame  *frame
	parsed parseMemo
	// chooser picks the screenshot path; rawSize is the last raw
	// screenshot's size (the read buffer's hint).
	chooser *pathChooser
	rawSize int
	// formats picks the model image's encoding when Options.Image names
	// no format (capture.go).
	formats formatChooser
	// framesMade counts decoded frames (tests check reuse with it).
	framesMade atomic.Int64
	// actions is the action generation (freshness.go): every call through
	// the transport that may act on the device moves it on.
	actions atomic.Uint64
	// secrets are masked in every element list (secrets.go).
	secrets secretMarks
}

// Look is what one screenshot says about the screen: Visual is its dHash
// (does it look the same: cache reuse, seed metrics), Content its exact
// content fingerprint (did anything change: state_delta, settling).
type Look struct {
	Visual  string
	Content string
}

type parseMemo struct {
	sum  uint64
	size int
	root *screen.Node
}

// parse returns the parsed UI tree, reusing the previous parse when the
// dump bytes are identical. Trees are shared read-only.
func (p *Phone) parse(xml []byte) (*screen.Node, error) {
	sum := maphash.Bytes(memoSeed, xml)
	p.mu.Lock()
	m := p.parsed
	p.mu.Unlock()
	if m.root != nil && m.sum == sum && m.size == len(xml) {
		return m.root, nil
	}
	root, err := screen.ParseHierarchy(xml)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.parsed = parseMemo{sum: sum, size: len(xml), root: root}
	p.mu.Unlock()
	return root, nil
}

type elementCache struct {
	app           string
	width, height int
	frame         frameKey // the screenshot taken with the dump
	gen           uint64   // the action generation when the capture began
	at            time.Time
	tree          *screen.Node
	elements      []screen.UIElement
	notes         []string
	keys          bool // the keyboard's keys were listed
}

// NewPhone wraps a transport.
func NewPhone(t Transport, opts Options) *Phone {
	o := opts.withDefaults()
	p := &Phone{opts: o, chooser: newPathChooser(o.Capture, o.CaptureProbes)}
	p.t = &actingTransport{inner: t, gen: &p.actions}
	return p
}

// Transport returns the device port. Calls through it that may act on the
// device invalidate the element cache, as the Phone's own actions do.
func (p *Phone) Transport() Transport { return p.t }

// Serial is the device serial.
func (p *Phone) Serial() string { return p.t.Serial() }

// Options returns the phone's effective options.
func (p *Phone) Options() Options { return p.opts }

// Shell runs a command line on the device and returns its result; a non-zero
// exit is not an error.
func (p *Phone) Shell(ctx context.Context, command string) (ShellResult, error) {
	return p.t.Shell(ctx, command)
}

// run executes a command and fails on a non-zero exit, quoting stderr.
func (p *Phone) run(ctx context.Context, command string) (string, error) {
	res, err := p.t.Shell(ctx, command)
	if err != nil {
		return "", err
	}
	return string(res.Stdout), exitError(command, res)
}

func exitError(command string, res ShellResult) error {
	if res.ExitCode == 0 {
		return nil
	}
	msg := strings.TrimSpace(string(res.Stderr))
	if msg == "" {
		msg = strings.TrimSpace(string(res.Stdout))
	}
	return fmt.Errorf("%s: exit code %d: %s", firstField(command), res.ExitCode, msg)
}

// runJudged is run for commands that report failure in their output: a
// command that exits 0 but prints an error line ("Error: …", an exception,
// "No shell command implementation.") on either stream failed all the same.
func (p *Phone) runJudged(ctx context.Context, command string) (string, error) {
	res, err := p.t.Shell(ctx, command)
	if err != nil {
		return "", err
	}
	if err := exitError(command, res); err != nil {
		return string(res.Stdout), err
	}
	if msg, failed := outputError(string(res.Stdout) + "\n" + string(res.Stderr)); failed {
		return string(res.Stdout), fmt.Errorf("%s: exit code 0 but printed %q", firstField(command), msg)
	}
	return string(res.Stdout), nil
}

// outputError finds the line of a command's output that reports a failure:
// one that starts with "Error" or "Exception", names a Java exception, or
// says the service has no shell command.
func outputError(out string) (string, bool) {
	for _, line := range strings.Split(normalizeOutput([]byte(out)), "\n") {
		t := strings.TrimSpace(line)
		low := strings.ToLower(t)
		switch {
		case strings.HasPrefix(low, "error"), strings.HasPrefix(low, "exception"),
			strings.HasPrefix(low, "java.lang."), strings.HasPrefix(low, "no shell command implementation"),
			strings.HasPrefix(low, "unknown command"):
			return t, true
		}
	}
	return "", false
}

func firstField(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		if len(f) > 1 && (f[0] == "input" || f[0] == "cmd" || f[0] == "am" || f[0] == "pm" || f[0] == "wm") {
			return f[0] + " " + f[1]
		}
		return f[0]
	}
	return s
}

// Size returns the input coordinate space, asking `wm size` once.
func (p *Phone) Size(ctx context.Context) (w, h int, err error) {
	p.mu.Lock()
	w, h = p.width, p.height
	p.mu.Unlock()
	if w > 0 {
		return w, h, nil
	}
	return p.refreshSize(ctx)
}

func (p *Phone) refreshSize(ctx context.Context) (int, int, error) {
	out, err := p.run(ctx, "wm size")
	if err != nil {
		return 0, 0, err
	}
	w, h, ok := parseWMSize(normalizeOutput([]byte(out)))
	if !ok && strings.TrimSpace(out) != "" {
		return 0, 0, fmt.Errorf("wm size: unexpected output %q", strings.TrimSpace(out))
	}
	if !ok {
		// Some builds (seen in landscape) print nothing: the screenshot's
		// own size is the input space then, as upstream takes it.
		png, err := p.Screencap(ctx)
		if err != nil {
			return 0, 0, fmt.Errorf("wm size printed nothing, and the screenshot to size the screen failed: %w", err)
		}
		if w, h, ok = pngSize(png); !ok {
			return 0, 0, fmt.Errorf("wm size printed nothing, and the screenshot is not a PNG")
		}
	}
	p.mu.Lock()
	p.width, p.height = w, h
	p.mu.Unlock()
	return w, h, nil
}

// Props returns every system property (`getprop`) in one round trip.
func (p *Phone) Props(ctx context.Context) (map[string]string, error) {
	out, err := p.run(ctx, "getprop")
	if err != nil {
		return nil, err
	}
	return parseGetprop(normalizeOutput([]byte(out))), nil
}

// CurrentApp returns the package in front: the resumed activity first, then
// the window manager's focus, then `dumpsys activity top` (its "ACTIVITY
// pkg/.Cls" lines), because any of them may be missing on real builds.
func (p *Phone) CurrentApp(ctx context.Context) (string, error) {
	var firstErr error
	for _, src := range currentAppSources {
		out, err := p.run(ctx, src.command)
		if err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if app := src.parse(normalizeOutput([]byte(out))); app != "" {
			return app, nil
		}
	}
	return "", firstErr
}

// currentAppSources are asked in order until one names a package.
var currentAppSources = []struct {
	command string
	parse   func(string) string
}{
	{"dumpsys activity activities", func(s string) string { return parseCurrentApp(s, activityKeys) }},
	{"dumpsys window windows", func(s string) string { return parseCurrentApp(s, windowKeys) }},
	{"dumpsys activity top", parseTopActivity},
}

// InstalledPackages lists launchable packages, once per Phone.
func (p *Phone) InstalledPackages(ctx context.Context) ([]string, error) {
	p.mu.Lock()
	pk := p.installed
	p.mu.Unlock()
	if pk != nil {
		return pk, nil
	}
	out, err := p.run(ctx, "pm query-activities -a android.intent.action.MAIN -c android.intent.category.LAUNCHER")
	if err != nil {
		return nil, err
	}
	pk = parseLaunchablePackages(normalizeOutput([]byte(out)))
	if pk == nil {
		pk = []string{}
	}
	p.mu.Lock()
	p.installed = pk
	p.mu.Unlock()
	return pk, nil
}

// Screencap returns the screen as PNG bytes.
func (p *Phone) Screencap(ctx context.Context) ([]byte, error) {
	png, err := p.t.ExecOut(ctx, "screencap -p")
	if err == nil {
		if _, _, ok := pngSize(png); ok {
			return png, nil
		}
	} else if ctx.Err() != nil {
		return nil, ctx.Err()
	} else if errors.Is(err, ErrDeviceLost) {
		return nil, fmt.Errorf("screencap: %w", err)
	}
	// Some builds mangle exec-out; write to a file, pull it, delete it.
	const tmp = "/data/local/tmp/openpocket-screencap.png"
	if _, ferr := p.run(ctx, "screencap -p "+tmp); ferr != nil {
		if err != nil {
			return nil, fmt.Errorf("screencap: %w", err)
		}
		return nil, fmt.Errorf("screencap: %w", ferr)
	}
	png, perr := p.t.Pull(ctx, tmp)
	_, _ = p.t.Shell(ctx, "rm -f "+tmp)
	if perr != nil {
		return nil, fmt.Errorf("screencap: %w", perr)
	}
	if _, _, ok := pngSize(png); !ok {
		return nil, fmt.Errorf("screencap: device returned %d bytes that are not a PNG", len(png))
	}
	return png, nil
}

// Hierarchy dumps and parses the whole UI tree. timedOut reports that the
// dump did not answer within UIDumpTimeout. A guard (SetGuard) sees every
// dump first and may act on it (answer a permission dialog by policy);
// then the tree is dumped again, so no caller sees what it answered.
func (p *Phone) Hierarchy(ctx context.Context) (root *screen.Node, timedOut bool, err error) {
	root, timedOut, err = p.dump(ctx)
	return p.guarded(ctx, root, timedOut, err)
}

// dump is one `uiautomator dump`, parsed.
func (p *Phone) dump(ctx context.Context) (root *screen.Node, timedOut bool, err error) {
	dctx, cancel := context.WithTimeout(ctx, p.opts.UIDumpTimeout)
	defer cancel()
	out, err := p.t.ExecOut(dctx, "uiautomator dump /dev/tty")
	if err == nil {
		root, perr := p.parse(out)
		if perr == nil {
			return root, false, nil
		}
		err = perr
	}
	if ctx.Err() != nil {
		return nil, false, ctx.Err()
	}
	if dctx.Err() != nil {
		return nil, true, fmt.Errorf("uiautomator dump: no answer within %s", p.opts.UIDumpTimeout)
	}
	// Fallback: dump to a file, then read it.
	dctx2, cancel2 := context.WithTimeout(ctx, p.opts.UIDumpTimeout)
	defer cancel2()
	const file = "/sdcard/window_dump.xml"
	if _, ferr := p.run(dctx2, "uiautomator dump "+file); ferr != nil {
		return nil, dctx2.Err() != nil && ctx.Err() == nil, fmt.Errorf("uiautomator dump: %v; fallback: %w", err, ferr)
	}
	xml, ferr := p.t.ExecOut(dctx2, "cat "+file)
	if ferr != nil {
		return nil, false, fmt.Errorf("uiautomator dump: %w", ferr)
	}
	root, perr := p.parse(xml)
	if perr != nil {
		return nil, false, fmt.Errorf("uiautomator dump: %w", perr)
	}
	return root, false, nil
}

// SecureWindow reports whether the app in front shows a FLAG_SECURE
// window (`dumpsys window windows`): its screenshots are black and what
// is typed into it is seen by nobody but the phone.
func (p *Phone) SecureWindow(ctx context.Context) (bool, error) {
	app, err := p.CurrentApp(ctx)
	if err != nil {
		return false, err
	}
	out, err := p.run(ctx, "dumpsys window windows")
	if err != nil {
		return false, err
	}
	return parseSecure(normalizeOutput([]byte(out)), app), nil
}
