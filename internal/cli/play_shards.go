package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/openpocket/openpocket/internal/report"
	"github.com/openpocket/openpocket/internal/run"
)

// Sharded play: `openpocket play flows/ --devices a,b` (or --shards N, the
// first N attached devices no other agent has bound) deals the selected
// playbooks round-robin across the devices and runs each device's share
// in its own goroutine, one playbook at a time per device. Each device is
// opened through the run service like any run: another agent's binding
// refuses it, and its lease keeps other processes off it meanwhile. The
// JUnit report has one suite per device.

// shard is one device's share of the playbooks.
type shard struct {
	device string
	files  []string
	flows  []FlowReport
}

// sharded reports whether the command splits its playbooks across devices.
func (c *PlayCmd) sharded() bool { return len(c.Devices) > 0 || c.Shards > 0 }

// runSharded runs the selected files across the devices and writes one
// report with a suite per device.
func (c *PlayCmd) runSharded(ctx context.Context, env playEnv, files []string, outRoot string) error {
	if c.ReportHTML != "" || c.Record || c.Watch {
		return UsageError{errors.New("--report-html, --record and --watch do not work with --devices/--shards yet")}
	}
	devices, err := c.shardDevices(ctx, env)
	if err != nil {
		return err
	}
	var selected []string
	for _, f := range files {
		if fileSelected(f, c.IncludeTags, c.ExcludeTags) {
			selected = append(selected, f)
		}
	}
	shards := dealShards(devices, selected)
	svc, err := env.later.Service()
	if err != nil {
		return err
	}
	fmt.Fprintf(env.out.Stdout, "%d playbooks across %d devices: %s\n", len(selected), len(devices), strings.Join(devices, ", "))
	out := &lockedWriter{w: env.out.Stdout}
	var wg sync.WaitGroup
	for _, s := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.flows = c.runShard(ctx, env.out.Stderr, svc, s, outRoot, out)
		}()
	}
	wg.Wait()
	var all []FlowReport
	suites := make([]report.JUnitSuite, 0, len(shards))
	for _, s := range shards {
		all = append(all, s.flows...)
		suites = append(suites, report.JUnitSuiteFor("openpocket playbooks on "+s.device, s.flows))
	}
	if c.Report != "" {
		if err := report.WriteJUnitSuites(c.Report, suites); err != nil {
			return err
		}
	}
	if c.ReportJSON != "" {
		if err := report.WriteJSON(c.ReportJSON, all); err != nil {
			return err
		}
	}
	return playSummary(ctx, env.out.Stdout, env.phones, all)
}

// runShard runs one device's playbooks in order.
func (c *PlayCmd) runShard(ctx context.Context, stderr io.Writer, svc *run.Service, s *shard, outRoot string, out io.Writer) []FlowReport {
	var flows []FlowReport
	for i, f := range s.files {
		if ctx.Err() != nil {
			break
		}
		res, err := compilePlaybook(stderr, f, playbookParams{values: c.Env, shared: true})
		if err != nil {
			fmt.Fprintf(out, "[%s] %s\n", s.device, strings.TrimSpace(err.Error()))
			flows = append(flows, FlowReport{Name: f, File: f, Status: "failed", Error: err.Error(), Steps: []StepReport{}})
			continue
		}
		fr, _ := svc.Playbook(ctx, run.PlaybookOptions{Target: run.Target{Device: s.device}, File: f, Compiled: res, OutputDir: outRoot, Timeout: c.Timeout,
			AIRefresh: c.AIRefresh, NoAI: c.NoAI})
		line := fmt.Sprintf("[%s] [%d/%d] %s: %s", s.device, i+1, len(s.files), fr.Name, fr.Status)
		if fr.Status != "passed" && fr.Error != "" {
			line += ": " + oneLine(fr.Error)
		}
		fmt.Fprintln(out, line)
		flows = append(flows, fr)
	}
	return flows
}

// dealShards deals files round-robin, so each device gets a fair share
// and the split is the same on every run (reports stay comparable).
func dealShards(devices, files []string) []*shard {
	shards := make([]*shard, len(devices))
	for i, d := range devices {
		shards[i] = &shard{device: d}
	}
	for i, f := range files {
		s := shards[i%len(shards)]
		s.files = append(s.files, f)
	}
	return shards
}

// shardDevices are --devices, or the first --shards attached devices no
// other agent has bound.
func (c *PlayCmd) shardDevices(ctx context.Context, env playEnv) ([]string, error) {
	if len(c.Devices) > 0 && c.Shards > 0 {
		return nil, UsageError{errors.New("give --devices a,b,… or --shards N, not both")}
	}
	if len(c.Devices) > 0 {
		var devices []string
		for _, d := range c.Devices {
			d = strings.TrimSpace(d)
			if d == "" || slices.Contains(devices, d) {
				return nil, UsageError{fmt.Errorf("--devices %s: expected distinct, non-empty serials", strings.Join(c.Devices, ","))}
			}
			devices = append(devices, d)
		}
		return devices, nil
	}
	if c.Shards < 1 {
		return nil, UsageError{fmt.Errorf("--shards %d: expected 1 or more", c.Shards)}
	}
	return freeDevices(ctx, env.g, env.phones, c.Shards)
}

// freeDevices lists n online devices that no other agent has bound.
func freeDevices(ctx context.Context, g Globals, phones *Phones, n int) ([]string, error) {
	devs, err := phones.adbClient().Devices(ctx)
	if err != nil {
		return nil, err
	}
	in, err := g.install()
	if err != nil {
		return nil, err
	}
	var free, bound []string
	for _, d := range devs {
		if d.State != "device" {
			continue
		}
		if holder, found, err := in.HolderOf(g.agentID(), d.Serial); err != nil {
			return nil, err
		} else if found {
			bound = append(bound, d.Serial+" (agent "+holder.Agent+")")
			continue
		}
		free = append(free, d.Serial)
	}
	if len(free) < n {
		msg := fmt.Sprintf("--shards %d: only %d attached device(s) free", n, len(free))
		if len(bound) > 0 {
			msg += "; bound to other agents: " + strings.Join(bound, ", ")
		}
		return nil, UsageError{errors.New(msg)}
	}
	slices.Sort(free)
	return free[:n], nil
}

// lockedWriter serializes the lines of concurrent shards.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
