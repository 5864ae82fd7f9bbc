package android

import (
	"context"
	"image"
	"math"
	"strconv"
	"strings"
)

// Key codes the phone understands (android.view.KeyEvent).
const (
	keyHome      = 3
	keyBack      = 4
	key0         = 7
	key9         = 16
	keyPower     = 26
	keyA         = 29
	keyZ         = 54
	keySpace     = 62
	keyEnter     = 66
	keyDel       = 67
	keyMenu      = 82
	keyAppSwitch = 187
	keySleep     = 223
	keyWakeup    = 224
	keyPaste     = 279
)

var keyNames = map[string]int{
	"HOME": keyHome, "BACK": keyBack, "POWER": keyPower, "SPACE": keySpace, "ENTER": keyEnter,
	"DEL": keyDel, "MENU": keyMenu, "APP_SWITCH": keyAppSwitch, "SLEEP": keySleep,
	"WAKEUP": keyWakeup, "PASTE": keyPaste, "TAB": 61, "ESCAPE": 111, "FORWARD_DEL": 112,
}

// parseKey accepts "KEYCODE_HOME", "HOME", "3", "KEYCODE_7", "KEYCODE_A".
func parseKey(s string) (int, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		return n, n >= 0 && n < 400
	}
	name := strings.TrimPrefix(strings.ToUpper(s), "KEYCODE_")
	if code, ok := keyNames[name]; ok {
		return code, true
	}
	if len(name) == 1 {
		switch c := name[0]; {
		case c >= '0' && c <= '9':
			return key0 + int(c-'0'), true
		case c >= 'A' && c <= 'Z':
			return keyA + int(c-'A'), true
		}
	}
	return 0, false
}

// inputSources are the optional source words before an input command.
var inputSources = map[string]bool{
	"keyboard": true, "mouse": true, "joystick": true, "touchnavigation": true, "touchpad": true,
	"trackball": true, "stylus": true, "dpad": true, "gamepad": true, "touchscreen": true,
}

const inputUsage = `Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The commands and default sources are:
      text <string> (Default: keyboard)
      keyevent [--longpress|--doubletap] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)`

func cmdInput(_ context.Context, p *Phone, c *cmdIO) int {
	args := c.args[1:]
	if len(args) > 0 && inputSources[args[0]] {
		args = args[1:]
	}
	if len(args) >= 2 && args[0] == "-d" {
		args = args[2:]
	}
	if len(args) == 0 {
		c.errorf("%s", inputUsage)
		return 1
	}
	switch args[0] {
	case "tap":
		pts, ok := parseCoords(c, args[1:], 2)
		if !ok {
			return 1
		}
		p.locked(func() { p.tapLocked(image.Pt(pts[0], pts[1])) })
		return 0
	case "swipe", "draganddrop":
		if len(args) != 5 && len(args) != 6 {
			c.errorf("%s", inputUsage)
			return 1
		}
		pts, ok := parseCoords(c, args[1:5], 4)
		if !ok {
			return 1
		}
		ms := 300
		if len(args) == 6 {
			n, err := strconv.Atoi(args[5])
			if err != nil || n < 0 {
				c.errorf("Error: invalid duration %q", args[5])
				return 1
			}
			ms = n
		}
		p.locked(func() { p.swipeLocked(image.Pt(pts[0], pts[1]), image.Pt(pts[2], pts[3]), ms) })
		return 0
	case "text":
		if len(args) < 2 {
			c.errorf("%s", inputUsage)
			return 1
		}
		// Like the real command, only the first argument is typed; spaces
		// must be sent as %s.
		text := strings.ReplaceAll(args[1], "%s", " ")
		for _, r := range text {
			if r > 0x7e || (r < 0x20 && r != '\n' && r != '\t') {
				c.errorf("Exception occurred while executing 'text':\njava.lang.IllegalArgumentException: Cannot inject text %q: character U+%04X has no key mapping in the virtual keyboard\n\tat com.android.server.input.InputShellCommand.sendText(InputShellCommand.java:318)\n\tat com.android.server.input.InputShellCommand.onCommand(InputShellCommand.java:154)\n\tat com.android.modules.utils.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)", text, r)
				return 1
			}
		}
		p.locked(func() { p.typeLocked(text) })
		return 0
	case "keyevent", "press":
		keys := args[1:]
		if len(keys) > 0 && (keys[0] == "--longpress" || keys[0] == "--doubletap") {
			keys = keys[1:]
		}
		if len(keys) == 0 {
			c.errorf("%s", inputUsage)
			return 1
		}
		codes := make([]int, 0, len(keys))
		for _, k := range keys {
			code, ok := parseKey(k)
			if !ok {
				c.errorf("Error: Unknown keycode %q", k)
				return 1
			}
			codes = append(codes, code)
		}
		p.locked(func() {
			for _, code := range codes {
				p.keyLocked(code)
			}
		})
		return 0
	case "roll", "motionevent", "keycombination":
		return 0
	}
	c.errorf("Error: Unknown command: %s\n%s", args[0], inputUsage)
	return 1
}

