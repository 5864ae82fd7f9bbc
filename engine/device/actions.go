package device

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/screen"
)

// Minimum durations the device layer enforces (upstream's minimums): shorter
// swipes register as taps, shorter waits as no wait at all.
const (
	minWait       = 100 * time.Millisecond
	minSwipeMs    = 100
	minHoldMs     = 120
	unknownIDWait = 500 * time.Millisecond
)

// ActOptions say how to read an action's coordinates and what to observe.
type ActOptions struct {
	// Snapshot is the screen the action was decided on: it resolves
	// tap_element ids and, with Scaled, maps model coordinates to the device.
	Snapshot *screen.Snapshot
	// Scaled means x/y are in the snapshot's scaled (model) space.
	Scaled bool
	// Observe takes a quick observation after UI actions, settles, and
	// appends `state_delta changed=… app=a->b` to the result.
	Observe bool
}

// Outcome is what executing one action did, with what replay needs.
type Outcome struct {
	// Result is the model-facing result text.
	Result string
	// Device is the action with coordinates in device pixels.
	Device action.Action
	// Element is the numbered element acted on (tap_element, or the element
	// under a tap point), nil when none.
	Element *screen.UIElement
	// Before/After observations when ActOptions.Observe was set.
	AppBefore, AppAfter   string
	HashBefore, HashAfter string
	Changed               bool
	// Finished is set by finish.
	Finished bool
}

// IsDeviceAction reports whether the phone executes a (the device and
// control categories), as opposed to an executor.
func IsDeviceAction(a action.Action) bool {
	spec, ok := action.Lookup(a.Type)
	if !ok {
		return false
	}
	return spec.Category == action.CategoryDevice || spec.Category == action.CategoryControl
}

// uiAction reports whether an action may change the screen (worth a
// state_delta observation).
func uiAction(t string) bool {
	switch t {
	case "tap", "tap_element", "swipe", "drag", "long_press_drag", "type", "keyevent", "launch_app":
		return true
	}
	return false
}

// Execute runs one device or control action with the semantics of docs/actions.md.
func (p *Phone) Execute(ctx context.Context, a action.Action, o ActOptions) (Outcome, error) {
	out := Outcome{Device: action.Action{Type: a.Type, Params: copyParams(a.Params)}}
	observe := o.Observe && uiAction(a.Type)
	var contentBefore string
	if observe {
		if s := o.Snapshot; s != nil && s.CaptureMetrics != nil && s.ContentHash != "" {
			out.AppBefore, out.HashBefore, contentBefore = s.CurrentApp, s.CaptureMetrics.VisualHash, s.ContentHash
		} else if ob, err := p.Observe(ctx); err == nil {
			out.AppBefore, out.HashBefore, contentBefore = ob.App, ob.Visual, ob.Content
		} else {
			return out, err
		}
	}
	var err error
	out.Result, err = p.execute(ctx, a, o, &out)
	if err != nil {
		return out, err
	}
	if observe {
		look, err := p.Settle(ctx, 0)
		if err != nil {
			return out, err
		}
		app, err := p.CurrentApp(ctx)
		if err != nil {
			return out, err
		}
		out.HashAfter, out.AppAfter = look.Visual, app
		// Changed compares exact content: a toggled switch is a change even
		// when the coarse visual hash stays the same.
		out.Changed = look.Content != contentBefore || app != out.AppBefore
		out.Result += fmt.Sprintf("\nstate_delta changed=%t app=%s->%s", out.Changed, orNone(out.AppBefore), orNone(app))
	}
	return out, nil
}

