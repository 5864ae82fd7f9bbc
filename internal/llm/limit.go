package llm

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/openai/openai-go/v3/option"
)

// Reply size limits. A tool call is a few hundred bytes and a chatty
// reply a few kilobytes; the limits keep a broken or hostile endpoint
// from making the runtime read and hold hundreds of megabytes.
const (
	// DefaultMaxResponseBytes bounds one HTTP response body.
	DefaultMaxResponseBytes = 8 << 20
	// DefaultMaxMessageBytes bounds the text and tool-call arguments of
	// one parsed reply.
	DefaultMaxMessageBytes = 1 << 20
)

// ErrReplyTooLarge is wrapped by the step error of a reply over a limit.
var ErrReplyTooLarge = errors.New("model reply too large")

// limitResponses is a middleware that fails a response whose body is
// larger than max bytes: at once when Content-Length says so, else when
// reading crosses the limit.
func limitResponses(max int64) option.Middleware {
	return func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(r)
		if err != nil || res == nil || res.Body == nil {
			return res, err
		}
		if res.ContentLength > max {
			res.Body.Close()
			return nil, fmt.Errorf("%w: the response body is %d bytes, over the limit of %d", ErrReplyTooLarge, res.ContentLength, max)
		}
		res.Body = &limitedBody{rc: res.Body, left: max, max: max}
		return res, nil
	}
}

// limitedBody reads at most max bytes, then fails instead of truncating
// (a silently cut JSON body would surface as a confusing parse error).
type limitedBody struct {
	rc        io.ReadCloser
	left, max int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly max bytes from a longer one.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, fmt.Errorf("%w: the response body is over the limit of %d bytes", ErrReplyTooLarge, b.max)
		}
		return 0, err // io.EOF at the end of a body of exactly max bytes
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// checkMessageSize fails a parsed reply whose text and arguments together
// exceed max bytes.
func checkMessageSize(res reply, max int) error {
	n := len(res.text) + len(res.reasoning)
	for _, c := range res.calls {
		n += len(c.name) + len(c.arguments)
	}
	if n > max {
		return fmt.Errorf("%w: the reply's text and tool calls are %d bytes, over the limit of %d", ErrReplyTooLarge, n, max)
	}
	return nil
}