func parseCoords(c *cmdIO, args []string, n int) ([]int, bool) {
	if len(args) != n {
		c.errorf("%s", inputUsage)
		return nil, false
	}
	out := make([]int, n)
	for i, a := range args {
		f, err := strconv.ParseFloat(a, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			c.errorf("Error: invalid coordinate %q", a)
			return nil, false
		}
		out[i] = int(math.Floor(f))
	}
	return out, true
}

// tapLocked delivers a click at pt; a sleeping screen ignores touches.
func (p *Phone) tapLocked(pt image.Point) {
	if !p.st.awake {
		return
	}
	v := p.treeLocked().hit(pt, acceptsTap)
	if v == nil || !v.enabled || v.onTap == nil {
		return
	}
	v.onTap()
}

func (p *Phone) longPressLocked(pt image.Point) {
	if !p.st.awake {
		return
	}
	v := p.treeLocked().hit(pt, acceptsLongPress)
	if v == nil || !v.enabled {
		return
	}
	switch {
	case v.onLongPress != nil:
		v.onLongPress()
	case v.class == clsEdit && v.onTap != nil:
		v.onTap() // long-pressing a field focuses it
	}
}

// swipeLocked scrolls the container under the start point by the vertical
// distance; a stationary swipe of 500 ms or more is a long press.
func (p *Phone) swipeLocked(from, to image.Point, ms int) {
	if !p.st.awake {
		return
	}
	delta := to.Sub(from)
	if abs(delta.X) <= 8 && abs(delta.Y) <= 8 {
		if ms >= 500 {
			p.longPressLocked(from)
		} else {
			p.tapLocked(from)
		}
		return
	}
	if p.overlaySwipeLocked(from, delta) {
		return
	}
	if abs(delta.Y) < abs(delta.X) {
		return // no horizontal scrollers on this phone
	}
	v := p.treeLocked().hit(from, acceptsScroll)
	if v == nil {
		return
	}
	v.scroll(-delta.Y) // finger moving up reveals content further down
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// typeLocked inserts text into the focused field; without focus it is lost,
// as on a phone with no text field selected.
func (p *Phone) typeLocked(text string) {
	if !p.st.awake || p.keyguardTypeLocked(text) || p.st.focused == "" || text == "" {
		return
	}
	p.st.fields[p.st.focused] += text
	p.changed()
}

func (p *Phone) keyLocked(code int) {
	if !p.st.awake && code != keyWakeup && code != keyPower {
		return
	}
	if p.keyguardKeyLocked(code) || (code == keyBack || code == keyHome) && p.closeShadeLocked() {
		return
	}
	switch {
	case code == keyHome:
		p.goHomeLocked()
	case code == keyBack:
		p.backLocked()
	case code == keyPower && p.st.awake, code == keySleep:
		p.sleepLocked()
	case code == keyPower, code == keyWakeup:
		p.wakeLocked()
	case code == keyPaste:
		p.typeLocked(p.st.clipboard)
	case code == keyDel:
		if p.st.focused != "" {
			r := []rune(p.st.fields[p.st.focused])
			if len(r) > 0 {
				p.st.fields[p.st.focused] = string(r[:len(r)-1])
				p.changed()
			}
		}
	case code == keyEnter:
		p.enterLocked()
	case code == keyTab && p.tabLocked():
	case code == keySpace:
		p.typeLocked(" ")
	case code >= key0 && code <= key9:
		p.typeLocked(string(rune('0' + code - key0)))
	case code >= keyA && code <= keyZ:
		p.typeLocked(string(rune('a' + code - keyA)))
	default:
		p.extraKeyLocked(code)
	}
}

// enterLocked is the IME action of the focused field.
func (p *Phone) enterLocked() {
	switch p.st.focused {
	case fieldNote:
		p.saveNoteLocked()
	case fieldUsername:
		p.st.focused = fieldPassword
		p.changed()
	case fieldPassword:
		p.submitLoginLocked()
	case fieldOTP:
		p.verifyOTPLocked()
	default:
		p.cardEnterLocked()
	}
}
