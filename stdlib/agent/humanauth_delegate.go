package agent

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
)

// Delegation mode (humanAuth.mode "delegate", docs/human-auth.md): the runtime
// stores and describes what the person sent, and the model decides where
// and when it goes. The model never reads a value: it writes a
// placeholder into a type action — {{human_auth:<field>}} for a form's
// field, {{human_auth:text}} for a single text (the latest request's; the
// long form {{human_auth:<requestId>.<field>}} names an earlier one) — and
// the runtime fills it in as it types. The session, the trace and events
// keep the placeholder.

// placeholderRE matches one placeholder and captures its key.
var placeholderRE = regexp.MustCompile(`\{\{human_auth:([A-Za-z0-9._-]+)\}\}`)

// delegatedResult is the step result of an approved request in delegation
// mode: the human-auth lines of docs/formats.md#session, never a value.
// The delegation lines come right after the first line: the model's
// history shows a step's result cut to a few hundred characters, and
// they are what it must read.
func delegatedResult(id string, dec HumanAuthDecision) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Human auth %s request_id=%s message=%s", dec.Status, id, oneLine(dec.Message))
	b.WriteString("\ndelegation_result=stored, not applied (humanAuth.mode=delegate)")
	if t := delegationTemplate(dec); t != "" {
		fmt.Fprintf(&b, "\ndelegation_template=%s", t)
	}
	if d := describeArtifact(dec); d != "" {
		fmt.Fprintf(&b, "\nhuman_artifact_kind=%s", d)
	}
	if dec.Link != "" {
		fmt.Fprintf(&b, "\nhuman_auth_url=%s", dec.Link)
	}
	if dec.Artifact != nil && dec.Artifact.Path != "" {
		fmt.Fprintf(&b, "\nhuman_artifact=%s", dec.Artifact.Path)
	}
	return b.String()
}

// delegationTemplate is the next-step hint for what arrived, one line.
func delegationTemplate(dec HumanAuthDecision) string {
	var out []string
	if dec.Text != "" {
		out = append(out, fmt.Sprintf("type_text {{human_auth:text}} into the field it belongs to (%d chars)", len([]rune(dec.Text))))
	}
	if len(dec.Fields) > 0 {
		parts := make([]string, len(dec.Fields))
		for i, f := range dec.Fields {
			parts[i] = fmt.Sprintf("%s {{human_auth:%s}}", fieldName(f), f.Key)
		}
		out = append(out, "tap each field, then type_text its value: "+strings.Join(parts, ", "))
	}
	if a := dec.Artifact; a != nil {
		switch a.Kind {
		case "geo":
			out = append(out, fmt.Sprintf("set the phone's location to lat=%g lon=%g (emulator: adb emu geo fix %g %g)", a.Lat, a.Lon, a.Lon, a.Lat))
		case "image", "audio", "file":
			out = append(out, fmt.Sprintf("the %s (%s) is at human_artifact on this machine: push it where the app picks it up (e.g. %s) or attach it with a capability skill",
				a.Kind, a.MIME, downloadDir))
		}
	}
	return strings.Join(out, "; ")
}

// humanAuthHeader is the first line (and the page without its token).
func humanAuthHeader(id string, dec HumanAuthDecision) string {
	s := fmt.Sprintf("Human auth %s request_id=%s message=%s", dec.Status, id, oneLine(dec.Message))
	if dec.Link != "" {
		s += "\nhuman_auth_url=" + dec.Link
	}
	return s
}

// delegatedValues are the values a placeholder may name, by key: the
// short keys ("text", "<field>") and the long ones ("<id>",
// "<id>.<field>").
func delegatedValues(id string, dec HumanAuthDecision) map[string]string {
	m := map[string]string{}
	if dec.Text != "" {
		m["text"], m[id] = dec.Text, dec.Text
	}
	for _, f := range dec.Fields {
		m[f.Key], m[id+"."+f.Key] = f.Value, f.Value
	}
	return m
}

// fillPlaceholders replaces the placeholders of text; missing names the
// first one with no value.
func fillPlaceholders(text string, values map[string]string) (filled string, used []string, missing string) {
	filled = placeholderRE.ReplaceAllStringFunc(text, func(m string) string {
		key := placeholderRE.FindStringSubmatch(m)[1]
		v, ok := values[key]
		if !ok {
			if missing == "" {
				missing = m
			}
			return m
		}
		used = append(used, v)
		return v
	})
	return filled, used, missing
}

// typeDelegated types a type action whose text holds placeholders: the
// values go to the phone (and are masked in later element lists), the
// outcome and the recorded action keep the placeholders.
func (h *host) typeDelegated(ctx context.Context, a action.Action, o device.ActOptions) (device.Outcome, error) {
	text, used, missing := fillPlaceholders(a.Str("text"), h.delegated)
	if missing != "" {
		return device.Outcome{Device: a, Result: fmt.Sprintf("Not typed: %s names no value a person sent in this run (placeholders come from delegation_template= lines)", missing)}, nil
	}
	p, err := h.sess.Phone()
	if err != nil {
		return device.Outcome{}, err
	}
	for _, v := range used {
		p.MarkSecret(v, screen.SecretField{})
	}
	filled := action.Action{Type: a.Type, Params: map[string]any{}}
	for k, v := range a.Params {
		filled.Params[k] = v
	}
	filled.Params["text"] = text
	out, err := h.sess.ActContext(ctx, filled, o)
	out.Device = a
	if err != nil {
		// An error may quote the command it ran: the value stays out.
		for _, v := range used {
			if strings.Contains(err.Error(), v) {
				return out, errors.New("typing the value a person sent failed (the error quoted it; not shown)")
			}
		}
		return out, err
	}
	out.Result += fmt.Sprintf(" (%d value(s) a person sent, filled in by the runtime)", len(used))
	return out, nil
}
