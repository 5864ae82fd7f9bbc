package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// humanHandler writes one log line per record in the format a person
// reads, the same on the terminal and in a run's log.txt:
//
//	14:03:07.412 INFO  saved count=3
//
// Attributes follow the message as key=value (values with spaces quoted);
// the "source=lua" marker the Lua log module adds is dropped, since the
// line says what it says whoever wrote it.
type humanHandler struct {
	mu    *sync.Mutex
	w     io.Writer
	level slog.Leveler
	attrs []slog.Attr
	group string
}

func newHumanHandler(w io.Writer, level slog.Leveler) *humanHandler {
	return &humanHandler{mu: &sync.Mutex{}, w: w, level: level}
}

func (h *humanHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

func (h *humanHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	t := r.Time
	if t.IsZero() {
		t = time.Now()
	}
	fmt.Fprintf(&b, "%s %-5s %s", t.Format("15:04:05.000"), r.Level.String(), r.Message)
	for _, a := range h.attrs { // keys already carry the group they were added under
		writeAttr(&b, "", a)
	}
	r.Attrs(func(a slog.Attr) bool {
		writeAttr(&b, h.group, a)
		return true
	})
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

// writeAttr appends " key=value", the key under group (dotted).
func writeAttr(b *strings.Builder, group string, a slog.Attr) {
	if a.Key == "source" && a.Value.String() == "lua" {
		return
	}
	key := a.Key
	if group != "" {
		key = group + "." + key
	}
	fmt.Fprintf(b, " %s=%s", key, quoteIfNeeded(a.Value.Resolve().String()))
}

func quoteIfNeeded(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\n\"=") {
		return fmt.Sprintf("%q", s)
	}
	return s
}

func (h *humanHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append([]slog.Attr{}, h.attrs...)
	for _, a := range as {
		if h.group != "" {
			a.Key = h.group + "." + a.Key
		}
		c.attrs = append(c.attrs, a)
	}
	return &c
}

func (h *humanHandler) WithGroup(name string) slog.Handler {
	c := *h
	if c.group != "" {
		name = c.group + "." + name
	}
	c.group = name
	return &c
}
