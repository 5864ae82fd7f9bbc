package relay

import (
	"embed"
	"html/template"
	"regexp"
	"strings"

	"github.com/openpocket/openpocket/internal/humanauth"
)

//go:embed pages.html
var pageFS embed.FS

var pages = template.Must(template.ParseFS(pageFS, "pages.html"))

const defaultBrand = "#3b5bdb"

// field is one uiTemplate field as the page shows it.
type field struct {
	ID, Name, Label, Type, Placeholder, HelperText, Autocomplete string
	InputMode, Pattern                                           string
	Required, Textarea, Select, OTP                              bool
	Options                                                      []option
}

type option struct{ Label, Value string }

// view is the approval page's data.
type view struct {
	Nonce, Token, Action                                    string
	Task, AgentID, Expires                                  string
	ExpiresUnix                                             int64
	Title, Summary, CapabilityHint, Instruction, Capability string
	Problem                                                 string
	Fields                                                  []field
	AllowText, AllowLocation, AllowPhoto, AllowAudio        bool
	AllowFile, RequireArtifact                              bool
	FileAccept, ArtifactKind                                string
	ApproveLabel, RejectLabel, NoteLabel, NotePlaceholder   string
	Brand, Background, Font                                 string
	Srcdoc                                                  string
	HasMiddle, HasApproveScript                             bool
	// Screen is the phone's live screen image (with its token; "" when
	// there is none), Tap where takeover taps go ("" when not allowed).
	Screen, Tap string
}

type messageView struct{ Title, Message, Nonce, Brand string }

// newView reads the request's uiTemplate (docs/formats.md#actions) with the defaults of
// its capability for whatever the template leaves out.
func newView(p humanauth.Pending, token, nonce string) view {
	t := p.UITemplate
	v := view{Nonce: nonce, Token: token, Action: "/a/" + p.AgentID + "/auth/" + p.ID,
		Capability: p.Capability, Instruction: p.Instruction, Task: p.Task, AgentID: p.AgentID,
		Expires: p.ExpiresAt.UTC().Format("15:04:05 UTC"), ExpiresUnix: p.ExpiresAt.Unix(),
		Title:           str(t, "title", "Authorization requested"),
		Summary:         str(t, "summary", ""),
		CapabilityHint:  str(t, "capabilityHint", capabilityHint(p.Capability)),
		ArtifactKind:    str(t, "artifactKind", "auto"),
		FileAccept:      str(t, "fileAccept", ""),
		ApproveLabel:    str(t, "approveLabel", "Approve"),
		RejectLabel:     str(t, "rejectLabel", "Reject"),
		NoteLabel:       str(t, "noteLabel", "Note (optional)"),
		NotePlaceholder: str(t, "notePlaceholder", ""),
		Brand:           defaultBrand, Background: "#f4f5f7", Font: "system-ui, -apple-system, Roboto, sans-serif",
	}
	for _, f := range list(t, "fields") {
		if fv, ok := newField(f); ok {
			v.Fields = append(v.Fields, fv)
		}
	}
	if t == nil || t["fields"] == nil {
		v.Fields = defaultFields(p.Capability)
	}
	def := defaultAttachments(p.Capability)
	v.AllowText = flag(t, "allowTextAttachment", def["text"])
	v.AllowLocation = flag(t, "allowLocationAttachment", def["location"])
	v.AllowPhoto = flag(t, "allowPhotoAttachment", def["photo"])
	v.AllowAudio = flag(t, "allowAudioAttachment", def["audio"])
	v.AllowFile = flag(t, "allowFileAttachment", def["file"])
	v.RequireArtifact = flag(t, "requireArtifactOnApprove", false)
	if st, ok := t["style"].(map[string]any); ok {
		v.Brand = safeCSS(st, "brandColor", colorRE, v.Brand)
		v.Background = safeCSS(st, "backgroundCss", backgroundRE, v.Background)
		v.Font = safeCSS(st, "fontFamily", fontRE, v.Font)
	}
	v.Srcdoc, v.HasMiddle = srcdoc(t, nonce)
	v.HasApproveScript = str(t, "approveScript", "") != ""
	return v
}

