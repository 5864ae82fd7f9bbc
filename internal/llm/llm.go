// Package llm implements engine.Model over openai-go v3 for any
// OpenAI-compatible endpoint.
//
// One Decide call sends the system prompt, the step text and the screenshot
// with the action tools (tool_choice "required", no parallel calls) and turns
// the reply into one normalized action. Chat Completions is tried first; when
// the endpoint is not offered (404/405, or a 400 saying it is not supported)
// the Responses API is tried, and the mode that worked is remembered per
// profile in a ModeStore so the next call starts with it (docs/agents.md,
// "Model Endpoint Compatibility": task loop chat -> responses).
//
// Replies are parsed leniently: malformed tool arguments are repaired and
// the repair reported in ModelReply.Problems; a reply without a tool call is
// searched for a JSON action or call syntax such as tap(x=1, y=2) before
// Decide gives up with ErrNoAction.
//
// Transient failures (connection errors, 408, 409, 429, 5xx) are retried by
// openai-go with exponential backoff (0.5 s, 1 s, … with jitter) that honours
// Retry-After and Retry-After-Ms.
package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
)

// Endpoint modes, as reported in engine.ModelReply.Mode and stored in a
// ModeStore.
const (
	ModeChat      = "chat"
	ModeResponses = "responses"
)

// DefaultBaseURL is used when a profile names no base URL.
const DefaultBaseURL = "https://api.openai.com/v1"

// ErrNoAction is returned (wrapped) when a reply has neither a tool call nor
// an action that can be parsed from its text.
var ErrNoAction = engine.ErrNoAction

// APIError is the error openai-go returns for an HTTP error status; use
// errors.As to read StatusCode and Message from a Decide error.
type APIError = openai.Error

// Profile is one configured model (config.json "models" entry).
type Profile struct {
	// Name is the profile name ("default").
	Name string
	// BaseURL of an OpenAI-compatible API; DefaultBaseURL when empty.
	BaseURL string
	// Model is the model name sent with each request (required).
	Model string
	// APIKey, else the environment variable APIKeyEnv names (never
	// another one: a key meant for one provider must not reach a profile
	// pointing elsewhere), else, only when APIKeyEnv is empty,
	// OPENAI_API_KEY.
	APIKey    string
	APIKeyEnv string
	// MaxTokens caps the reply (0 = provider default).
	MaxTokens int
	// ReasoningEffort ("low", "medium", "high", …; "" = not sent).
	ReasoningEffort string
	// Temperature (nil = not sent).
	Temperature *float64
}

// ModeStore remembers which endpoint mode worked per profile. The workspace
// package persists it; MemoryModes is an in-memory implementation.
type ModeStore interface {
	// Get returns the remembered mode or "" when there is none.
	Get(profile string) string
	Set(profile, mode string) error
}

// MemoryModes is an in-memory ModeStore, safe for concurrent use.
type MemoryModes struct {
	mu sync.Mutex
	m  map[string]string
}

var _ ModeStore = (*MemoryModes)(nil)

// Get implements ModeStore.
func (s *MemoryModes) Get(profile string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[profile]
}

// Set implements ModeStore.
func (s *MemoryModes) Set(profile, mode string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]string{}
	}
	s.m[profile] = mode
	return nil
}

// Options tune a Client. The zero value is usable.
type Options struct {
	// Timeout bounds each HTTP attempt (default 120 s). A timed-out attempt
	// is not retried.
	Timeout time.Duration
	// MaxRetries is the number of retries of transient failures (default 2;
	// negative = none).
	MaxRetries int
	// HTTPClient replaces the default HTTP client.
	HTTPClient *http.Client
	// Modes remembers the working endpoint per profile (default: in memory).
	Modes ModeStore
	// Defaults are the normalization defaults handed to engine/action.
	Defaults action.Defaults
	// Logger receives debug lines per attempt and fallbacks (default: discard).
	Logger *slog.Logger
	// MaxResponseBytes bounds one HTTP response body (default
	// DefaultMaxResponseBytes); a larger reply fails the step.
	MaxResponseBytes int64
	// MaxMessageBytes bounds a reply's text and tool-call arguments
	// (default DefaultMaxMessageBytes).
	MaxMessageBytes int
}

// Client is an engine.Model backed by an OpenAI-compatible API.
type Client struct {
	profile  Profile
	opts     Options
	api      openai.Client
	log      *slog.Logger
	useMaxCT bool // send max_completion_tokens instead of max_tokens
	keyless  bool // a local server without a key: no Authorization header
}

var _ engine.Model = (*Client)(nil)

