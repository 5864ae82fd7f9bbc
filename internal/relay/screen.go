package relay

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Phone is the relay's way to the phone a pending request names (by
// serial): its current screen for the page, and the taps of a person who
// takes over. The CLI implements it over the adb server.
type Phone interface {
	// Screen returns the current screen as PNG.
	Screen(ctx context.Context, serial string) ([]byte, error)
	// Tap taps at x, y in screen pixels.
	Tap(ctx context.Context, serial string, x, y int) error
}

// phoneTimeout bounds one screenshot or tap.
const phoneTimeout = 15 * time.Second

// maxTapBody caps a tap POST (two numbers).
const maxTapBody = 1 << 10

// screen serves the requesting phone's current screen, only to the
// holder of a valid token of a pending request; a used or expired link
// gets no picture.
func (s *Server) screen(w http.ResponseWriter, r *http.Request) {
	p, code, title, msg := s.lookup(r, r.URL.Query().Get("t"))
	if code == 0 && (s.phone == nil || p.Device == "") {
		code, title, msg = http.StatusNotFound, "No screen", "This request has no phone screen to show."
	}
	if code != 0 {
		s.fail(w, r, code, title, msg)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), phoneTimeout)
	defer cancel()
	png, err := s.phone.Screen(ctx, p.Device)
	if err != nil {
		s.fail(w, r, http.StatusBadGateway, "No screen", "The phone's screen could not be read.")
		return
	}
	secure(w)
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Length", strconv.Itoa(len(png)))
	w.Write(png)
}

// tap passes a person's tap on the screen image to the phone (takeover):
// only while the request is pending, with the token in the URL, and when
// the request allows takeover (humanAuth.takeover). The body is read only
// after those checks.
func (s *Server) tap(w http.ResponseWriter, r *http.Request) {
	p, code, title, msg := s.lookup(r, r.URL.Query().Get("t"))
	if code == 0 && (s.phone == nil || p.Device == "" || !p.Takeover) {
		code, title, msg = http.StatusForbidden, "No takeover", "Taking over the phone is not allowed for this request."
	}
	if code != 0 {
		s.fail(w, r, code, title, msg)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxTapBody)
	x, errX := strconv.Atoi(strings.TrimSpace(r.PostFormValue("x")))
	y, errY := strconv.Atoi(strings.TrimSpace(r.PostFormValue("y")))
	if errX != nil || errY != nil || x < 0 || y < 0 || x > 100000 || y > 100000 {
		s.fail(w, r, http.StatusBadRequest, "Not sent", "A tap needs x and y in screen pixels.")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), phoneTimeout)
	defer cancel()
	if err := s.phone.Tap(ctx, p.Device, x, y); err != nil {
		s.fail(w, r, http.StatusBadGateway, "Not sent", "The tap did not reach the phone.")
		return
	}
	secure(w)
	w.WriteHeader(http.StatusNoContent)
}
