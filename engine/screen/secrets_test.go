package screen

import (
	"strings"
	"testing"
)

// A secret typed into a field that is not a password field (the model
// focused the user name field; a PIN box drawn as plain EditTexts) shows
// as the mask in that field and wherever the app echoes it.
func TestMarkedSecretsAreMasked(t *testing.T) {
	const dump = `<hierarchy>
<node class="android.widget.FrameLayout" package="p" bounds="[0,0][1080,2400]">
  <node class="android.widget.EditText" package="p" resource-id="p:id/user" text="Hunter2-secret" clickable="true" focused="true" bounds="[0,100][1080,200]"/>
  <node class="android.widget.EditText" package="p" text="Formatted 1234 5678" clickable="true" bounds="[0,200][1080,300]"/>
  <node class="android.widget.TextView" package="p" text="Signed in as Hunter2-secret" bounds="[0,300][1080,400]"/>
  <node class="android.widget.TextView" package="p" text="42" bounds="[0,400][1080,500]"/>
  <node class="android.widget.TextView" package="p" text="12:42" bounds="[0,500][1080,600]"/>
  <node class="android.widget.Button" package="p" content-desc="Show Hunter2-secret" clickable="true" bounds="[0,600][1080,700]"/>
</node>
</hierarchy>`
	root, err := ParseHierarchy([]byte(dump))
	if err != nil {
		t.Fatal(err)
	}
	plain := ElementBlock(Elements(root, ElementOptions{Width: 1080, Height: 2400}), nil)
	if !strings.Contains(plain, "Hunter2-secret") {
		t.Fatalf("without marks the text is shown:\n%s", plain)
	}
	sel := Select(root, ElementOptions{Width: 1080, Height: 2400,
		Secrets:      []string{"Hunter2-secret", "42"},
		SecretFields: []SecretField{{ResourceID: "p:id/user"}, {Bounds: Rect{Left: 10, Top: 210, Right: 20, Bottom: 220}}}})
	block := ElementBlock(sel.Elements, sel.Notes)
	for _, leak := range []string{"Hunter2", "1234"} {
		if strings.Contains(block, leak) {
			t.Errorf("%q leaks:\n%s", leak, block)
		}
	}
	for _, want := range []string{
		`label="••••" clickable=true class=EditText center=(540,150)`,
		`label="••••" clickable=true class=EditText center=(540,250)`,
		`label="Signed in as ••••"`,
		`label="••••" clickable=false class=TextView center=(540,450)`,
		`label="12:42"`, // a short secret is masked only as a whole label
		`label="Show ••••"`,
	} {
		if !strings.Contains(block, want) {
			t.Errorf("missing %s in:\n%s", want, block)
		}
	}
}