// New builds a client for one profile. It fails when the profile names no
// model, the base URL is invalid, or no API key is found for a non-local
// base URL. A server on loopback or a private network may run without
// auth: then no Authorization header is sent at all (not a placeholder,
// and never $OPENAI_API_KEY, which belongs to another provider), and the
// logger gets one info line per profile and process saying so.
func New(p Profile, o Options) (*Client, error) {
	if p.Name == "" {
		p.Name = "default"
	}
	if strings.TrimSpace(p.Model) == "" {
		return nil, fmt.Errorf("model profile %q: no model name configured", p.Name)
	}
	if p.BaseURL == "" {
		p.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(p.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("model profile %q: base URL %q is not an http(s) URL", p.Name, p.BaseURL)
	}
	key := resolveKey(p)
	keyless := key == ""
	if keyless {
		if !isLocalHost(u.Hostname()) {
			env := "OPENAI_API_KEY"
			if p.APIKeyEnv != "" {
				env = p.APIKeyEnv + " (named by apiKeyEnv; OPENAI_API_KEY is not used in its place)"
			}
			return nil, fmt.Errorf("model profile %q: no API key for %s: set apiKey in the profile or the environment variable %s",
				p.Name, p.BaseURL, env)
		}
	}
	if o.Timeout <= 0 {
		o.Timeout = 120 * time.Second
	}
	switch {
	case o.MaxRetries == 0:
		o.MaxRetries = 2
	case o.MaxRetries < 0:
		o.MaxRetries = 0
	}
	if o.Modes == nil {
		o.Modes = &MemoryModes{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	log := o.Logger.With("profile", p.Name, "model", p.Model)

	reqOpts := []option.RequestOption{
		option.WithBaseURL(strings.TrimRight(p.BaseURL, "/") + "/"),
		// An empty key overrides the client's own $OPENAI_API_KEY and
		// $OPENAI_ADMIN_KEY defaults, so a keyless profile sends no
		// Authorization header.
		option.WithAPIKey(key),
		option.WithAdminAPIKey(""),
		option.WithMaxRetries(o.MaxRetries),
		option.WithRequestTimeout(o.Timeout),
		option.WithMiddleware(attemptLogger(log), limitResponses(o.MaxResponseBytes)),
	}
	if o.HTTPClient != nil {
		reqOpts = append(reqOpts, option.WithHTTPClient(o.HTTPClient))
	}
	if keyless {
		noteKeyless(o.Logger, p)
	}
	c := &Client{
		keyless: keyless,
		profile: p,
		opts:    o,
		api:     openai.NewClient(reqOpts...),
		log:     log,
		// OpenAI's own API rejects max_tokens for reasoning models; most
		// compatible servers only know max_tokens.
		useMaxCT: strings.HasSuffix(u.Hostname(), "openai.com") || strings.HasSuffix(u.Hostname(), "openai.azure.com"),
	}
	return c, nil
}

// Keyless reports whether the client sends no Authorization header (a
// local server and no key configured).
func (c *Client) Keyless() bool { return c.keyless }

// keylessNoted holds the profile+URL pairs already announced, so a
// gateway building a client per run says it once per process.
var keylessNoted sync.Map

func noteKeyless(log *slog.Logger, p Profile) {
	if _, seen := keylessNoted.LoadOrStore(p.Name+"\x00"+p.BaseURL, true); seen {
		return
	}
	log.Info(fmt.Sprintf("model profile %q: no API key, and %s is a local server: sending no Authorization header", p.Name, p.BaseURL))
}

// IsLocalURL reports whether baseURL's host is this machine or a private
// network address, where a model server may run without a key.
func IsLocalURL(baseURL string) bool {
	u, err := url.Parse(baseURL)
	return err == nil && u.Host != "" && isLocalHost(u.Hostname())
}

// Profile implements engine.Model.
func (c *Client) Profile() (profile, model string) { return c.profile.Name, c.profile.Model }

// Mode returns the endpoint mode the next Decide starts with.
func (c *Client) Mode() string {
	if m := c.opts.Modes.Get(c.profile.Name); m == ModeChat || m == ModeResponses {
		return m
	}
	return ModeChat
}

// Decide implements engine.Model: one request, one action. On failure the
// returned reply still carries what is known (Mode, Raw, Usage, Latency).
// A cancelled ctx returns ctx.Err().
func (c *Client) Decide(ctx context.Context, req engine.ModelRequest) (engine.ModelReply, error) {
	start := time.Now()
	first := c.Mode()
	order := []string{first, other(first)}

	var errs []error
	for i, mode := range order {
		var (
			res reply
			err error
		)
		if mode == ModeChat {
			res, err = c.callChat(ctx, req)
		} else {
			res, err = c.callResponses(ctx, req)
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return engine.ModelReply{Mode: mode, Latency: time.Since(start)}, ctxErr
		}
		if err != nil {
			err = c.describe(mode, err)
			errs = append(errs, err)
			if i+1 < len(order) && endpointUnsupported(err) {
				c.log.Info("model endpoint not supported, falling back", "mode", mode, "next", order[i+1], "err", err)
				continue
			}
			return engine.ModelReply{Mode: mode, Latency: time.Since(start)}, errors.Join(errs...)
		}
		if mode != c.opts.Modes.Get(c.profile.Name) {
			if serr := c.opts.Modes.Set(c.profile.Name, mode); serr != nil {
				c.log.Warn("cannot remember model endpoint mode", "mode", mode, "err", serr)
			}
		}
		if err := checkMessageSize(res, c.opts.MaxMessageBytes); err != nil {
			return engine.ModelReply{Mode: mode, Latency: time.Since(start), Usage: res.usage}, c.describe(mode, err)
		}
		out, perr := c.interpret(res, req)
		out.Mode = mode
		out.Latency = time.Since(start)
		return out, perr
	}
	return engine.ModelReply{Latency: time.Since(start)}, errors.Join(errs...)
}

func other(mode string) string {
	if mode == ModeChat {
		return ModeResponses
	}
	return ModeChat
}

// reply is the endpoint-independent content of one model answer.
type reply struct {
	calls     []toolCall
	text      string
	reasoning string
	usage     engine.Usage
}

type toolCall struct {
	name, arguments string
}

// describe wraps an API error with the endpoint and the provider's message
// (openai-go's Error() carries only the status).
func (c *Client) describe(mode string, err error) error {
	endpoint := "chat completions"
	switch mode {
	case ModeResponses:
		endpoint = "responses"
	case ModeCompletions:
		endpoint = "completions"
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		msg := strings.TrimSpace(apiErr.Message)
		if msg == "" {
			msg = snippet(apiErr.RawJSON(), 200)
		}
		if msg != "" {
			return fmt.Errorf("model %q (%s): %s: %w: %s", c.profile.Name, c.profile.Model, endpoint, err, msg)
		}
	} else if errors.Is(err, syscall.ECONNREFUSED) {
		// The POST URL in err is the endpoint's; name the profile's base
		// URL, which is what the user configured and can check.
		return fmt.Errorf("model %q (%s): %s: nothing answers at %s (connection refused): %w", c.profile.Name, c.profile.Model, endpoint, c.profile.BaseURL, err)
	} else if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("model %q (%s): %s: no reply within %s: %w", c.profile.Name, c.profile.Model, endpoint, c.opts.Timeout, err)
	}
	return fmt.Errorf("model %q (%s): %s: %w", c.profile.Name, c.profile.Model, endpoint, err)
}

// endpointUnsupported reports whether err means the endpoint itself is not
// offered, so the other endpoint should be tried.
func endpointUnsupported(err error) bool {
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		return false
	}
	switch apiErr.StatusCode {
	case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotImplemented:
		return true
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		msg := strings.ToLower(apiErr.Message + " " + apiErr.RawJSON())
		for _, s := range []string{"not supported", "unsupported", "not implemented", "unknown endpoint",
			"invalid url", "not found", "unrecognized request", "does not support", "no route"} {
			if strings.Contains(msg, s) {
				return true
			}
		}
	}
	return false
}

// attemptLogger logs every HTTP attempt (so retries are visible) at debug level.
func attemptLogger(log *slog.Logger) option.Middleware {
	return func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		t := time.Now()
		res, err := next(r)
		attrs := []any{"path", r.URL.Path, "retry", r.Header.Get("X-Stainless-Retry-Count"), "ms", time.Since(t).Milliseconds()}
		if res != nil {
			attrs = append(attrs, "status", res.StatusCode)
		}
		if err != nil {
			attrs = append(attrs, "err", err)
		}
		log.Debug("model http attempt", attrs...)
		return res, err
	}
}

func resolveKey(p Profile) string {
	if k := strings.TrimSpace(p.APIKey); k != "" {
		return k
	}
	if p.APIKeyEnv != "" {
		return strings.TrimSpace(os.Getenv(p.APIKeyEnv))
	}
	return strings.TrimSpace(os.Getenv("OPENAI_API_KEY"))
}

// isLocalHost reports whether host is this machine or a private network
// address, where model servers commonly run without authentication.
func isLocalHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || strings.HasSuffix(h, ".local") ||
		h == "host.docker.internal" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified())
}

func snippet(s string, n int) string {
	s = strings.TrimSpace(s)
	r := []rune(s)
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
