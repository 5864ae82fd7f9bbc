package playbooks

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/openpocket/openpocket/lua/luasrc"
)

// Options of the element steps that Maestro flows use: tap repeat/delay,
// scroll_until_visible speed/visibility/centering, assert_visible size with
// tolerance, and Maestro's key names. Parsing and generation sit together.

// maestroKeys maps Maestro's pressKey names (lower-cased) to the Android
// key codes Maestro's Android driver sends.
var maestroKeys = map[string]string{
	"enter": "KEYCODE_ENTER", "backspace": "KEYCODE_DEL", "back": "KEYCODE_BACK", "home": "KEYCODE_HOME",
	// Maestro's Android driver sends 62 (KEYCODE_SPACE) for Tab; keep that.
	"lock": "KEYCODE_SOFT_SLEEP", "power": "KEYCODE_POWER", "tab": "KEYCODE_SPACE", "escape": "KEYCODE_ESCAPE",
	"volume up": "KEYCODE_VOLUME_UP", "volume down": "KEYCODE_VOLUME_DOWN",
	"remote dpad up": "KEYCODE_DPAD_UP", "remote dpad down": "KEYCODE_DPAD_DOWN",
	"remote dpad left": "KEYCODE_DPAD_LEFT", "remote dpad right": "KEYCODE_DPAD_RIGHT",
	"remote dpad center":      "KEYCODE_DPAD_CENTER",
	"remote media play pause": "KEYCODE_MEDIA_PLAY_PAUSE", "remote media stop": "KEYCODE_MEDIA_STOP",
	"remote media next": "KEYCODE_MEDIA_NEXT", "remote media previous": "KEYCODE_MEDIA_PREVIOUS",
	"remote media rewind": "KEYCODE_MEDIA_REWIND", "remote media fast forward": "KEYCODE_MEDIA_FAST_FORWARD",
	"remote system navigation up": "KEYCODE_SYSTEM_NAVIGATION_UP", "remote system navigation down": "KEYCODE_SYSTEM_NAVIGATION_DOWN",
	"remote button a": "KEYCODE_BUTTON_A", "remote button b": "KEYCODE_BUTTON_B", "remote menu": "KEYCODE_MENU",
	"tv input": "KEYCODE_TV_INPUT", "tv input hdmi 1": "KEYCODE_TV_INPUT_HDMI_1",
	"tv input hdmi 2": "KEYCODE_TV_INPUT_HDMI_2", "tv input hdmi 3": "KEYCODE_TV_INPUT_HDMI_3",
}

// MaestroKeyCode returns the Android key code for a Maestro key name
// ("Remote Dpad Left" → KEYCODE_DPAD_LEFT).
func MaestroKeyCode(name string) (string, bool) {
	kc, ok := maestroKeys[strings.ToLower(strings.Join(strings.Fields(name), " "))]
	return kc, ok
}