func orNone(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func copyParams(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func (p *Phone) execute(ctx context.Context, a action.Action, o ActOptions, out *Outcome) (string, error) {
	switch a.Type {
	case "tap":
		x, y, err := p.point(ctx, a.Float("x"), a.Float("y"), o)
		if err != nil {
			return "", err
		}
		out.Device.Params["x"], out.Device.Params["y"] = x, y
		out.Element = elementAt(o.Snapshot, x, y)
		if _, err := p.run(ctx, fmt.Sprintf("input tap %d %d", x, y)); err != nil {
			return "", err
		}
		return fmt.Sprintf("Tapped at (%d, %d)", x, y), nil

	case "tap_element":
		id := a.Str("elementId")
		el := findElement(o.Snapshot, id)
		if el == nil {
			if err := sleep(ctx, unknownIDWait); err != nil {
				return "", err
			}
			return fmt.Sprintf("Element %q is not in the current element list (%s); nothing tapped, waited %d ms. Pick an id from the list or tap coordinates.",
				id, idRange(o.Snapshot), unknownIDWait.Milliseconds()), nil
		}
		out.Element = el
		out.Device = action.Action{Type: "tap", Params: map[string]any{"x": el.Center.X, "y": el.Center.Y}}
		if _, err := p.run(ctx, fmt.Sprintf("input tap %d %d", el.Center.X, el.Center.Y)); err != nil {
			return "", err
		}
		return fmt.Sprintf("Tapped element %s %s at (%d, %d)", el.ID, quoteLabel(el), el.Center.X, el.Center.Y), nil

	case "swipe", "drag", "long_press_drag":
		x1, y1, err := p.point(ctx, a.Float("x1"), a.Float("y1"), o)
		if err != nil {
			return "", err
		}
		x2, y2, err := p.point(ctx, a.Float("x2"), a.Float("y2"), o)
		if err != nil {
			return "", err
		}
		for k, v := range map[string]int{"x1": x1, "y1": y1, "x2": x2, "y2": y2} {
			out.Device.Params[k] = v
		}
		dur := max(a.Int("durationMs"), minSwipeMs)
		total := dur
		if a.Type == "long_press_drag" {
			hold := max(a.Int("holdMs"), minHoldMs)
			total = hold + dur
			out.Device.Params["holdMs"] = hold
		}
		out.Device.Params["durationMs"] = dur
		if _, err := p.run(ctx, fmt.Sprintf("input swipe %d %d %d %d %d", x1, y1, x2, y2, total)); err != nil {
			return "", err
		}
		verb := map[string]string{"swipe": "Swiped", "drag": "Dragged", "long_press_drag": "Long-press dragged"}[a.Type]
		return fmt.Sprintf("%s from (%d, %d) to (%d, %d) in %d ms", verb, x1, y1, x2, y2, total), nil

	case "type":
		return p.Type(ctx, a.Str("text"))

	case "keyevent":
		code := a.Str("keycode")
		if code == "" {
			code = "KEYCODE_ENTER"
		}
		if _, err := p.run(ctx, "input keyevent "+Quote(code)); err != nil {
			return "", err
		}
		return "Sent keyevent " + code, nil

	case "launch_app":
		return p.LaunchApp(ctx, a.Str("packageName"))

	case "shell":
		return p.ShellActionTimeout(ctx, a.Str("command"), time.Duration(a.Int("timeoutSec"))*time.Second)

	case "wait":
		d := max(time.Duration(a.Int("durationMs"))*time.Millisecond, minWait)
		if err := sleep(ctx, d); err != nil {
			return "", err
		}
		return fmt.Sprintf("Waited %d ms", d.Milliseconds()), nil

	case "finish":
		out.Finished = true
		msg := a.Str("message")
		if msg == "" {
			msg = "Task finished."
		}
		return "Finished: " + msg, nil
	}
	return "", fmt.Errorf("%s is not a device action", a.Type)
}

// point maps a coordinate to device pixels: scaled → ×scale, rounded,
// clamped to the screen.
func (p *Phone) point(ctx context.Context, x, y float64, o ActOptions) (int, int, error) {
	w, h, err := p.Size(ctx)
	if err != nil {
		return 0, 0, err
	}
	if o.Scaled && o.Snapshot != nil && o.Snapshot.ScaleX > 0 {
		x *= o.Snapshot.ScaleX
		y *= o.Snapshot.ScaleY
	}
	return clamp(x, w), clamp(y, h), nil
}

func clamp(v float64, size int) int {
	if math.IsNaN(v) || v < 0 {
		return 0
	}
	r := int(math.Round(v))
	if r > size-1 {
		return size - 1
	}
	return r
}

func findElement(s *screen.Snapshot, id string) *screen.UIElement {
	if s == nil {
		return nil
	}
	id = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(id), "#"))
	for i := range s.UIElements {
		if s.UIElements[i].ID == id {
			return &s.UIElements[i]
		}
	}
	return nil
}

