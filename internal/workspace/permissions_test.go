package workspace

import (
	"strings"
	"testing"

	"github.com/openpocket/openpocket/engine/capability"
)

func TestPermissionPolicyConfig(t *testing.T) {
	data := `{
  "humanAuth": {
    "probe": "ask",
    "permissions": {
      "default": "deny",
      "groups": {"camera": "allow", "location": "once"},
      "apps": {"com.openpocket.maps": {"location": "deny"}}
    }
  }
}`
	cfg, warnings, err := ParseConfig("config.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings for documented keys: %v", warnings)
	}
	pol, err := cfg.HumanAuth.PermissionPolicy()
	if err != nil || pol == nil {
		t.Fatalf("policy: %v %v", pol, err)
	}
	cases := []struct {
		pkg, group string
		want       capability.Answer
		src        string
	}{
		{"com.openpocket.camera", "camera", capability.Allow, "humanAuth.permissions.groups.camera"},
		{"com.openpocket.maps", "location", capability.Deny, "humanAuth.permissions.apps.com.openpocket.maps.location"},
		{"com.other", "location", capability.Once, "humanAuth.permissions.groups.location"},
		{"com.other", "contacts", capability.Deny, "humanAuth.permissions.default"},
	}
	for _, c := range cases {
		got, src := pol.Decide(c.pkg, c.group)
		if got != c.want || src != c.src {
			t.Errorf("Decide(%s, %s) = %s by %s, want %s by %s", c.pkg, c.group, got, src, c.want, c.src)
		}
	}
	if cfg.HumanAuth.Probe != "ask" {
		t.Errorf("probe = %q", cfg.HumanAuth.Probe)
	}
	none, err := DefaultConfig().HumanAuth.PermissionPolicy()
	if none != nil || err != nil {
		t.Errorf("default config has a policy: %v %v", none, err)
	}
}

func TestPermissionPolicyConfigErrorsNameLine(t *testing.T) {
	cases := []struct{ name, data, want string }{
		{"answer", "{\n  \"humanAuth\": {\n    \"permissions\": {\n      \"groups\": {\"camera\": \"always\"}\n    }\n  }\n}",
			`config.json:4:28: humanAuth.permissions.groups.camera: expected one of allow, once, deny, got "always"`},
		{"group", "{\n  \"humanAuth\": {\"permissions\": {\n    \"apps\": {\"com.x\": {\n      \"camra\": \"deny\"}}}}\n}",
			`humanAuth.permissions.apps.com.x.camra: expected a permission group`},
		{"probe", "{\n  \"humanAuth\": {\n    \"probe\": \"sometimes\"\n  }\n}",
			`config.json:3:14: humanAuth.probe: expected one of off, ask, auto, got "sometimes"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ParseConfig("config.json", []byte(c.data))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}
