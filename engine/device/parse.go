package device

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
)

// normalizeOutput turns what a device printed into plain UTF-8 text with \n
// line ends: some vendors' dumpsys answers in UTF-16LE with CRLF.
func normalizeOutput(b []byte) string {
	if looksUTF16LE(b) {
		if len(b) >= 2 && b[0] == 0xff && b[1] == 0xfe {
			b = b[2:]
		}
		u := make([]uint16, 0, len(b)/2)
		for i := 0; i+1 < len(b); i += 2 {
			u = append(u, uint16(b[i])|uint16(b[i+1])<<8)
		}
		b = []byte(string(utf16.Decode(u)))
	}
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	s := string(b)
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r", "")
	}
	return s
}

// looksUTF16LE spots UTF-16LE text: a BOM, or ASCII with every odd byte zero.
func looksUTF16LE(b []byte) bool {
	if len(b) >= 2 && b[0] == 0xff && b[1] == 0xfe {
		return true
	}
	if len(b) < 8 {
		return false
	}
	zeros := 0
	n := min(len(b), 256)
	for i := 1; i < n; i += 2 {
		if b[i] == 0 {
			zeros++
		}
	}
	return zeros*2 >= n/2
}

// componentRe finds "pkg/activity" inside ActivityRecord{…} / Window{…} lines.
var componentRe = regexp.MustCompile(`([A-Za-z][\w]*(?:\.[\w]+)+)/([\w.$]+)`)

// currentAppKeys are tried in order; Android 10+ prints topResumedActivity,
// older builds only ResumedActivity / mResumedActivity.
var activityKeys = []string{"topResumedActivity", "ResumedActivity", "mResumedActivity"}

// windowKeys are read from `dumpsys window windows` when the activity dump
// named nothing. mCurrentFocus is missing from Android 11 on, and may point at
// a system overlay or be null on secondary displays; the focused app and the
// IME target still name the app underneath.
var windowKeys = []string{"mCurrentFocus", "mFocusedApp", "mInputMethodTarget", "imeInputTarget", "imeLayeringTarget"}

// topActivityKey is the line `dumpsys activity top` prints per task:
// "ACTIVITY com.twitter.android/.StartActivity 5a8ae7c pid=4242".
const topActivityKey = "ACTIVITY"

// windowOnlyRe reads a focus line naming a window without an activity
// component, "Window{c52eaa8 u0 com.sony.dtv.sonysystemservice}": windows
// added by a service (TV overlays, vendor popups) are titled by package.
var windowOnlyRe = regexp.MustCompile(`^Window\{[0-9a-f]+ u\d+ ([A-Za-z][\w]*(?:\.[\w]+)+)\}`)

// parseCurrentApp returns the package of the resumed/focused app in a
// dumpsys output, trying keys in order; "" when none names a package. A
// component ("pkg/.Activity") under any key wins over a window titled only
// by a package, which is tried last (from mCurrentFocus / mFocusedWindow).
func parseCurrentApp(out string, keys []string) string {
	lines := strings.Split(out, "\n")
	for _, key := range keys {
		for _, line := range lines {
			rest, ok := keyValue(line, key)
			if !ok {
				continue
			}
			if m := componentRe.FindStringSubmatch(rest); m != nil {
				return m[1]
			}
			// "mCurrentFocus=Window{… u0 NotificationShade}" names no package.
		}
	}
	for _, key := range []string{"mCurrentFocus", "mFocusedWindow"} {
		for _, line := range lines {
			rest, ok := keyValue(line, key)
			if !ok {
				continue
			}
			if m := windowOnlyRe.FindStringSubmatch(strings.TrimLeft(rest, "=: ")); m != nil && !strings.Contains(m[1], "$") {
				return m[1]
			}
		}
	}
	return ""
}

// parseTopActivity reads `dumpsys activity top`: one "ACTIVITY pkg/.Cls …"
// line per visible task, the task in front printed last.
func parseTopActivity(out string) string {
	app := ""
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := keyValue(line, topActivityKey); ok {
			if m := componentRe.FindStringSubmatch(rest); m != nil {
				app = m[1]
			}
		}
	}
	return app
}

