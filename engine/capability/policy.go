// Package capability is the capability plane (docs/human-auth.md): it recognises the
// screens where a person, not the agent, should act — camera, microphone,
// location, photos, payment and secure surfaces (Detect, for the agent's
// probe, humanAuth.probe) — and answers Android's runtime permission
// dialogs by a configured policy (Policy, Guard, humanAuth.permissions)
// before any caller sees them, recording each answer as a
// local_vm_permission= line (docs/formats.md#session).
package capability

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Answer is what the policy presses on a permission dialog.
type Answer string

// Answers of the policy.
const (
	Allow Answer = "allow" // "While using the app" or "Allow"
	Once  Answer = "once"  // "Only this time"; denied where the dialog has no such button
	Deny  Answer = "deny"  // "Don't allow"
)

// Groups are the runtime permission groups a policy may name.
var Groups = []string{"calendar", "camera", "contacts", "location", "microphone", "nearby_devices",
	"notifications", "phone", "photos", "physical_activity", "sensors", "sms"}

// Policy answers permission dialogs: Apps[package][group] first, then
// Groups[group], then Default (deny when empty). Source names the config
// key an answer came from, for the session line.
type Policy struct {
	Default Answer
	Groups  map[string]Answer
	Apps    map[string]map[string]Answer
	// Source is the config key prefix, "humanAuth.permissions".
	Source string
}

// ParseAnswer reads allow, once or deny.
func ParseAnswer(s string) (Answer, error) {
	switch a := Answer(strings.TrimSpace(s)); a {
	case Allow, Once, Deny:
		return a, nil
	}
	return "", fmt.Errorf("expected one of allow, once, deny, got %q", s)
}

// CheckGroup reports an unknown group name with the known ones.
func CheckGroup(g string) error {
	if slices.Contains(Groups, g) {
		return nil
	}
	return fmt.Errorf("expected a permission group (%s), got %q", strings.Join(Groups, ", "), g)
}

// Decide returns the answer for pkg's request of group and the config key
// that chose it.
func (p *Policy) Decide(pkg, group string) (Answer, string) {
	src := p.Source
	if src == "" {
		src = "policy"
	}
	if a, ok := p.Apps[pkg][group]; ok {
		return a, fmt.Sprintf("%s.apps.%s.%s", src, pkg, group)
	}
	if a, ok := p.Groups[group]; ok {
		return a, fmt.Sprintf("%s.groups.%s", src, group)
	}
	if p.Default != "" {
		return p.Default, src + ".default"
	}
	return Deny, src + " (no rule: deny)"
}

// String lists the rules, sorted, for logs and tests.
func (p *Policy) String() string {
	var parts []string
	for g, a := range p.Groups {
		parts = append(parts, g+"="+string(a))
	}
	for pkg, m := range p.Apps {
		for g, a := range m {
			parts = append(parts, pkg+"/"+g+"="+string(a))
		}
	}
	sort.Strings(parts)
	return fmt.Sprintf("default=%s %s", p.Default, strings.Join(parts, " "))
}
