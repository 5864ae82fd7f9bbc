package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"

	"github.com/openpocket/openpocket/engine"
)

// FingerprintSteps is how many leading steps the fingerprint covers.
const FingerprintSteps = 25

// Fingerprint is the behaviour fingerprint of a run (docs/formats.md#learned-skills-and-replay-scripts): over the
// first 25 steps, "<currentApp>:<detail>" where detail is the action type,
// "launch_app:<pkg>" or "request_human_auth:<capability>", joined with "|",
// hashed with SHA-256; the first 12 hex digits.
func Fingerprint(steps []engine.TraceStep) string {
	parts := make([]string, 0, min(len(steps), FingerprintSteps))
	for i, st := range steps {
		if i == FingerprintSteps {
			break
		}
		app := st.AppBefore
		if app == "" {
			app = "unknown"
		}
		detail := st.Action.Type
		switch st.Action.Type {
		case "launch_app":
			detail += ":" + st.Action.Str("packageName")
		case "request_human_auth":
			detail += ":" + st.Action.Str("capability")
		}
		parts = append(parts, app+":"+detail)
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "|")))
	return hex.EncodeToString(sum[:])[:12]
}

// maxSlug bounds a slug's length.
const maxSlug = 48

// Slug turns a task into a file-name slug: lower-case ASCII letters and
// digits, other runs of characters become one '-', at most 48 characters
// (cut at a word boundary when possible); "task" when nothing is left.
func Slug(task string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(task) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	s := b.String()
	if len(s) > maxSlug {
		s = s[:maxSlug]
		if i := strings.LastIndexByte(s, '-'); i > maxSlug/2 {
			s = s[:i]
		}
		s = strings.Trim(s, "-")
	}
	if s == "" {
		return "task"
	}
	return s
}