// elementAt returns the smallest numbered element containing a device point.
func elementAt(s *screen.Snapshot, x, y int) *screen.UIElement {
	if s == nil {
		return nil
	}
	var best *screen.UIElement
	bestArea := math.MaxInt
	for i := range s.UIElements {
		b := s.UIElements[i].Bounds
		if x >= b.Left && x < b.Right && y >= b.Top && y < b.Bottom {
			if area := (b.Right - b.Left) * (b.Bottom - b.Top); area < bestArea {
				best, bestArea = &s.UIElements[i], area
			}
		}
	}
	return best
}

func idRange(s *screen.Snapshot) string {
	if s == nil || len(s.UIElements) == 0 {
		return "no elements"
	}
	return "ids 1.." + strconv.Itoa(len(s.UIElements))
}

func quoteLabel(e *screen.UIElement) string {
	label := e.Text
	if label == "" {
		label = e.ContentDesc
	}
	if label == "" {
		label = e.ResourceID
	}
	return strconv.Quote(label)
}

// Type enters text into the focused field: `input text` for plain ASCII;
// for anything else, or when input text fails, the clipboard (set, read back
// to verify) and KEYCODE_PASTE. Android 10+ denies clipboard reads to the
// shell on many builds: when the read-back fails, comes back empty or prints
// an error, the text is pasted unverified, as upstream does, and the result
// says so; only a read-back holding other text is a failure. Shell results
// are judged by their output as well as their exit code: builds print
// "Error: …" and exit 0, and a clipboard set that printed an error would
// paste a stale clip, so it fails ("Text input failed", as upstream).
func (p *Phone) Type(ctx context.Context, text string) (string, error) {
	if text == "" {
		return "Typed 0 chars (nothing to type)", nil
	}
	var inputErr error
	if isPlainASCII(text) {
		if _, inputErr = p.runJudged(ctx, "input text "+EscapeInputText(text)); inputErr == nil {
			return fmt.Sprintf("Typed %d chars via input text", len([]rune(text))), nil
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
	}
	if _, err := p.runJudged(ctx, "cmd clipboard set text "+Quote(text)); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", joinTypeErr(inputErr, fmt.Errorf("clipboard set: %w", err))
	}
	verified := true
	got, err := p.run(ctx, "cmd clipboard get text")
	switch {
	case err != nil && ctx.Err() != nil:
		return "", ctx.Err()
	case err == nil && strings.Contains(got, text):
	case err != nil || clipboardUnreadable(got):
		verified = false
	default:
		return "", joinTypeErr(inputErr, fmt.Errorf("clipboard did not keep the text (read back %q)", TruncateMiddle(strings.TrimSpace(got), 80)))
	}
	if _, err := p.runJudged(ctx, "input keyevent KEYCODE_PASTE"); err != nil {
		return "", joinTypeErr(inputErr, err)
	}
	if !verified {
		return fmt.Sprintf("Typed %d chars via clipboard paste (unverified: the device does not let the shell read the clipboard back)", len([]rune(text))), nil
	}
	return fmt.Sprintf("Typed %d chars via clipboard paste", len([]rune(text))), nil
}

// clipboardUnreadable spots a read-back the device refused: nothing,
// "null" (ClipboardService hides the clip from the shell on Android 10+),
// or an error line printed with exit status 0.
func clipboardUnreadable(got string) bool {
	t := strings.TrimSpace(got)
	_, failed := outputError(got)
	return t == "" || t == "null" || failed
}

func joinTypeErr(inputErr, err error) error {
	if inputErr != nil {
		return fmt.Errorf("type: Text input failed (input text: %v; then %w)", inputErr, err)
	}
	return fmt.Errorf("type: Text input failed (%w)", err)
}

