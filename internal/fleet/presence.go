package fleet

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// HostInfo is one host's presence: published every beat under
// "host:NAME" with a TTL of missedBeats beats, and its last beat in the
// "hosts" sorted set (kept after it dies, so status can say since when).
type HostInfo struct {
	Host  string    `json:"host"`
	PID   int       `json:"pid"`
	At    time.Time `json:"at"`
	Beat  int64     `json:"beatMs"`
	Phone []Phone   `json:"phones"`
	// Agent is the agent the host's gateway serves; Agents its install's
	// agents with their bound phones (agents.go).
	Agent  string       `json:"agent,omitempty"`
	Agents []AgentPhone `json:"agents,omitempty"`
	// Alive is false for a host whose presence expired (status only).
	Alive bool `json:"alive"`
}

// State is "alive", or "gone" for a host whose presence expired.
func (h HostInfo) State() string {
	if h.Alive {
		return "alive"
	}
	return "gone"
}

// Phones describes the host's phones ("no phones" when it reports none).
func (h HostInfo) Phones() string {
	if len(h.Phone) == 0 {
		return "no phones"
	}
	parts := make([]string, len(h.Phone))
	for i, p := range h.Phone {
		parts[i] = p.String()
	}
	return strings.Join(parts, ", ")
}

// missedBeats is how many beats a host may miss before it is gone.
const missedBeats = 5

// Start publishes this host's presence now and then every beat until
// Close.
func (f *Fleet) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel, f.done = cancel, make(chan struct{})
	f.beat(ctx)
	go func() {
		defer close(f.done)
		t := time.NewTicker(f.o.Every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				f.beat(ctx)
			}
		}
	}()
}

// Reachable reports whether the last beat reached Redis, and the error
// of the last one that did not.
func (f *Fleet) Reachable() (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.beatOK, f.lastEr
}

// localPhones lists this host's phones (fleet.phones applied), marked
// busy with the jobs running on them.
func (f *Fleet) localPhones(ctx context.Context) ([]Phone, error) {
	if f.o.Phones == nil {
		return nil, nil
	}
	ps, err := f.o.Phones(ctx)
	if err != nil {
		return nil, err
	}
	var busy map[string]string
	if f.o.Busy != nil {
		busy = f.o.Busy()
	}
	out := ps[:0:0]
	for _, p := range ps {
		if len(f.o.Only) > 0 && !slices.Contains(f.o.Only, p.Serial) {
			continue
		}
		p.Busy = busy[p.Serial]
		out = append(out, p)
	}
	return out, nil
}

// beat refreshes this host's phones and publishes its presence.
func (f *Fleet) beat(ctx context.Context) {
	pctx, cancel := context.WithTimeout(ctx, f.o.Every+time.Second)
	phones, perr := f.localPhones(pctx)
	agents := f.localAgents(pctx)
	cancel()
	f.mu.Lock()
	if perr == nil {
		f.phones = phones
	} else {
		phones = f.phones
	}
	if agents != nil {
		f.agents = agents
	} else {
		agents = f.agents
	}
	f.mu.Unlock()
	if perr != nil {
		f.o.Logger.Warn("fleet: phones not listed", "err", perr)
	}
	now := time.Now()
	info := HostInfo{Host: f.host, PID: f.pid, At: now.UTC(), Beat: f.o.Every.Milliseconds(), Phone: phones,
		Agent: f.o.Agent, Agents: agents}
	data, _ := json.Marshal(info)
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err := f.rdb.TxPipelined(rctx, func(p redis.Pipeliner) error {
		p.Set(rctx, f.key("host:"+f.host), data, missedBeats*f.o.Every)
		p.ZAdd(rctx, f.key("hosts"), redis.Z{Score: float64(now.UnixMilli()), Member: f.host})
		return nil
	})
	f.mu.Lock()
	defer f.mu.Unlock()
	was := f.beatOK
	f.beatOK = err == nil
	if err != nil {
		f.lastEr = f.wrap(err)
		if was || f.lastOK.IsZero() {
			f.o.Logger.Warn("fleet: Redis unreachable; fleet jobs paused", "redis", f.redact, "err", err)
		}
		return
	}
	f.lastOK = now
}

// Hosts lists every host that ever beat (most recent first), live ones
// with their presence.
func (f *Fleet) Hosts(ctx context.Context) ([]HostInfo, error) {
	zs, err := f.rdb.ZRevRangeWithScores(ctx, f.key("hosts"), 0, 999).Result()
	if err != nil {
		return nil, f.wrap(err)
	}
	if len(zs) == 0 {
		return nil, nil
	}
	keys := make([]string, len(zs))
	for i, z := range zs {
		keys[i] = f.key("host:" + z.Member.(string))
	}
	vals, err := f.rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, f.wrap(err)
	}
	out := make([]HostInfo, len(zs))
	for i, z := range zs {
		name := z.Member.(string)
		out[i] = HostInfo{Host: name, At: time.UnixMilli(int64(z.Score)).UTC()}
		if s, ok := vals[i].(string); ok && json.Unmarshal([]byte(s), &out[i]) == nil {
			out[i].Alive = true
		}
	}
	return out, nil
}

// liveHosts are the hosts whose presence has not expired.
func (f *Fleet) liveHosts(ctx context.Context) ([]HostInfo, error) {
	all, err := f.Hosts(ctx)
	if err != nil {
		return nil, err
	}
	live := all[:0]
	for _, h := range all {
		if h.Alive {
			live = append(live, h)
		}
	}
	return live, nil
}
