package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
)

// applyFields types a form's values into the phone's text fields, in the
// template's order, and returns one delegation line per field (never a
// value). A field naming its target goes there; otherwise a secret goes
// only into the next password field on screen — never into whatever field
// the model focused, where the next element list would show it — and a
// plain value into the next plain text field. A value without a fitting
// field is not typed, and the line says so. With secureForm (a payment
// card) and no text field on screen, a FLAG_SECURE window's fields are
// typed in order (applyInOrder).
func applyFields(ctx context.Context, p *device.Phone, fields []HumanAuthField, secureForm bool) []string {
	root, _, err := p.Hierarchy(ctx)
	if err != nil {
		return []string{fmt.Sprintf("typing the form's %d fields failed: %v", len(fields), err)}
	}
	var edits []*screen.Node
	root.Walk(func(n *screen.Node) bool {
		if isTextField(n) {
			edits = append(edits, n)
		}
		return true
	})
	if len(edits) == 0 && secureForm {
		if secure, err := p.SecureWindow(ctx); err == nil && secure {
			return applyInOrder(ctx, p, fields)
		}
	}
	used := map[*screen.Node]bool{}
	var out []string
	for _, f := range fields {
		n := pickField(edits, used, f)
		name := fieldName(f)
		if n == nil {
			why := "no free text field on screen"
			switch {
			case f.Target != "":
				why = fmt.Sprintf("no text field %q on screen", f.Target)
			case f.Secret:
				why = "no password field on screen (a secret is typed only into one)"
			}
			out = append(out, fmt.Sprintf("%s not typed: %s", name, why))
			continue
		}
		used[n] = true
		if f.Secret {
			// A password field masks its text already; a secret in a field
			// the app did not mark (a code, a card number) is masked too.
			p.MarkSecret(f.Value, screen.SecretField{ResourceID: n.ResourceID, Bounds: n.Bounds})
		}
		c := n.Center()
		if _, err := p.Shell(ctx, fmt.Sprintf("input tap %d %d", c.X, c.Y)); err != nil {
			out = append(out, fmt.Sprintf("%s not typed: tapping %s failed: %v", name, fieldWhere(n), err))
			continue
		}
		if _, err := p.Type(ctx, f.Value); err != nil {
			out = append(out, fmt.Sprintf("%s not typed into %s: %v", name, fieldWhere(n), err))
			continue
		}
		out = append(out, fmt.Sprintf("typed %s (%d characters) into %s", name, len([]rune(f.Value)), fieldWhere(n)))
	}
	return out
}

// applyInOrder fills a FLAG_SECURE form that shows no element (a card
// SDK's or a Flutter view): fields cannot be found, but focus moves as on
// any Android form. Each value is preceded by KEYCODE_TAB, the hardware
// keyboard's focus-forward: a form opens in touch mode with nothing
// focused, so the first one leaves touch mode and focuses the form's
// first field, the next ones move to the next field. (A form that focuses
// a field by itself would lose its first field this way; nothing on a
// screen without elements tells.) Secrets
// may go here, unlike into a field the model picked: the window is secure,
// so neither the element list nor the screenshot can show them. The form
// is not submitted; the model does that (ENTER is the last field's IME
// action).
func applyInOrder(ctx context.Context, p *device.Phone, fields []HumanAuthField) []string {
	var out []string
	for i, f := range fields {
		name := fieldName(f)
		if f.Secret {
			p.MarkSecret(f.Value, screen.SecretField{}) // what the next screen may echo
		}
		res, err := p.Shell(ctx, "input keyevent KEYCODE_TAB")
		if err == nil && res.ExitCode != 0 {
			err = fmt.Errorf("exit status %d: %s", res.ExitCode, strings.TrimSpace(string(res.Stderr)))
		}
		if err != nil {
			out = append(out, fmt.Sprintf("%s not typed: moving focus to field %d of the secure form failed: %v", name, i+1, err))
			return out
		}
		if _, err := p.Type(ctx, f.Value); err != nil {
			out = append(out, fmt.Sprintf("%s not typed into field %d of the secure form: %v", name, i+1, err))
			return out
		}
		out = append(out, fmt.Sprintf("typed %s (%d characters) into field %d of the secure form", name, len([]rune(f.Value)), i+1))
	}
	return append(out, fmt.Sprintf("secure form without elements: %d fields typed in order (TAB between them), the last one is focused; not submitted", len(fields)))
}

func isTextField(n *screen.Node) bool {
	return n.Enabled && n.Visible() && (strings.HasSuffix(n.Class, "EditText") || strings.Contains(n.Class, "TextField"))
}

// pickField chooses the phone field for f among the unused text fields.
func pickField(edits []*screen.Node, used map[*screen.Node]bool, f HumanAuthField) *screen.Node {
	for _, n := range edits {
		if used[n] {
			continue
		}
		switch {
		case f.Target != "":
			if targetMatches(n, f.Target) {
				return n
			}
		case f.Secret:
			if n.Password {
				return n
			}
		case !n.Password:
			return n
		}
	}
	return nil
}

func targetMatches(n *screen.Node, target string) bool {
	t := strings.TrimSpace(target)
	id := n.ResourceID
	return id == t || strings.HasSuffix(id, ":id/"+t) ||
		strings.EqualFold(n.Hint(), t) || n.ContentDesc == t || (!n.Password && n.Text == t)
}

func fieldName(f HumanAuthField) string {
	kind := ""
	if f.Secret {
		kind = " (secret)"
	}
	return fmt.Sprintf("%s%s", f.Key, kind)
}

func fieldWhere(n *screen.Node) string {
	w := "text field"
	if n.Password {
		w = "password field"
	}
	if n.ResourceID != "" {
		return w + " " + n.ResourceID
	}
	if h := n.Hint(); h != "" {
		return fmt.Sprintf("%s %q", w, h)
	}
	return w
}
