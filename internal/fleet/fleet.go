package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/openpocket/openpocket/internal/workspace"
)

// Phone is one phone a host offers the fleet.
type Phone struct {
	Serial string `json:"serial"`
	// State is the adb state ("device" when usable).
	State string `json:"state"`
	// Type is the target type (emulator, physical-phone, android-tv,
	// cloud) when known.
	Type string `json:"type,omitempty"`
	// Busy is the job running on it here ("" when idle).
	Busy string `json:"busy,omitempty"`
}

// String describes the phone for people: "SERIAL (state, type, running
// JOB)", as `fleet status` and the manager dashboard show it.
func (p Phone) String() string {
	s := p.Serial + " (" + p.State
	if p.Type != "" {
		s += ", " + p.Type
	}
	if p.Busy != "" {
		s += ", running " + p.Busy
	}
	return s + ")"
}

// Options configure a Fleet.
type Options struct {
	// URL is fleet.redisUrl; Host is fleet.hostName ("" = os.Hostname).
	URL  string
	Host string
	// Only limits the phones offered to these serials (fleet.phones).
	Only []string
	// Phones lists the phones of this host's adb server (nil: none known;
	// jobs without a phone still run here).
	Phones func(ctx context.Context) ([]Phone, error)
	// Agent is the agent this host's gateway serves ("default" when
	// empty); Agents lists its install's agents and their bound phones
	// (nil: none known), for jobs that name an agent (agents.go).
	Agent  string
	Agents func(ctx context.Context) ([]AgentPhone, error)
	// Busy maps this host's busy devices to their jobs (the scheduler's
	// running runs).
	Busy func() map[string]string
	// Every is how often presence is published (default 2 s); a host is
	// gone after 5 missed beats.
	Every time.Duration
	// Prefix namespaces the keys (default "openpocket:fleet:"), so one
	// Redis can serve several fleets.
	Prefix string
	Logger *slog.Logger
}

// Fleet is one host's membership of a fleet.
type Fleet struct {
	rdb    *redis.Client
	o      Options
	host   string
	pid    int
	redact string

	mu     sync.Mutex
	phones []Phone // this host's phones at the last beat
	agents []AgentPhone
	beatOK bool
	lastOK time.Time
	lastEr error

	cancel context.CancelFunc
	done   chan struct{}
}

// Open connects to the fleet's Redis (lazily: an unreachable Redis is not
// an error here, the scheduler pauses fleet jobs until it is reachable).
// A URL that does not parse is an error that never shows its password.
func Open(o Options) (*Fleet, error) {
	quietOnce.Do(func() { redis.SetLogger(quiet{}) })
	opt, err := redis.ParseURL(o.URL)
	if err != nil {
		return nil, fmt.Errorf("fleet.redisUrl %s: %s", workspace.RedactRedisURL(o.URL), redactErr(err, o.URL))
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = 2*time.Second, 2*time.Second, 2*time.Second
	opt.MaxRetries = 0 // a claim is tried once per tick; a retry could land after the tick
	if o.Host == "" {
		o.Host, _ = os.Hostname()
	}
	if o.Agent == "" {
		o.Agent = "default"
	}
	if o.Every <= 0 {
		o.Every = 2 * time.Second
	}
	if o.Prefix == "" {
		o.Prefix = "openpocket:fleet:"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Fleet{rdb: redis.NewClient(opt), o: o, host: o.Host, pid: os.Getpid(), redact: workspace.RedactRedisURL(o.URL)}, nil
}

// redactErr is a parse error's text without the URL's password.
func redactErr(err error, u string) string {
	msg := err.Error()
	if opt, perr := redis.ParseURL(u); perr == nil && opt.Password != "" {
		return strings.ReplaceAll(msg, opt.Password, "xxxxx")
	}
	return msg
}

// Host is this host's name in the fleet.
func (f *Fleet) Host() string { return f.host }

// URL is the Redis URL with its password redacted (for messages).
func (f *Fleet) URL() string { return f.redact }

// Ping checks that Redis answers.
func (f *Fleet) Ping(ctx context.Context) error {
	return f.wrap(f.rdb.Ping(ctx).Err())
}

// wrap names the Redis in connection errors (password redacted).
func (f *Fleet) wrap(err error) error {
	if err == nil || errors.Is(err, redis.Nil) {
		return err
	}
	return fmt.Errorf("redis %s: %w", f.redact, err)
}

// Close stops the heartbeat, withdraws this host's presence and closes
// the connection.
func (f *Fleet) Close() error {
	if f.cancel != nil {
		f.cancel()
		<-f.done
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = f.rdb.Del(ctx, f.key("host:"+f.host)).Err()
		cancel()
	}
	return f.rdb.Close()
}

func (f *Fleet) key(s string) string { return f.o.Prefix + s }

// quiet drops go-redis's own log lines (a dial failure per attempt while
// Redis is away): the fleet reports reachability once per change.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

var quietOnce sync.Once
