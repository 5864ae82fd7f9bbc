package action

import (
	"fmt"
	"sort"
	"strings"
)

// uiTemplateSchema is the JSON schema of request_human_auth's uiTemplate
// (docs/formats.md#actions). It is built fresh on every call so callers may modify it.
func uiTemplateSchema() map[string]any {
	str := func(doc string) map[string]any { return map[string]any{"type": "string", "description": doc} }
	boolean := func(doc string) map[string]any { return map[string]any{"type": "boolean", "description": doc} }
	enum := func(doc string, vals ...string) map[string]any {
		return map[string]any{"type": "string", "enum": toAnySlice(vals), "description": doc}
	}
	field := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"id":    str("Field id; the key of the value in the returned artifact."),
			"label": str("Label shown above the field."),
			"type": enum("Input type.", "text", "textarea", "password", "email", "number", "date",
				"select", "otp", "card-number", "expiry", "cvc"),
			"placeholder": str("Placeholder text."),
			"required":    boolean("The human must fill the field to approve."),
			"helperText":  str("Help text shown under the field."),
			"options": map[string]any{
				"type":        "array",
				"description": "Choices of a select field.",
				"items": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"label": str("Shown text."),
						"value": str("Returned value."),
					},
					"required":             []any{"label", "value"},
					"additionalProperties": false,
				},
			},
			"autocomplete": str("HTML autocomplete hint."),
			"artifactKey":  str("Key of the value in the artifact (defaults to id)."),
			"target":       str("The phone field this value is typed into: its resource id (\"password\" or \"pkg:id/password\"), hint or text. Without it a secret goes only into a password field."),
		},
		"required":             []any{"id", "label", "type"},
		"additionalProperties": false,
	}
	return map[string]any{
		"type":        "object",
		"description": "Optional form shown to the human (title, fields, attachments, style).",
		"properties": map[string]any{
			"templateId":               str("Id of a built-in template."),
			"title":                    str("Title of the request page."),
			"summary":                  str("Short summary under the title."),
			"capabilityHint":           str("Extra hint about the capability needed."),
			"artifactKind":             enum("Kind of artifact the human returns.", "auto", "credentials", "payment_card", "form"),
			"requireArtifactOnApprove": boolean("Approval requires an artifact (filled form, photo...)."),
			"allowTextAttachment":      boolean("Allow attaching text."),
			"allowLocationAttachment":  boolean("Allow attaching the location."),
			"allowPhotoAttachment":     boolean("Allow attaching a photo."),
			"allowAudioAttachment":     boolean("Allow attaching audio."),
			"allowFileAttachment":      boolean("Allow attaching a file."),
			"fileAccept":               str("Accepted file types, as in HTML accept (e.g. image/*)."),
			"middleHtml":               str("Custom HTML shown in the middle of the page."),
			"middleCss":                str("Custom CSS for middleHtml."),
			"middleScript":             str("Custom script for middleHtml."),
			"approveScript":            str("Script run on approve to build the artifact."),
			"approveLabel":             str("Label of the approve button."),
			"rejectLabel":              str("Label of the reject button."),
			"noteLabel":                str("Label of the note box."),
			"notePlaceholder":          str("Placeholder of the note box."),
			"fields": map[string]any{
				"type":        "array",
				"description": "Form fields.",
				"items":       field,
			},
			"style": map[string]any{
				"type":        "object",
				"description": "Page style.",
				"properties": map[string]any{
					"brandColor":    str("Accent colour (CSS)."),
					"backgroundCss": str("CSS background."),
					"fontFamily":    str("CSS font-family."),
				},
				"additionalProperties": false,
			},
		},
		"additionalProperties": false,
	}
}

func toAnySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// walker checks (strict) or repairs (lenient) a value against a JSON schema
// of the subset used here: object, array, string (with enum), boolean,
// integer and number.
type walker struct {
	strict bool
	notes  []string
}

// walk returns the normalized value and ok=false when v is invalid (lenient)
// or an error (strict). path names the value in notes and errors.
func (w *walker) walk(v any, schema map[string]any, path string) (any, bool, error) {
	typ, _ := schema["type"].(string)
	switch typ {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false, w.bad(path, "must be an object, got %s", describe(v))
		}
		props, _ := schema["properties"].(map[string]any)
		out := make(map[string]any, len(m))
		for _, k := range sortedKeys(m) {
			sub, known := props[k].(map[string]any)
			if !known {
				if err := w.fail(path+"."+k, "unknown field, dropped", "is not a known field"); err != nil {
					return nil, false, err
				}
				continue
			}
			if m[k] == nil {
				continue
			}
			nv, ok, err := w.walk(m[k], sub, path+"."+k)
			if err != nil {
				return nil, false, err
			}
			if ok {
				out[k] = nv
			}
		}
		if req, _ := schema["required"].([]any); req != nil {
			for _, r := range req {
				name, _ := r.(string)
				if _, ok := out[name]; !ok {
					return nil, false, w.bad(path, "is missing required field %q", name)
				}
			}
		}
		return out, true, nil
	case "array":
		items, _ := schema["items"].(map[string]any)
		list, ok := asList(v)
		if !ok {
			return nil, false, w.bad(path, "must be an array, got %s", describe(v))
		}
		out := make([]any, 0, len(list))
		for i, e := range list {
			nv, ok, err := w.walk(e, items, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, false, err
			}
			if ok {
				out = append(out, nv)
			}
		}
		return out, true, nil
	case "string":
		var s string
		var ok bool
		if w.strict {
			s, ok = v.(string)
		} else {
			s, ok = coerceString(v)
		}
		if !ok {
			return nil, false, w.bad(path, "must be a string, got %s", describe(v))
		}
		if enum, _ := schema["enum"].([]any); enum != nil {
			for _, e := range enum {
				es, _ := e.(string)
				if s == es || (!w.strict && strings.EqualFold(strings.TrimSpace(s), es)) {
					return es, true, nil
				}
			}
			return nil, false, w.bad(path, "must be one of %s, got %q", joinAny(enum), s)
		}
		return s, true, nil
	case "boolean":
		var b, ok bool
		if w.strict {
			b, ok = v.(bool)
		} else {
			b, ok = coerceBool(v)
		}
		if !ok {
			return nil, false, w.bad(path, "must be a boolean, got %s", describe(v))
		}
		return b, true, nil
	case "integer":
		n, ok, _ := coerceInt(v, !w.strict)
		if !ok {
			return nil, false, w.bad(path, "must be an integer, got %s", describe(v))
		}
		return n, true, nil
	}
	return nil, false, w.bad(path, "has an unsupported schema type %q", typ)
}

// bad reports an invalid value: an error in strict mode, a "dropped" note
// otherwise.
func (w *walker) bad(path, format string, args ...any) error {
	msg := path + " " + fmt.Sprintf(format, args...)
	if w.strict {
		return fmt.Errorf("%s", msg)
	}
	w.notes = append(w.notes, msg+", dropped")
	return nil
}

func (w *walker) fail(path, lenient, strict string) error {
	if w.strict {
		return fmt.Errorf("%s %s", path, strict)
	}
	w.notes = append(w.notes, path+" "+lenient)
	return nil
}

// asList accepts []any and the typed slices Go callers commonly build.
func asList(v any) ([]any, bool) {
	switch l := v.(type) {
	case []any:
		return l, true
	case []map[string]any:
		out := make([]any, len(l))
		for i, e := range l {
			out[i] = e
		}
		return out, true
	case []string:
		return toAnySlice(l), true
	}
	return nil, false
}

func joinAny(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, "|")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
