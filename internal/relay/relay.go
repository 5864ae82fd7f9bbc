// Package relay is the human-auth web relay: an HTTP server whose pages
// let a person approve or reject a pending request_human_auth request from
// any browser (their phone, through a tunnel), optionally sending an
// artifact. Pages are html/template, work as plain form POSTs without
// JavaScript, and run a template's own HTML and scripts only in a
// sandboxed iframe under a strict Content-Security-Policy.
//
// Requests live in a humanauth.Store, so the relay serves whatever run of
// the agent asked, in this process or another.
package relay

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/openpocket/openpocket/internal/humanauth"
)

// maxBodyBytes caps a decision POST (a phone photo fits).
const maxBodyBytes = 12 << 20

// Options configure a relay.
type Options struct {
	// Addr is host:port to listen on (127.0.0.1:8787 by default; port 0
	// picks a free one).
	Addr string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Phone, when set, shows the requesting phone's screen on the page
	// and passes takeover taps to it (nil: no screen).
	Phone Phone
}

// Server serves one store's requests.
type Server struct {
	store *humanauth.Store
	now   func() time.Time
	phone Phone
	// uploads holds a slot per body being read (maxUploads).
	uploads chan struct{}
}

// New returns a relay over store.
func New(store *humanauth.Store, o Options) *Server {
	s := &Server{store: store, now: o.Now, phone: o.Phone, uploads: make(chan struct{}, maxUploads)}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// Start listens on o.Addr and serves until ctx ends or stop is called.
// base is http://<listen address> (what links use without a public URL).
func Start(ctx context.Context, store *humanauth.Store, o Options) (base string, stop func(), err error) {
	addr := o.Addr
	if addr == "" {
		addr = "127.0.0.1:8787"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("human-auth relay: listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: New(store, o).Handler(), ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: 2 * time.Minute, WriteTimeout: 2 * time.Minute, MaxHeaderBytes: 16 << 10}
	go srv.Serve(ln)
	stopped := make(chan struct{})
	stopOnce := func() {
		select {
		case <-stopped:
			return
		default:
			close(stopped)
		}
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}
	go func() {
		select {
		case <-ctx.Done():
			stopOnce()
		case <-stopped:
		}
	}()
	return "http://" + ln.Addr().String(), stopOnce, nil
}

// Handler routes /a/<agentId>/auth/<requestId> (GET the page, POST the
// decision); everything else is 404, with no listing.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /a/{agent}/auth/{id}", s.page)
	mux.HandleFunc("POST /a/{agent}/auth/{id}", s.decide)
	mux.HandleFunc("GET /a/{agent}/auth/{id}/screen", s.screen)
	mux.HandleFunc("POST /a/{agent}/auth/{id}/tap", s.tap)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, http.StatusNotFound, "Not found", "There is nothing here.")
	})
	return mux
}

// secure sets the headers every response carries and returns the page's
// script/style nonce. The policy also binds the sandboxed iframe (a srcdoc
// document inherits it): no network (connect-src 'none'), no forms but
// ours, no framing of the page itself.
func secure(w http.ResponseWriter) string {
	b := make([]byte, 18)
	rand.Read(b)
	nonce := base64.RawStdEncoding.EncodeToString(b)
	h := w.Header()
	h.Set("Content-Security-Policy", strings.Join([]string{
		"default-src 'none'",
		"script-src 'nonce-" + nonce + "'",
		"style-src 'nonce-" + nonce + "'",
		"img-src 'self' data: blob:",
		"media-src data: blob:",
		"connect-src 'none'",
		"frame-src 'self'",
		"form-action 'self'",
		"frame-ancestors 'none'",
	}, "; "))
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Permissions-Policy", "geolocation=(self), camera=(self), microphone=(self)")
	return nonce
}

// notValid is the one answer to unknown requests and wrong tokens alike:
// nothing tells a guesser which ids exist.
const notValid = "This link is not valid."

// lookup finds the request a URL names if its token is right. Unknown
// requests and wrong tokens look the same (404); a used or expired link
// gets its own page (410) — only for the token's holder.
func (s *Server) lookup(r *http.Request, token string) (humanauth.Pending, int, string, string) {
	id := r.PathValue("id")
	p, err := s.store.Get(id)
	switch {
	case errors.Is(err, humanauth.ErrDecided):
		if p.AgentID == r.PathValue("agent") && p.TokenOK(token) {
			return p, http.StatusGone, "Already answered", "This request was already answered; nothing more to do here."
		}
		return p, http.StatusNotFound, "Link refused", notValid
	case err != nil:
		if c, ok := s.store.ClosedRequest(id); ok && c.AgentID == r.PathValue("agent") && c.TokenOK(token) {
			if c.Status == "approved" || c.Status == "rejected" {
				return p, http.StatusGone, "Already answered", "This request was already answered (" + c.Status + "); nothing more to do here."
			}
			return p, http.StatusGone, "Link expired", "This request has expired: the agent no longer waits for an answer."
		}
		return p, http.StatusNotFound, "Link refused", notValid
	case p.AgentID != r.PathValue("agent") || !p.TokenOK(token):
		return p, http.StatusNotFound, "Link refused", notValid
	case p.Expired(s.now()):
		return p, http.StatusGone, "Link expired", "This request has expired: the agent no longer waits for an answer."
	}
	return p, 0, "", ""
}

func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	p, code, title, msg := s.lookup(r, r.URL.Query().Get("t"))
	if code != 0 {
		s.fail(w, r, code, title, msg)
		return
	}
	s.render(w, r, http.StatusOK, p, r.URL.Query().Get("t"), "")
}

func (s *Server) render(w http.ResponseWriter, r *http.Request, code int, p humanauth.Pending, token, problem string) {
	nonce := secure(w)
	v := newView(p, token, nonce)
	v.Problem = problem
	if s.phone != nil && p.Device != "" {
		v.Screen = v.Action + "/screen?t=" + token
		if p.Takeover {
			v.Tap = v.Action + "/tap?t=" + token
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	pages.ExecuteTemplate(w, "page", v)
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, code int, title, msg string) {
	nonce := secure(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	pages.ExecuteTemplate(w, "message", messageView{Title: title, Message: msg, Nonce: nonce, Brand: defaultBrand})
}