// keyValue returns what follows key at the start of a trimmed line, when the
// line really is that key (not a longer key that merely starts the same).
func keyValue(line, key string) (string, bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, key) {
		return "", false
	}
	rest := t[len(key):]
	if rest == "" || (rest[0] != '=' && rest[0] != ':' && rest[0] != ' ') {
		return "", false
	}
	return rest, true
}

// parseSecure reports whether the window of pkg carries FLAG_SECURE in a
// `dumpsys window windows` output. Android 10+ prints the flag names
// ("fl=… SECURE", some builds "FLAG_SECURE"); older builds print the mask
// ("fl=#81810120"), where FLAG_SECURE is 0x2000.
func parseSecure(out, pkg string) bool {
	if pkg == "" {
		return false
	}
	inWindow := false
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "Window #") {
			inWindow = strings.Contains(t, pkg)
			continue
		}
		if inWindow && windowFlagsSecure(t) {
			return true
		}
	}
	return false
}

var hexFlagsRe = regexp.MustCompile(`\bfl=#([0-9a-fA-F]+)`)

// flagSecure is WindowManager.LayoutParams.FLAG_SECURE.
const flagSecure = 0x2000

func windowFlagsSecure(line string) bool {
	if m := hexFlagsRe.FindStringSubmatch(line); m != nil {
		v, err := strconv.ParseUint(m[1], 16, 64)
		return err == nil && v&flagSecure != 0
	}
	i := strings.Index(line, "fl=")
	if i < 0 {
		i = strings.Index(line, "flags=")
	}
	if i < 0 {
		return false
	}
	for _, f := range strings.Fields(line[i:]) {
		f = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(f, "fl="), "flags="), "}")
		if f == "SECURE" || f == "FLAG_SECURE" {
			return true
		}
	}
	return false
}

var sizeRe = regexp.MustCompile(`(\d+)\s*x\s*(\d+)`)

// parseWMSize reads `wm size`: the override size wins (it is what input
// coordinates use); warnings printed before the sizes are ignored.
func parseWMSize(out string) (w, h int, ok bool) {
	var phys, override []string
	for _, line := range strings.Split(out, "\n") {
		m := sizeRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		switch {
		case strings.Contains(line, "Override size"):
			override = m
		case strings.Contains(line, "Physical size"):
			phys = m
		}
	}
	m := override
	if m == nil {
		m = phys
	}
	if m == nil {
		return 0, 0, false
	}
	w, _ = strconv.Atoi(m[1])
	h, _ = strconv.Atoi(m[2])
	return w, h, w > 0 && h > 0
}

// parseLaunchablePackages reads `pm query-activities … LAUNCHER` output and
// returns the distinct packageName values in order of appearance. The brief
// "pkg/activity" form some builds print is accepted too.
func parseLaunchablePackages(out string) []string {
	seen := map[string]bool{}
	var pkgs []string
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			pkgs = append(pkgs, p)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(t, "packageName="); ok {
			add(strings.Fields(v + " ")[0])
		} else if !strings.ContainsAny(t, " =:") {
			if m := componentRe.FindStringSubmatch(t); m != nil && m[0] == t {
				add(m[1])
			}
		}
	}
	return pkgs
}

// pngSize reads the width and height from a PNG's IHDR without decoding it.
func pngSize(b []byte) (w, h int, ok bool) {
	if len(b) < 24 || string(b[1:4]) != "PNG" || string(b[12:16]) != "IHDR" {
		return 0, 0, false
	}
	w = int(b[16])<<24 | int(b[17])<<16 | int(b[18])<<8 | int(b[19])
	h = int(b[20])<<24 | int(b[21])<<16 | int(b[22])<<8 | int(b[23])
	return w, h, w > 0 && h > 0
}

// propLine is one line of `getprop`: "[ro.product.model]: [Pixel 7]".
var propLine = regexp.MustCompile(`^\[([^\]]+)\]: \[(.*)\]$`)

// parseGetprop reads every "[key]: [value]" line of a `getprop` listing.
func parseGetprop(out string) map[string]string {
	props := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if m := propLine.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			props[m[1]] = m[2]
		}
	}
	return props
}