func newField(m map[string]any) (field, bool) {
	id := str(m, "id", "")
	if id == "" {
		return field{}, false
	}
	f := field{ID: id, Name: "f_" + id, Label: str(m, "label", id), Type: str(m, "type", "text"),
		Placeholder: str(m, "placeholder", ""), HelperText: str(m, "helperText", ""),
		Autocomplete: str(m, "autocomplete", ""), Required: flag(m, "required", false)}
	kind := f.Type
	switch kind {
	case "textarea":
		f.Textarea = true
	case "select":
		f.Select = true
		for _, o := range list(m, "options") {
			f.Options = append(f.Options, option{Label: str(o, "label", str(o, "value", "")), Value: str(o, "value", "")})
		}
	case "otp":
		f.OTP = true
		f.Type, f.InputMode, f.Pattern = "text", "numeric", "[0-9A-Za-z]{4,10}"
		f.Autocomplete = or(f.Autocomplete, "one-time-code")
	case "card-number":
		f.Type, f.InputMode, f.Pattern = "text", "numeric", "[0-9 ]{12,23}"
		f.Autocomplete = or(f.Autocomplete, "cc-number")
	case "expiry":
		f.Type, f.Pattern = "text", "(0[1-9]|1[0-2]) ?/ ?[0-9]{2,4}"
		f.Autocomplete = or(f.Autocomplete, "cc-exp")
		f.Placeholder = or(f.Placeholder, "MM/YY")
	case "cvc":
		f.Type, f.InputMode, f.Pattern = "password", "numeric", "[0-9]{3,4}"
		f.Autocomplete = or(f.Autocomplete, "cc-csc")
	case "text", "password", "email", "number", "date":
	default:
		f.Type = "text"
	}
	return f, true
}

// defaultFields is the page of a capability without a template: a code
// box for 2fa and sms.
func defaultFields(capability string) []field {
	switch capability {
	case "2fa", "sms":
		f, _ := newField(map[string]any{"id": "code", "label": "Code", "type": "otp", "required": true, "placeholder": "123456"})
		return []field{f}
	}
	return nil
}

func defaultAttachments(capability string) map[string]bool {
	switch capability {
	case "camera":
		return map[string]bool{"photo": true}
	case "qr":
		return map[string]bool{"photo": true, "text": true}
	case "location":
		return map[string]bool{"location": true}
	case "microphone", "voice":
		return map[string]bool{"audio": true}
	case "files":
		return map[string]bool{"file": true}
	}
	return map[string]bool{"text": true}
}

func capabilityHint(c string) string {
	switch c {
	case "2fa", "sms":
		return "Enter the code you received."
	case "camera":
		return "Take or choose a photo."
	case "qr":
		return "Photograph the QR code, or paste its text."
	case "location":
		return "Share a location."
	case "files":
		return "Choose a file to send."
	case "payment":
		return "Confirm the payment."
	}
	return ""
}

var (
	colorRE      = regexp.MustCompile(`^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,20}|rgba?\([0-9., %]+\))$`)
	backgroundRE = regexp.MustCompile(`^[a-zA-Z0-9#%,.() -]{1,200}$`)
	fontRE       = regexp.MustCompile(`^[a-zA-Z0-9 ,'"-]{1,120}$`)
)

// safeCSS takes a style value only when it is plain (no url(), no
// semicolons or braces to break out of its declaration).
func safeCSS(m map[string]any, key string, re *regexp.Regexp, def string) string {
	s := strings.TrimSpace(str(m, key, ""))
	if s == "" || !re.MatchString(s) || strings.Contains(strings.ToLower(s), "url") || strings.Contains(strings.ToLower(s), "expression") {
		return def
	}
	return s
}

// srcdoc builds the sandboxed iframe's document from middleHtml,
// middleCss, middleScript and approveScript. It runs with an opaque
// origin (sandbox="allow-scripts", no allow-same-origin) under the page's
// policy; its base is about:blank so the page's URL (and token) is not
// its base URL. approveScript runs when Approve is pressed and its return
// value is sent with the form as middle_result.
func srcdoc(t map[string]any, nonce string) (string, bool) {
	html, css := str(t, "middleHtml", ""), str(t, "middleCss", "")
	script, approve := str(t, "middleScript", ""), str(t, "approveScript", "")
	if html == "" && css == "" && script == "" && approve == "" {
		return "", false
	}
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><meta charset="utf-8"><base href="about:blank">`)
	b.WriteString(`<style nonce="` + nonce + `">body{margin:0;padding:.6rem .8rem;font:15px system-ui,sans-serif}` + css + `</style></head><body>`)
	b.WriteString(html)
	b.WriteString(`<script nonce="` + nonce + `">window.addEventListener("message",function(e){if(e.source!==parent||!e.data||e.data.type!=="approve")return;var v="";try{v=(function(){` + approve + "\n" + `})()}catch(err){v=""}parent.postMessage({type:"approveResult",value:v==null?"":String(v)},"*")});</script>`)
	if script != "" {
		b.WriteString(`<script nonce="` + nonce + `">` + script + `</script>`)
	}
	b.WriteString(`</body></html>`)
	return b.String(), true
}

func str(m map[string]any, k, def string) string {
	if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
		return s
	}
	return def
}

func flag(m map[string]any, k string, def bool) bool {
	if b, ok := m[k].(bool); ok {
		return b
	}
	return def
}

func list(m map[string]any, k string) []map[string]any {
	var out []map[string]any
	xs, _ := m[k].([]any)
	for _, x := range xs {
		if o, ok := x.(map[string]any); ok {
			out = append(out, o)
		}
	}
	return out
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
