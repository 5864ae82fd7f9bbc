package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/go-co-op/gocron/v2"
	"github.com/redis/go-redis/v9"

	"github.com/openpocket/openpocket/internal/cron"
)

// A scheduled run takes two claims:
//
//   - the tick claim, "tick:JOB@TICKMS": SET NX PX hold. It is never
//     released: it expires after hold, long after the run, so a host
//     whose clock lags (it fires the same tick later) finds it taken.
//   - the run claim, "run:JOB": SET NX with a short TTL renewed while the
//     run lasts, released at the end by compare-and-delete of its token.
//     It keeps a job that outlasts its interval from starting a second
//     run on another host (gocron's singleton mode only sees one host).
//     A host that dies mid-run stops renewing it: it expires in runTTL.

// runTTL is how long a run claim survives its host; it is renewed every
// third of it. Shorter than the shortest interval (cron.MinEvery), so a
// host killed mid-run never blocks the next tick.
const runTTL = 3 * time.Second

// releaseScript deletes a key only while it still holds our token: a
// claim that expired and was taken by another host is not ours to free.
var releaseScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`)

// renewScript extends a key's TTL only while it holds our token.
var renewScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) else return 0 end`)

var _ cron.Coordinator = (*Fleet)(nil)

func token(host string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return host + "/" + hex.EncodeToString(b)
}

// Lock implements cron.Coordinator: the tick claim, then the run claim.
// A claim another host holds is an error wrapping cron.ErrTaken.
func (f *Fleet) Lock(ctx context.Context, key string, hold time.Duration) (gocron.Lock, error) {
	tok := token(f.host)
	ok, err := f.rdb.SetNX(ctx, f.key("tick:"+key), tok, hold).Result()
	if err != nil {
		return nil, f.wrap(err)
	}
	if !ok {
		holder, _ := f.rdb.Get(ctx, f.key("tick:"+key)).Result()
		return nil, fmt.Errorf("tick %s taken by %s: %w", key, hostOf(holder), cron.ErrTaken)
	}
	job := key
	for i := len(key) - 1; i >= 0; i-- {
		if key[i] == '@' {
			job = key[:i]
			break
		}
	}
	run, err := f.claim(ctx, "run:"+job, tok)
	if err != nil {
		// The tick stays claimed (skipped, reported by this host): the
		// run before it still runs.
		return nil, err
	}
	return run, nil
}

// Claim implements cron.Coordinator: the run claim alone, for a manual
// run.
func (f *Fleet) Claim(ctx context.Context, job string) (gocron.Lock, error) {
	l, err := f.claim(ctx, "run:"+job, token(f.host))
	if err != nil {
		return nil, err
	}
	return l, nil
}

// runLock is a held run claim, renewed until Unlock.
type runLock struct {
	f      *Fleet
	key    string
	tok    string
	cancel context.CancelFunc
	done   chan struct{}
}

// claim takes a run claim and starts renewing it.
func (f *Fleet) claim(ctx context.Context, key, tok string) (*runLock, error) {
	ok, err := f.rdb.SetNX(ctx, f.key(key), tok, runTTL).Result()
	if err != nil {
		return nil, f.wrap(err)
	}
	if !ok {
		holder, _ := f.rdb.Get(ctx, f.key(key)).Result()
		return nil, fmt.Errorf("%s still running on %s: %w", key, hostOf(holder), cron.ErrOverlap)
	}
	rctx, cancel := context.WithCancel(context.Background())
	l := &runLock{f: f, key: f.key(key), tok: tok, cancel: cancel, done: make(chan struct{})}
	go l.renew(rctx)
	return l, nil
}

func (l *runLock) renew(ctx context.Context) {
	defer close(l.done)
	t := time.NewTicker(runTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			// An error (Redis away) is retried on the next beat; the
			// claim outlives a short outage by runTTL.
			_ = renewScript.Run(ctx, l.f.rdb, []string{l.key}, l.tok, runTTL.Milliseconds()).Err()
		}
	}
}

// Unlock implements gocron.Lock: it frees the run claim (never the tick's).
func (l *runLock) Unlock(ctx context.Context) error {
	l.cancel()
	<-l.done
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	return l.f.wrap(releaseScript.Run(ctx, l.f.rdb, []string{l.key}, l.tok).Err())
}

// hostOf is the host part of a claim's token.
func hostOf(tok string) string {
	for i := 0; i < len(tok); i++ {
		if tok[i] == '/' {
			return tok[:i]
		}
	}
	if tok == "" {
		return "another host"
	}
	return tok
}
