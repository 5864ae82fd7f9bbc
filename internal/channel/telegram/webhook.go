package telegram

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	tgbot "github.com/go-telegram/bot"
)

// Webhook receives updates by HTTPS POST from Telegram instead of long
// polling: for a gateway reachable from the internet (usually through a
// reverse proxy or tunnel terminating TLS in front of Listen).
type Webhook struct {
	// URL is the public https address Telegram posts to (setWebhook).
	URL string
	// Listen is the local address served, e.g. 127.0.0.1:8443.
	Listen string
	// secret is sent to Telegram with setWebhook and checked on every
	// POST (X-Telegram-Bot-Api-Secret-Token); a new one each start.
	secret string
}

func newSecret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// runWebhook registers the webhook, serves it until ctx ends and stops the
// server. Telegram keeps updates queued while the gateway is down.
func (b *Bot) runWebhook(ctx context.Context) error {
	w := b.o.Webhook
	u, err := url.Parse(w.URL)
	if err != nil || u.Host == "" {
		return fmt.Errorf("telegram: webhook url %q: expected an https URL", w.URL)
	}
	ln, err := net.Listen("tcp", w.Listen)
	if err != nil {
		return fmt.Errorf("telegram: webhook: %w", err)
	}
	setCtx, cancel := context.WithTimeout(ctx, time.Minute)
	_, err = b.api.SetWebhook(setCtx, &tgbot.SetWebhookParams{URL: w.URL, SecretToken: w.secret,
		AllowedUpdates: []string{"message", "callback_query"}})
	cancel()
	if err != nil {
		ln.Close()
		return fmt.Errorf("telegram: setWebhook: %s", redactToken(err.Error()))
	}
	path := u.Path
	if path == "" {
		path = "/"
	}
	mux := http.NewServeMux()
	mux.Handle(path, b.api.WebhookHandler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	b.log.Info("telegram: webhook serving", "listen", ln.Addr().String(), "path", path)
	b.api.StartWebhook(ctx) // until ctx ends
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutCtx)
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("telegram: webhook: %w", err)
	}
	return nil
}
