// Package sim runs virtual Android phones for tests, demos and CI: each one
// is an internal/sim/android phone served by an internal/sim/adbd server on
// a loopback port and, when asked, attached to the real adb server with
// `adb connect`, so clients reach it exactly as they would reach a phone
// over Wi-Fi (`adb -s 127.0.0.1:PORT ...`, goadb, the runtime).
package sim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openpocket/openpocket/internal/sim/adbd"
	"github.com/openpocket/openpocket/internal/sim/android"
)

// DefaultADBServer is where the adb server listens unless told otherwise.
const DefaultADBServer = "127.0.0.1:5037"

// attachTimeout bounds how long Start waits for the adb server to report
// the phone as "device" when the caller's context has no earlier deadline.
const attachTimeout = 15 * time.Second

// Options configure a virtual phone. Zero values take the defaults of
// android.Options.
type Options struct {
	Port                   int // loopback port to listen on; 0 picks a free one
	Width, Height, Density int
	Model                  string
	// Characteristics is ro.build.characteristics ("" = "phone"); see TV.
	Characteristics string
	ADBServer       string // default DefaultADBServer
	Attach          bool   // `adb connect` the phone and wait until it is online
	// Logger receives protocol errors from the adbd server; nil means
	// slog.Default().
	Logger *slog.Logger
}

// Sim is one running virtual phone.
type Sim struct {
	phone     *android.Phone
	server    *adbd.Server
	addr      string
	adbServer string
	attached  bool

	stopServe context.CancelFunc
	served    chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// Start listens on 127.0.0.1:opts.Port and serves a new phone there. With
// opts.Attach it makes sure an adb server runs, connects it to the phone and
// waits until `adb devices` lists the phone as "device". ctx bounds only the
// start; the phone runs until Close.
func Start(ctx context.Context, opts Options) (*Sim, error) {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(opts.Port)))
	if err != nil {
		return nil, fmt.Errorf("virtual phone: %w", err)
	}
	addr := l.Addr().String()
	phone := android.New(android.Options{
		Width: opts.Width, Height: opts.Height, Density: opts.Density,
		Serial: addr, Model: opts.Model, Characteristics: opts.Characteristics,
	})
	server := adbd.NewServer(phone)
	server.Logger = opts.Logger
	serveCtx, stopServe := context.WithCancel(context.Background())
	s := &Sim{
		phone:     phone,
		server:    server,
		addr:      addr,
		adbServer: opts.ADBServer,
		stopServe: stopServe,
		served:    make(chan struct{}),
	}
	if s.adbServer == "" {
		s.adbServer = DefaultADBServer
	}
	go func() {
		defer close(s.served)
		_ = server.Serve(serveCtx, l)
	}()
	if opts.Attach {
		if err := s.attach(ctx); err != nil {
			_ = s.Close()
			return nil, err
		}
	}
	return s, nil
}

// attach runs host:connect and polls host:devices until the phone is online.
func (s *Sim) attach(ctx context.Context) error {
	if err := EnsureADBServer(ctx, s.adbServer); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, attachTimeout)
	defer cancel()
	// Until the phone is online: its handshake must not overlap another
	// attach's registration (attachlock.go).
	unlock, _ := lockAttach(ctx)
	defer unlock()
	if err := s.connect(ctx); err != nil {
		return err
	}
	s.attached = true
	state, err := s.waitState(ctx, func(state string) bool { return state == "device" })
	if err != nil {
		if state == "" {
			state = "not listed"
		}
		return fmt.Errorf("attach virtual phone %s: adb server %s did not report it online (state: %s): %w",
			s.addr, s.adbServer, state, err)
	}
	return nil
}

// maxStaleDisconnects bounds how often connect removes a stale transport
// before it settles for the one the adb server keeps.
const maxStaleDisconnects = 3

// connect runs host:connect until the adb server connects to this phone
// afresh. The listener is new, so a transport the server already holds
// under this serial belongs to an earlier phone on the same port that went
// away without host:disconnect (a killed test process, a failed detach).
// The server keeps such a transport in its reconnect loop: accepted as is,
// it would come online only at that loop's next attempt, seconds later, or
// vanish when the loop gives up, right after attach saw it listed. So it is
// disconnected and the phone connected again.
func (s *Sim) connect(ctx context.Context) error {
	for stale := 0; ; stale++ {
		reply, err := hostRequest(ctx, s.adbServer, "host:connect:"+s.addr)
		if err != nil {
			return fmt.Errorf("attach virtual phone %s: %w", s.addr, err)
		}
		// adb answers OKAY even when the connection failed; the text tells.
		if !strings.Contains(reply, "connected to") {
			return fmt.Errorf("attach virtual phone %s: adb connect: %s", s.addr, reply)
		}
		if !strings.HasPrefix(reply, "already connected") || stale == maxStaleDisconnects {
			return nil
		}
		if _, err := hostRequest(ctx, s.adbServer, "host:disconnect:"+s.addr); err != nil {
			return fmt.Errorf("attach virtual phone %s: removing a stale transport: %w", s.addr, err)
		}
		if _, err := s.waitState(ctx, func(state string) bool { return state == "" }); err != nil {
			return fmt.Errorf("attach virtual phone %s: adb server %s kept a stale transport after disconnect: %w",
				s.addr, s.adbServer, err)
		}
	}
}

// waitState polls host:devices until done accepts the phone's state ("" when
// it is not listed) and returns the last state seen, with ctx's error if it
// ended first.
func (s *Sim) waitState(ctx context.Context, done func(state string) bool) (string, error) {
	poll := time.NewTicker(10 * time.Millisecond)
	defer poll.Stop()
	last := ""
	for {
		state, err := deviceState(ctx, s.adbServer, s.addr)
		if err == nil {
			if done(state) {
				return state, nil
			}
			last = state
		}
		select {
		case <-poll.C:
		case <-ctx.Done():
			return last, ctx.Err()
		}
	}
}

// Serial is the adb serial of the phone, "127.0.0.1:PORT".
func (s *Sim) Serial() string { return s.addr }

// Addr is the address the adbd server listens on (the serial, too).
func (s *Sim) Addr() string { return s.addr }

// Phone is the simulated device, for assertions on its state and for
// perturbations.
func (s *Sim) Phone() *android.Phone { return s.phone }

// DropConnections resets every adb connection to the phone, as if it fell
// off the network; the adb server sees the device go offline.
func (s *Sim) DropConnections() { s.server.DropConnections() }

// Close detaches the phone from the adb server (host:disconnect) and stops
// serving. It is safe to call more than once.
func (s *Sim) Close() error {
	s.closeOnce.Do(func() {
		var errs []error
		if s.attached {
			lockCtx, cancelLock := context.WithTimeout(context.Background(), 5*time.Second)
			unlock, _ := lockAttach(lockCtx)
			cancelLock()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			if _, err := hostRequest(ctx, s.adbServer, "host:disconnect:"+s.addr); err != nil {
				errs = append(errs, fmt.Errorf("detach virtual phone %s: %w", s.addr, err))
			}
			unlock()
			cancel()
		}
		errs = append(errs, s.server.Close())
		s.stopServe()
		<-s.served
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}
