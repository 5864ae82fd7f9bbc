package fleet

import (
	"context"
	"encoding/json"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/openpocket/openpocket/internal/cron"
)

// History keeps the last historyLen runs of each job ("history:JOB", a
// list, newest first) and each job's last run ("last", a hash).
const historyLen = 200

// Record implements cron.Coordinator. A record that cannot be written
// (Redis away mid-run) is logged; the run's local state has it.
func (f *Fleet) Record(ctx context.Context, r cron.RunRecord) {
	r.Host = f.host
	data, _ := json.Marshal(r)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	_, err := f.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.LPush(ctx, f.key("history:"+r.JobID), data)
		p.LTrim(ctx, f.key("history:"+r.JobID), 0, historyLen-1)
		p.HSet(ctx, f.key("last"), r.JobID, data)
		return nil
	})
	if err != nil {
		f.o.Logger.Warn("fleet: run not recorded", "job", r.JobID, "err", f.wrap(err))
	}
}

// History is a job's runs across the fleet, newest first (at most n).
func (f *Fleet) History(ctx context.Context, job string, n int) ([]cron.RunRecord, error) {
	vals, err := f.rdb.LRange(ctx, f.key("history:"+job), 0, int64(n-1)).Result()
	if err != nil {
		return nil, f.wrap(err)
	}
	out := make([]cron.RunRecord, 0, len(vals))
	for _, v := range vals {
		var r cron.RunRecord
		if json.Unmarshal([]byte(v), &r) == nil {
			out = append(out, r)
		}
	}
	return out, nil
}

// LastRuns is each job's last run across the fleet, by job id.
func (f *Fleet) LastRuns(ctx context.Context) (map[string]cron.RunRecord, error) {
	vals, err := f.rdb.HGetAll(ctx, f.key("last")).Result()
	if err != nil {
		return nil, f.wrap(err)
	}
	out := make(map[string]cron.RunRecord, len(vals))
	for id, v := range vals {
		var r cron.RunRecord
		if json.Unmarshal([]byte(v), &r) == nil {
			out[id] = r
		}
	}
	return out, nil
}
