package agent

import (
	"strings"
	"testing"
)

func TestDelegatedResultDescribesWithoutValues(t *testing.T) {
	dec := HumanAuthDecision{Status: "approved", Message: "the user approved and credentials provided", Delegate: true,
		Fields:   []HumanAuthField{{Key: "user", Value: "alice"}, {Key: "pin", Value: "8642", Secret: true}},
		Artifact: &HumanAuthArtifact{Path: "/s/r.json", Kind: "credentials"}}
	got := delegatedResult("r1", dec)
	for _, want := range []string{
		"Human auth approved request_id=r1",
		"\ndelegation_result=stored, not applied (humanAuth.mode=delegate)",
		"\ndelegation_template=tap each field, then type_text its value: user {{human_auth:user}}, pin (secret) {{human_auth:pin}}",
		"\nhuman_artifact=/s/r.json",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("result lacks %q:\n%s", want, got)
		}
	}
	for _, v := range []string{"alice", "8642"} {
		if strings.Contains(got, v) {
			t.Errorf("result holds the value %q:\n%s", v, got)
		}
	}
	vals := delegatedValues("r1", dec)
	filled, used, missing := fillPlaceholders("{{human_auth:user}}/{{human_auth:r1.pin}}", vals)
	if filled != "alice/8642" || len(used) != 2 || missing != "" {
		t.Errorf("filled %q used %v missing %q", filled, used, missing)
	}
	if _, _, missing := fillPlaceholders("x{{human_auth:card}}", vals); missing != "{{human_auth:card}}" {
		t.Errorf("an unknown placeholder is reported, got %q", missing)
	}
}
