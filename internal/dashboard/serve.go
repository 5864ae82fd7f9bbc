package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"
)

// Serve listens on addr and serves the dashboard until ctx ends. Beyond
// loopback it refuses to run without o.Token. ready gets the URL to open
// (with the token) once the listener is up.
func Serve(ctx context.Context, addr string, mgr Manager, o Options, ready func(url string)) error {
	if !IsLoopback(addr) && o.Token == "" {
		return fmt.Errorf("dashboard on %s: beyond loopback it needs a token", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	srv := &http.Server{Handler: New(mgr, o), ReadHeaderTimeout: 10 * time.Second}
	if ready != nil {
		ready(URL(l.Addr().String(), o.Token))
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := srv.Shutdown(shut)
		if e := <-done; !errors.Is(e, http.ErrServerClosed) && err == nil {
			err = e
		}
		return err
	}
}

// URL is the address a person opens: the token, when there is one, rides
// in the query once (the server then sets a cookie).
func URL(addr, token string) string {
	u := url.URL{Scheme: "http", Host: addr, Path: "/"}
	if token != "" {
		u.RawQuery = url.Values{"token": {token}}.Encode()
	}
	return u.String()
}
