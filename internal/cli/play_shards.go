package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/openpocket/openpocket/internal/report"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/playbooks"
)

// Sharded play: `openpocket play flows/ --devices a,b` (or --shards N, the
// first N attached devices no other agent has bound) runs the selected
// playbooks across the devices (run.Service.PlayShards: dealt round-robin,
// one goroutine per device). The command chooses the devices and writes
// one JUnit report with a suite per device.

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
	shards := run.DealShards(devices, selected)
	svc, err := env.later.Service()
	if err != nil {
		return err
	}
	fmt.Fprintf(env.out.Stdout, "%d playbooks across %d devices: %s\n", len(selected), len(devices), strings.Join(devices, ", "))
	results := svc.PlayShards(ctx, shards, run.ShardOptions{OutputDir: outRoot, Timeout: c.Timeout, AIRefresh: c.AIRefresh, NoAI: c.NoAI,
		Compile: func(file string) (*playbooks.Result, error) {
			return compilePlaybook(env.out.Stderr, file, playbookParams{values: c.Env, shared: true})
		},
		Done: func(device string, i, n int, r FlowReport, compileErr error) {
			printShardLine(env.out.Stdout, device, i, n, r, compileErr)
		}})
	var all []FlowReport
	suites := make([]report.JUnitSuite, 0, len(shards))
	for k, s := range shards {
		all = append(all, results[k]...)
		suites = append(suites, report.JUnitSuiteFor("openpocket playbooks on "+s.Device, results[k]))
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

// printShardLine says how one playbook of a shard ended: "[device] [i/n]
// name: status", or the compile error.
func printShardLine(w io.Writer, device string, i, n int, r FlowReport, compileErr error) {
	if compileErr != nil {
		fmt.Fprintf(w, "[%s] %s\n", device, strings.TrimSpace(compileErr.Error()))
		return
	}
	line := fmt.Sprintf("[%s] [%d/%d] %s: %s", device, i, n, r.Name, r.Status)
	if r.Status != "passed" && r.Error != "" {
		line += ": " + oneLine(r.Error)
	}
	fmt.Fprintln(w, line)
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
