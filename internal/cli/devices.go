package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/openpocket/openpocket/internal/adb"
)

// DevicesCmd lists attached devices.
type DevicesCmd struct {
	JSON bool `help:"Print JSON."`
}

// Run lists devices with state and model.
func (c *DevicesCmd) Run(ctx context.Context, out Streams, g Globals, phones *Phones) error {
	client := phones.adbClient()
	if err := client.EnsureServer(ctx); err != nil {
		return err
	}
	if g.UseSim {
		if _, err := phones.startSim(); err != nil {
			return err
		}
	}
	devs, err := client.Devices(ctx)
	if err != nil {
		return err
	}
	if c.JSON {
		if devs == nil {
			devs = []adb.DeviceInfo{} // [] rather than null for scripts
		}
		enc := json.NewEncoder(out.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(devs)
	}
	if len(devs) == 0 {
		fmt.Fprintln(out.Stdout, "no devices attached (start the virtual phone with `openpocket sim`)")
		return nil
	}
	tw := tabwriter.NewWriter(out.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERIAL\tSTATE\tMODEL\tPRODUCT")
	for _, d := range devs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.Serial, d.State, dash(d.Model), dash(d.Product))
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
