package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Retry is how Bot API calls that fail with 429 or 5xx (or never reach the
// server) are tried again: exponential backoff from Base doubling to Max,
// or the server's retry_after when it says so, for up to Attempts tries.
// A message is thereby delayed, never dropped, unless the server keeps
// failing for the whole budget or the gateway stops.
type Retry struct {
	Attempts int
	Base     time.Duration
	Max      time.Duration
}

// DefaultRetry gives a flaky Bot API about two and a half minutes.
var DefaultRetry = Retry{Attempts: 10, Base: 500 * time.Millisecond, Max: 30 * time.Second}

// retryingClient is the Bot API library's HTTP client: it buffers each
// request body (multipart forms are built on the fly) so a failed call can
// be sent again.
type retryingClient struct {
	inner  *http.Client
	retry  Retry
	logger *slog.Logger
}

func (c *retryingClient) Do(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	method := req.URL.Path[strings.LastIndexByte(req.URL.Path, '/')+1:]
	attempts := max(c.retry.Attempts, 1)
	for try := 1; ; try++ {
		r := req.Clone(req.Context())
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		resp, err := c.inner.Do(r)
		wait, retryable := c.backoff(try, resp, err)
		if !retryable || try >= attempts || method == "getUpdates" {
			// getUpdates has its own loop in the library: retrying here
			// would only stretch its long poll.
			return resp, err
		}
		if resp != nil {
			_ = resp.Body.Close()
		}
		c.logger.Warn("telegram: call failed, retrying", "method", method, "attempt", try, "wait", wait, "problem", problem(resp, err))
		if err := sleepCtx(req.Context(), wait); err != nil {
			return nil, err
		}
	}
}

// backoff says whether a call's outcome is worth retrying and after how
// long. The body of a 429 is read for retry_after and put back.
func (c *retryingClient) backoff(try int, resp *http.Response, err error) (time.Duration, bool) {
	wait := c.retry.Base << (try - 1)
	if wait > c.retry.Max || wait <= 0 {
		wait = c.retry.Max
	}
	wait = wait/2 + rand.N(wait/2+1) // jitter: many bots after one outage do not retry in step
	switch {
	case err != nil:
		return wait, true
	case resp.StatusCode == http.StatusTooManyRequests:
		data, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(data))
		var env struct {
			Parameters struct {
				RetryAfter int `json:"retry_after"`
			} `json:"parameters"`
		}
		if json.Unmarshal(data, &env) == nil && env.Parameters.RetryAfter > 0 {
			wait = min(time.Duration(env.Parameters.RetryAfter)*time.Second, max(c.retry.Max, time.Second))
		}
		return wait, true
	case resp.StatusCode >= 500:
		return wait, true
	}
	return 0, false
}

func problem(resp *http.Response, err error) string {
	if err != nil {
		return redactToken(err.Error())
	}
	return fmt.Sprintf("HTTP %d", resp.StatusCode)
}

// knownTokens holds the token of every bot built in this process, so
// redactToken hides it wherever it appears, not only in a URL's /bot path.
var knownTokens sync.Map // token → struct{}

// botPath is a "/bot…" path segment: the Bot API puts the token in one.
// Every such segment is hidden — a base URL's own /bot… segment too, so a
// self-hosted server under /botapi cannot shift which one is hidden.
var botPath = regexp.MustCompile(`/bot[^/\s"']*`)

// redactToken hides bot tokens inside an error or log text.
func redactToken(s string) string {
	knownTokens.Range(func(k, _ any) bool {
		if t := k.(string); t != "" {
			s = strings.ReplaceAll(s, t, "***")
		}
		return true
	})
	return botPath.ReplaceAllString(s, "/bot***")
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
