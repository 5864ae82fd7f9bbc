package run

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestRedactingMasksEveryField: a secret (a string and a number) is masked
// in the message, plain and grouped attributes, attributes added with
// With, and values of other kinds that print it.
func TestRedactingMasksEveryField(t *testing.T) {
	var buf bytes.Buffer
	h := redacting(slog.NewTextHandler(&buf, nil), map[string]any{"pw": "hunter2", "pin": 8642})
	log := slog.New(h).With("who", "user hunter2")
	log.Info("pw is hunter2", "n", 8642, "g", slog.GroupValue(slog.String("inner", "xhunter2x")), "err", errString("bad hunter2"), "ok", 7)
	out := buf.String()
	for _, secret := range []string{"hunter2", "8642"} {
		if strings.Contains(out, secret) {
			t.Errorf("%q in %s", secret, out)
		}
	}
	for _, want := range []string{`msg="pw is •••"`, `who="user •••"`, `n=•••`, `g.inner=x•••x`, `err="bad •••"`, `ok=7`} {
		if !strings.Contains(out, want) {
			t.Errorf("want %s in %s", want, out)
		}
	}
	if h := redacting(slog.NewTextHandler(&buf, nil), nil); func() bool { _, ok := h.(*redactHandler); return ok }() {
		t.Error("no secrets: the handler should be the inner one")
	}
}

type errString string

func (e errString) Error() string { return string(e) }
