package run

import (
	"context"
	"sync"
	"time"

	"github.com/openpocket/openpocket/playbooks"
)

// Sharded play: a front end (`openpocket play flows/ --devices a,b`, or
// --shards N) chooses the devices; DealShards splits the playbooks across
// them and PlayShards runs each device's share in its own goroutine, one
// playbook at a time per device. Each device is opened through the service
// like any run: the device opener refuses one another agent has bound, and
// its lease keeps other processes off it meanwhile.

// Shard is one device's share of a sharded play.
type Shard struct {
	Device string
	Files  []string
}

// DealShards deals files round-robin across devices, so each device gets a
// fair share and the split is the same on every run (reports stay
// comparable).
func DealShards(devices, files []string) []Shard {
	shards := make([]Shard, len(devices))
	for i, d := range devices {
		shards[i] = Shard{Device: d}
	}
	for i, f := range files {
		s := &shards[i%len(shards)]
		s.Files = append(s.Files, f)
	}
	return shards
}

// ShardOptions tune PlayShards: every playbook's output directory, time
// limit and AI-step switches, how a file is compiled, and who hears of
// each result.
type ShardOptions struct {
	OutputDir       string
	Timeout         time.Duration
	AIRefresh, NoAI bool
	// Compile compiles one playbook (the front end's parameters and
	// warnings); nil compiles it with none.
	Compile func(file string) (*playbooks.Result, error)
	// Done hears of each playbook as it ends: its device, its place in the
	// device's share (i of n, from 1), its result and, when it did not
	// compile, why. Calls never overlap.
	Done func(device string, i, n int, r PlaybookResult, compileErr error)
}

// PlayShards runs each shard's playbooks in order on its device, all
// shards at once, until ctx ends; it returns each shard's results in
// shard order. A playbook that does not compile is a failed result.
func (s *Service) PlayShards(ctx context.Context, shards []Shard, o ShardOptions) [][]PlaybookResult {
	compile := o.Compile
	if compile == nil {
		compile = func(file string) (*playbooks.Result, error) { return CompilePlaybook(file, nil, false) }
	}
	var doneMu sync.Mutex
	done := func(device string, i, n int, r PlaybookResult, err error) {
		if o.Done == nil {
			return
		}
		doneMu.Lock()
		defer doneMu.Unlock()
		o.Done(device, i, n, r, err)
	}
	results := make([][]PlaybookResult, len(shards))
	var wg sync.WaitGroup
	for k, sh := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, f := range sh.Files {
				if ctx.Err() != nil {
					break
				}
				res, err := compile(f)
				if err != nil {
					r := PlaybookResult{Name: f, File: f, Status: "failed", Error: err.Error(), Steps: []StepReport{}}
					results[k] = append(results[k], r)
					done(sh.Device, i+1, len(sh.Files), r, err)
					continue
				}
				r, _ := s.Playbook(ctx, PlaybookOptions{Target: Target{Device: sh.Device}, File: f, Compiled: res, OutputDir: o.OutputDir,
					Timeout: o.Timeout, AIRefresh: o.AIRefresh, NoAI: o.NoAI})
				results[k] = append(results[k], r)
				done(sh.Device, i+1, len(sh.Files), r, nil)
			}
		}()
	}
	wg.Wait()
	return results
}