// LaunchApp starts a package: monkey first; if it fails, resolve the
// launcher activity and `am start -n` it; last, an implicit MAIN/LAUNCHER
// intent restricted to the package.
func (p *Phone) LaunchApp(ctx context.Context, pkg string) (string, error) {
	if pkg == "" {
		return "", fmt.Errorf("launch_app: packageName is empty")
	}
	q := Quote(pkg)
	res, err := p.t.Shell(ctx, "monkey -p "+q+" -c android.intent.category.LAUNCHER 1")
	if err != nil {
		return "", err
	}
	out := string(res.Stdout) + string(res.Stderr)
	if res.ExitCode == 0 && !strings.Contains(out, "monkey aborted") && !strings.Contains(out, "No activities found") {
		return "Launched " + pkg + " via monkey", nil
	}
	var tried []string
	tried = append(tried, "monkey: "+lastLine(out))
	if resolved, err := p.run(ctx, "cmd package resolve-activity --brief "+q); err == nil {
		comp := lastLine(resolved)
		if strings.Contains(comp, "/") {
			if r, err := p.t.Shell(ctx, "am start -n "+Quote(comp)); err == nil && r.ExitCode == 0 && !strings.Contains(string(r.Stdout)+string(r.Stderr), "Error") {
				return "Launched " + pkg + " via am start -n " + comp, nil
			} else if err != nil {
				return "", err
			} else {
				tried = append(tried, "am start -n: "+lastLine(string(r.Stderr)+string(r.Stdout)))
			}
		} else {
			tried = append(tried, "resolve-activity: "+comp)
		}
	} else if ctx.Err() != nil {
		return "", ctx.Err()
	} else {
		tried = append(tried, "resolve-activity: "+err.Error())
	}
	r, err := p.t.Shell(ctx, "am start -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -p "+q)
	if err != nil {
		return "", err
	}
	if r.ExitCode == 0 && !strings.Contains(string(r.Stdout)+string(r.Stderr), "Error") {
		return "Launched " + pkg + " via am start -p", nil
	}
	tried = append(tried, "am start -p: "+lastLine(string(r.Stderr)+string(r.Stdout)))
	return "", fmt.Errorf("launch_app %s failed: %s", pkg, strings.Join(tried, "; "))
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(s, "\r", "")), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// DefaultShellTimeout bounds a shell action when neither the action nor the
// config says otherwise (upstream stops its adb process at 20 s).
const DefaultShellTimeout = 20 * time.Second

// ShellAction is ShellActionTimeout with the phone's default timeout.
func (p *Phone) ShellAction(ctx context.Context, command string) (string, error) {
	return p.ShellActionTimeout(ctx, command, 0)
}

// ShellActionTimeout runs the shell action like `adb shell TOKENS…`
// (docs/actions.md): the command is tokenized quote-aware, as the host shell would, and
// the tokens are joined with spaces for the device's sh, as adb itself does
// — so `echo a && echo b`, pipes and redirects keep their meaning. The
// script of an `sh -c '…'` / `sh -lc '…'` prefix stays one argument. The
// command's stdin is closed (the transport sends end-of-input), and it is
// stopped after timeout (0: Options.ShellTimeout): a command that waits for
// input or never ends (`cat`, `logcat`, `top`) returns what it printed so
// far with the reason, instead of blocking the run. Output over
// ShellOutputChars keeps 70 % head and 30 % tail.
func (p *Phone) ShellActionTimeout(ctx context.Context, command string, timeout time.Duration) (string, error) {
	words, err := SplitCommand(command)
	if err != nil {
		return fmt.Sprintf("shell rejected: %v", err), nil
	}
	if len(words) >= 2 && words[0] == "adb" && words[1] == "shell" {
		words = words[2:] // models often write the host-side prefix
	}
	// An empty command line would open an interactive shell that never ends.
	if len(words) == 0 {
		return "shell rejected: empty command", nil
	}
	if timeout <= 0 {
		timeout = p.opts.ShellTimeout
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := p.t.Shell(runCtx, JoinShellWords(words))
	timedOut := err != nil && ctx.Err() == nil && errors.Is(runCtx.Err(), context.DeadlineExceeded)
	if err != nil && !timedOut {
		return "", err
	}
	text := string(res.Stdout)
	if len(res.Stderr) > 0 {
		text += string(res.Stderr)
	}
	text = TruncateMiddle(strings.TrimRight(normalizeOutput([]byte(text)), "\n"), p.opts.ShellOutputChars)
	if timedOut {
		return fmt.Sprintf("shell timedOut=true after %s (stopped; partial output below)\n%s", timeout, text), nil
	}
	return fmt.Sprintf("shell exitCode=%d\n%s", res.ExitCode, text), nil
}
