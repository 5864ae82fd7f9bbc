package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/cron"
	"github.com/openpocket/openpocket/internal/fleet"
	"github.com/openpocket/openpocket/internal/workspace"
)

// FleetCmd shows the fleet of gateways this agent's config joins
// (fleet.redisUrl; docs/fleet.md).
type FleetCmd struct {
	Status FleetStatusCmd `cmd:"" help:"List the fleet's hosts: last heartbeat, phones and the jobs running on them, each job's last run."`
}

// FleetStatusCmd prints the fleet's hosts and last runs.
type FleetStatusCmd struct {
	JSON bool `name:"json" help:"Print the status as JSON."`
}

// fleetStatusJSON is `fleet status --json`.
type fleetStatusJSON struct {
	Redis    string                    `json:"redis"`
	Host     string                    `json:"host"`
	Hosts    []fleet.HostInfo          `json:"hosts"`
	LastRuns map[string]cron.RunRecord `json:"lastRuns"`
}

// Run asks Redis; an unreachable Redis is an error naming it (password
// redacted).
func (c *FleetStatusCmd) Run(ctx context.Context, out Streams, cfg workspace.Config) error {
	if !cfg.Fleet.Enabled() {
		return errors.New("fleet status: this agent's config.json has no fleet.redisUrl (docs/fleet.md)")
	}
	fl, err := fleet.Open(fleet.Options{URL: cfg.Fleet.RedisURL, Host: cfg.Fleet.HostName})
	if err != nil {
		return err
	}
	defer fl.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	hosts, err := fl.Hosts(ctx)
	if err != nil {
		return fmt.Errorf("fleet status: %w", err)
	}
	last, err := fl.LastRuns(ctx)
	if err != nil {
		return fmt.Errorf("fleet status: %w", err)
	}
	st := fleetStatusJSON{Redis: fl.URL(), Host: fl.Host(), Hosts: hosts, LastRuns: last}
	if st.Hosts == nil {
		st.Hosts = []fleet.HostInfo{}
	}
	if c.JSON {
		data, err := json.MarshalIndent(st, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out.Stdout, "%s\n", data)
		return err
	}
	return printFleet(out.Stdout, st, time.Now())
}

func printFleet(w io.Writer, st fleetStatusJSON, now time.Time) error {
	fmt.Fprintf(w, "fleet on %s (this host: %s)\n", st.Redis, st.Host)
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tAGENT\tSTATE\tLAST HEARTBEAT\tPHONES")
	for _, h := range st.Hosts {
		agent := h.Agent
		if agent == "" {
			agent = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s ago\t%s\n", h.Host, agent, h.State(), now.Sub(h.At).Round(time.Second), h.Phones())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(st.LastRuns) == 0 {
		_, err := fmt.Fprintln(w, "no runs recorded yet")
		return err
	}
	tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB\tLAST RUN\tHOST\tSTATUS")
	for _, id := range sortedKeys(st.LastRuns) {
		r := st.LastRuns[id]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", id, r.Start.Local().Format(time.DateTime), r.Host, r.Status)
	}
	return tw.Flush()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ { // few jobs: insertion sort
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// fleetLastRuns is each job's last run across the fleet for `cron list`
// (nil outside a fleet; a warning when Redis does not answer).
func fleetLastRuns(ctx context.Context, stderr io.Writer, cfg workspace.Config) map[string]cron.RunRecord {
	if !cfg.Fleet.Enabled() {
		return nil
	}
	fl, err := fleet.Open(fleet.Options{URL: cfg.Fleet.RedisURL, Host: cfg.Fleet.HostName})
	if err != nil {
		fmt.Fprintf(stderr, "warning: %v\n", err)
		return nil
	}
	defer fl.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	last, err := fl.LastRuns(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "warning: fleet runs not shown: %v\n", err)
	}
	return last
}

// fleetPhones lists the adb server's phones for the gateway's fleet
// presence, each with its target type: emulators by their serial or
// product, the configured target by config's target.type, others as
// physical phones.
func fleetPhones(p *Phones, cfg workspace.Config) func(ctx context.Context) ([]fleet.Phone, error) {
	return func(ctx context.Context) ([]fleet.Phone, error) {
		devs, err := p.adbClient().Devices(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]fleet.Phone, len(devs))
		for i, d := range devs {
			out[i] = fleet.Phone{Serial: d.Serial, State: d.State, Type: phoneType(d, cfg.Target)}
		}
		return out, nil
	}
}

// fleetAgents lists the install's agents with their bound phones for the
// fleet's placement of jobs naming an agent. The served agent without a
// binding offers its config's target.device, as its runs use it.
func fleetAgents(g Globals, cfg workspace.Config) func(ctx context.Context) ([]fleet.AgentPhone, error) {
	return func(context.Context) ([]fleet.AgentPhone, error) {
		in, err := g.install()
		if err != nil {
			return nil, err
		}
		agents, err := in.Agents()
		if err != nil {
			return nil, err
		}
		bindings, err := in.Bindings()
		if err != nil {
			return nil, err
		}
		out := make([]fleet.AgentPhone, len(agents))
		for i, a := range agents {
			out[i] = fleet.AgentPhone{ID: a.ID}
			if j := slices.IndexFunc(bindings, func(b workspace.Binding) bool { return b.Agent == a.ID }); j >= 0 {
				out[i].Phone = bindings[j].Fingerprint()
			} else if a.ID == g.agentID() {
				out[i].Phone = cfg.Target.Device
			}
		}
		return out, nil
	}
}

func phoneType(d adb.DeviceInfo, t workspace.TargetConfig) string {
	switch {
	case t.Device != "" && d.Serial == t.Device:
		return t.Type
	case strings.HasPrefix(d.Serial, "emulator-"), strings.Contains(d.Product, "sdk"), strings.Contains(d.Model, "Emulator"):
		return "emulator"
	}
	return "physical-phone"
}

// Help shows the examples (kept here, beside the command).
func (c *FleetCmd) Help() string {
	return "Examples:\n  openpocket fleet status\n  openpocket fleet status --json"
}

// Help shows the examples.
func (c *FleetStatusCmd) Help() string { return (&FleetCmd{}).Help() }
