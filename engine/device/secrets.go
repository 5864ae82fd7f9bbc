package device

import (
	"slices"

	"github.com/openpocket/openpocket/engine/screen"
)

// secretMarks are the secrets typed on this phone for a person: every
// later element list masks them (screen.ElementOptions.Secrets and
// SecretFields). Guarded by Phone.mu.
type secretMarks struct {
	values []string
	fields []screen.SecretField
}

// MarkSecret tells the phone that value was just typed into field for a
// person (a password approved on the relay page, a one-time code). From
// then on the element lists of this Phone show screen.SecretMask for that
// field's text and for any label holding value, even when the field is not
// a password field; a cached list is not reused. Either part may be empty:
// a zero field masks only the value, an empty value only the field. The
// marks last as long as the Phone (one run).
func (p *Phone) MarkSecret(value string, field screen.SecretField) {
	p.mu.Lock()
	if value != "" && !slices.Contains(p.secrets.values, value) {
		p.secrets.values = append(p.secrets.values, value)
	}
	if (field.ResourceID != "" || !field.Bounds.Empty()) && !slices.Contains(p.secrets.fields, field) {
		p.secrets.fields = append(p.secrets.fields, field)
	}
	p.mu.Unlock()
	p.Invalidate()
}

// SecretFieldOf is the SecretField naming an element of a snapshot (the
// focused field the secret was typed into).
func SecretFieldOf(e screen.UIElement) screen.SecretField {
	return screen.SecretField{ResourceID: e.ResourceID, Bounds: e.Bounds}
}

// secretOptions copies the marks into o.
func (p *Phone) secretOptions(o *screen.ElementOptions) {
	p.mu.Lock()
	o.Secrets = slices.Clone(p.secrets.values)
	o.SecretFields = slices.Clone(p.secrets.fields)
	p.mu.Unlock()
}
