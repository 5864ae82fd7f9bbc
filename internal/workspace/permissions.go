package workspace

import (
	"sort"

	"github.com/openpocket/openpocket/engine/capability"
)

// PermissionsConfig is humanAuth.permissions: how the runtime answers
// Android's permission dialogs — allow, once or deny per group, optionally
// per app — so the model never chooses.
//
//	"permissions": {
//	  "default": "deny",
//	  "groups": {"camera": "allow", "location": "once"},
//	  "apps": {"com.example.maps": {"location": "deny"}}
//	}
type PermissionsConfig struct {
	Default string                       `json:"default,omitempty"`
	Groups  map[string]string            `json:"groups,omitempty"`
	Apps    map[string]map[string]string `json:"apps,omitempty"`
}

// validateCapability checks humanAuth.probe and humanAuth.permissions.
func (h HumanAuthConfig) validateCapability() error {
	if _, err := capability.ParseProbeMode(h.Probe); err != nil {
		return badConfig("humanAuth.probe", "%v", err)
	}
	_, err := h.PermissionPolicy()
	return err
}

// PermissionPolicy is the configured policy, nil when none is configured.
// The error is a *ConfigError naming the key.
func (h HumanAuthConfig) PermissionPolicy() (*capability.Policy, error) {
	c := h.Permissions
	if c == nil {
		return nil, nil
	}
	const base = "humanAuth.permissions"
	pol := &capability.Policy{Source: base, Groups: map[string]capability.Answer{}, Apps: map[string]map[string]capability.Answer{}}
	if c.Default != "" {
		a, err := capability.ParseAnswer(c.Default)
		if err != nil {
			return nil, badConfig(base+".default", "%v", err)
		}
		pol.Default = a
	}
	groups := func(path string, in map[string]string) (map[string]capability.Answer, error) {
		out := map[string]capability.Answer{}
		for _, g := range sortedKeys(in) {
			if err := capability.CheckGroup(g); err != nil {
				return nil, badConfig(path+"."+g, "%v", err)
			}
			a, err := capability.ParseAnswer(in[g])
			if err != nil {
				return nil, badConfig(path+"."+g, "%v", err)
			}
			out[g] = a
		}
		return out, nil
	}
	var err error
	if pol.Groups, err = groups(base+".groups", c.Groups); err != nil {
		return nil, err
	}
	for _, pkg := range sortedKeys(c.Apps) {
		if pol.Apps[pkg], err = groups(base+".apps."+pkg, c.Apps[pkg]); err != nil {
			return nil, err
		}
	}
	return pol, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
