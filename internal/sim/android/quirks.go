package android

// Quirks make the phone print what some real builds print where most print
// something else, so the runtime's parsers are tested against both. The
// zero value is the common behaviour.
type Quirks struct {
	// ClipboardGetError: `cmd clipboard get text` prints an "Error: …" line
	// and exits 0, as builds that deny the shell the clipboard do.
	ClipboardGetError bool
	// ClipboardSetError: `cmd clipboard set text` prints an "Error: …" line,
	// exits 0 and leaves the clipboard as it was (no input method or
	// clipboard service to take the clip).
	ClipboardSetError bool
	// KeyguardOneLine: `dumpsys window policy` prints the keyguard delegate
	// on one line, "KeyguardServiceDelegate: showing=true …", instead of a
	// section with one field per line.
	KeyguardOneLine bool
	// WMSizeSilent: `wm size` prints nothing (some vendor builds in
	// landscape, and builds whose window manager is not up yet).
	WMSizeSilent bool
}

// SetQuirks replaces the phone's quirks.
func (p *Phone) SetQuirks(q Quirks) { p.locked(func() { p.st.ext.quirks = q }) }

// The texts the quirks print, modelled on what such builds print.
const (
	clipboardGetDenied = "Error: java.lang.SecurityException: uid 2000 cannot read the primary clip"
	clipboardSetNoIME  = "Error: no input method is active; cannot set the primary clip"
)
