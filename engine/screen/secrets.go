package screen

import "strings"

// SecretMask stands for a secret in the element list: the text of a filled
// password field, of a field the runtime typed a secret into, and any
// label showing a known secret value. Its length says nothing about the
// secret's.
const SecretMask = "••••"

// SecretField names a text field that holds a secret typed by the runtime
// (a password approved by a person, a one-time code) when the field itself
// is not marked password="true". ResourceID matches the field wherever the
// layout moves it (a keyboard resizing the window); a field without an id
// is matched by Bounds overlapping its own.
type SecretField struct {
	ResourceID string
	Bounds     Rect
}

// matches reports whether the editable element e is the field.
func (f SecretField) matches(e UIElement) bool {
	if !e.Editable {
		return false
	}
	if f.ResourceID != "" {
		return e.ResourceID == f.ResourceID
	}
	return !f.Bounds.Empty() && !f.Bounds.Intersect(e.Bounds).Empty()
}

// minSecretSubstring is the shortest secret masked wherever it appears in
// a label; a shorter one ("42") is masked only where it is a whole label,
// so it does not blank every clock and counter.
const minSecretSubstring = 4

// maskSecrets hides secrets in what Select returns: the fields named in o
// and every known value in labels, row contexts and notes.
func maskSecrets(sel *Selection, o ElementOptions) {
	if len(o.Secrets) == 0 && len(o.SecretFields) == 0 {
		return
	}
	mask := func(s string) string {
		for _, v := range o.Secrets {
			switch {
			case v == "":
			case len([]rune(v)) >= minSecretSubstring:
				s = strings.ReplaceAll(s, v, SecretMask)
			case strings.TrimSpace(s) == v:
				s = SecretMask
			}
		}
		return s
	}
	for i := range sel.Elements {
		e := &sel.Elements[i]
		for _, f := range o.SecretFields {
			if f.matches(*e) && e.Node != nil && cleanLabel(e.Node.Text) != "" {
				e.Text = SecretMask
			}
		}
		e.Text, e.ContentDesc, e.Context = mask(e.Text), mask(e.ContentDesc), mask(e.Context)
	}
	for i, n := range sel.Notes {
		sel.Notes[i] = mask(n)
	}
}
