package run

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
)

// Masked replaces a secret value wherever a run's log would show it.
const Masked = "•••"

// redactHandler masks known secret values (a playbook's secret
// parameters) in every record: the message, and every attribute, whatever
// its kind, including those added with WithAttrs. A script can put a
// secret into any line it logs (log.info("pw is " .. password)), so the
// masking is on the way out, not at the callers.
type redactHandler struct {
	inner slog.Handler
	r     *strings.Replacer
}

// redacting wraps h so that none of secrets (their printed forms) reaches
// it; with no secrets it returns h.
func redacting(h slog.Handler, secrets map[string]any) slog.Handler {
	var vals []string
	for _, v := range secrets {
		if s := fmt.Sprint(v); s != "" {
			vals = append(vals, s)
		}
	}
	if len(vals) == 0 {
		return h
	}
	// Longest first, so a secret containing another is masked whole.
	sort.Slice(vals, func(i, j int) bool { return len(vals[i]) > len(vals[j]) })
	pairs := make([]string, 0, 2*len(vals))
	for _, v := range vals {
		pairs = append(pairs, v, Masked)
	}
	return &redactHandler{inner: h, r: strings.NewReplacer(pairs...)}
}

func (h *redactHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.Replace(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h *redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	masked := make([]slog.Attr, len(as))
	for i, a := range as {
		masked[i] = h.attr(a)
	}
	return &redactHandler{inner: h.inner.WithAttrs(masked), r: h.r}
}

func (h *redactHandler) WithGroup(name string) slog.Handler {
	return &redactHandler{inner: h.inner.WithGroup(name), r: h.r}
}

// attr masks a's value; values of other kinds that print a secret become
// strings.
func (h *redactHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		g := v.Group()
		masked := make([]any, len(g))
		for i, ga := range g {
			masked[i] = h.attr(ga)
		}
		return slog.Group(a.Key, masked...)
	}
	if s := v.String(); h.r.Replace(s) != s {
		return slog.String(a.Key, h.r.Replace(s))
	}
	return slog.Attr{Key: a.Key, Value: v}
}