// maestroKeyList names the Maestro keys for error messages.
func maestroKeyList() string {
	names := make([]string, 0, len(maestroKeys))
	for n := range maestroKeys {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// tapRepeat parses tap's repeat (count) and delay (between taps, default
// 100ms as in Maestro).
func tapRepeat(p *parser, s *Step, f *fields, n *tapNode) {
	if s.Kind != "tap" || !f.has("repeat") {
		if f.has("delay") {
			p.errAt(f.key["delay"], s.Path, "delay only goes with repeat")
		}
		return
	}
	n.Repeat = f.intValue("repeat")
	n.Delay = 100 * time.Millisecond
	if f.has("delay") {
		n.Delay = p.duration(f.node("delay"), s.Path+".delay")
	}
	s.summary += " ×" + valueSummary(n.Repeat)
}

// genTapRepeat emits the tap inside a loop; false when the tap has no repeat.
func (g *gen) genTapRepeat(s *Step, n *tapNode, id string) bool {
	if n.Repeat == nil {
		return false
	}
	one := *n
	one.Repeat = nil
	g.w.f("for __i = 1, %s do", g.intExpr(n.Repeat))
	g.w.indent++
	g.w.f("if __i > 1 then %s.ms(%d) end", g.use("wait"), n.Delay.Milliseconds())
	genTap(g, s, &one, id)
	g.w.indent--
	g.w.line("end")
	return true
}

// intOption is an optional integer key and the node field it fills.
type intOption struct {
	key string
	dst **int
}

// scrollOptions parses speed (0-100, default 40), visibility_percentage
// (0-100, default 100) and centered.
func scrollOptions(p *parser, s *Step, f *fields, n *scrollNode) {
	for _, o := range []intOption{{"speed", &n.Speed}, {"visibility_percentage", &n.Visibility}} {
		k := o.key
		if node := f.node(k); node != nil {
			v := p.integer(node, f.path(k))
			if v < 0 || v > 100 {
				p.errAt(node, s.Path, "%s must be between 0 and 100, got %d", k, v)
			}
			*o.dst = &v
		}
	}
	if f.has("centered") {
		c := f.boolean("centered")
		n.Centered = &c
	}
}

// genScroll uses the runtime's own scroll loop when an option needs it.
func (g *gen) genScroll(s *Step, n *scrollNode, to string) bool {
	if n.Speed == nil && n.Visibility == nil && n.Centered == nil {
		return false
	}
	o := g.opts("direction", luasrc.Quote(n.Direction), "max_swipes", g.typedOpt(n.MaxSwipes), "timeout_ms", to,
		"speed", intOpt(n.Speed), "visibility", intOpt(n.Visibility), "centered", boolLit(n.Centered != nil && *n.Centered))
	g.use("ui")
	g.use("device")
	g.w.f("flow.scroll_until_visible(%s, %s)", g.sel(s.Sel), o)
	return true
}

// sizeOptions parses assert_visible's width, height (pixels) and tolerance
// (pixels either way, default 0).
func sizeOptions(p *parser, s *Step, f *fields, n *assertSelNode) {
	for _, o := range []intOption{{"width", &n.Width}, {"height", &n.Height}, {"tolerance", &n.Tolerance}} {
		k := o.key
		if node := f.node(k); node != nil {
			v := p.integer(node, f.path(k))
			if v < 0 {
				p.errAt(node, s.Path, "%s must be >= 0, got %d", k, v)
			}
			*o.dst = &v
		}
	}
	if s.Kind != "assert_visible" && (n.Width != nil || n.Height != nil) {
		p.errAt(p.kindNode(s, f), s.Path, "width/height only go with assert_visible")
	}
	if n.Tolerance != nil && n.Width == nil && n.Height == nil {
		p.errAt(f.key["tolerance"], s.Path, "tolerance needs width or height")
	}
	if n.Width != nil || n.Height != nil {
		s.summary += fmt.Sprintf(" sized %s×%s", sizeText(n.Width), sizeText(n.Height))
	}
}

func sizeText(v *int) string {
	if v == nil {
		return "any"
	}
	return fmt.Sprint(*v)
}

func (g *gen) genAssertSize(s *Step, n *assertSelNode, to string) bool {
	if n.Width == nil && n.Height == nil {
		return false
	}
	g.use("ui")
	g.w.f("flow.assert_size(%s, %s, %s)", g.sel(s.Sel),
		g.opts("width", intOpt(n.Width), "height", intOpt(n.Height), "tolerance", intOpt(n.Tolerance)),
		g.opts("timeout_ms", to, "message", g.strOpt(n.Message)))
	return true
}

// nonUISteps neither act on the screen nor check it: reports take no
// screenshot after them.
var nonUISteps = map[string]bool{
	"if": true, "repeat": true, "for_each": true, "retry": true, "run": true, "set": true, "lua": true,
	"assert": true, "sleep": true, "shell": true, "screenshot": true, "copy_text": false, "set_clipboard": true,
	"set_location": true, "set_permissions": true, "install_apk": true, "wait": true, "finish": true,
	"run_script": true, "read": true, "write": true, "edit": true, "apply_patch": true, "exec": true, "process": true,
	"memory_search": true, "memory_get": true,
}

// isUIStep reports whether a step acts on or checks the screen: the flow
// runtime marks its step_end event with ui = true so reports can take a
// screenshot after it.
func isUIStep(s *Step) bool { return !nonUISteps[s.Kind] }
