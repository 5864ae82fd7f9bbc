package memory

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"Wi-Fi":        "wifi",
		"Résumé":       "resume",
		"CAFÉ au lait": "cafe au lait",
		"e\u2011mail":  "email",
		"plain":        "plain",
		"Cafe\u0301":   "cafe", // decomposed: e + combining acute
		"Ẓoë Ångström": "zoe angstrom",
	} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSearchFoldsCaseHyphensAndAccents(t *testing.T) {
	dir := t.TempDir()
	body := "# Memory\n\n- Turned Wi-Fi off at home\n- Sent the Résumé to Zoë\n"
	if err := os.WriteFile(filepath.Join(dir, "MEMORY.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	e := New(dir, Config{})
	for _, q := range []string{"wifi", "WIFI", "wi-fi", "resume", "zoe"} {
		res, err := e.Search(q, 5, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) == 0 {
			t.Errorf("query %q found nothing in %q", q, body)
			continue
		}
		if res.Results[0].Score < 1 {
			t.Errorf("query %q: score %v, want 1 (phrase and every token match)", q, res.Results[0].Score)
		}
	}
	res, err := e.Search("bluetooth", 5, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 0 {
		t.Errorf("bluetooth matched %v", res.Results)
	}
}
