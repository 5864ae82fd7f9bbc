package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/atomicfile"
)

// SnapshotCmd captures the screen.
type SnapshotCmd struct {
	JSON bool   `help:"Print the snapshot as JSON (seed 000 ScreenSnapshot; screenshots omitted unless --with-images)."`
	SOM  string `name:"som" help:"Write the set-of-mark image (scaled screenshot with numbered elements, in the default model profile's imageFormat: JPEG unless it says png) to FILE." placeholder:"FILE" type:"path"`
	PNG  string `name:"png" help:"Write the full-size screenshot PNG to FILE." placeholder:"FILE" type:"path"`

	WithImages bool `help:"Include base64 screenshots in --json output."`
}

// Run captures one snapshot and prints it.
func (c *SnapshotCmd) Run(app *App) error {
	phone, err := app.openPhone()
	if err != nil {
		return err
	}
	snap, err := phone.Capture(app.Ctx, device.CaptureOptions{Scaled: true, SOM: c.SOM != "", Installed: true})
	if err != nil {
		return err
	}
	if c.PNG != "" || (c.JSON && c.WithImages) {
		png, err := snap.FullPNG() // raw captures encode it only when asked
		if err != nil {
			return err
		}
		if c.PNG != "" {
			if err := atomicfile.WriteFile(c.PNG, png, 0o644); err != nil {
				return err
			}
		}
	}
	if c.SOM != "" {
		img := snap.SOMScreenshot
		if img == nil {
			img = snap.ScaledScreenshot // no elements: the plain scaled screenshot
		}
		if err := atomicfile.WriteFile(c.SOM, img, 0o644); err != nil {
			return err
		}
	}
	if c.JSON {
		out := *snap
		if !c.WithImages {
			out.Screenshot, out.SOMScreenshot = nil, nil
		}
		enc := json.NewEncoder(app.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	printSnapshot(app, snap)
	return nil
}

func printSnapshot(app *App, s *screen.Snapshot) {
	w := app.Stdout
	fmt.Fprintf(w, "device: %s\ncurrent app: %s\nsize: %dx%d (scaled %dx%d)\n", s.DeviceID, s.CurrentApp, s.Width, s.Height, s.ScaledWidth, s.ScaledHeight)
	if s.SecureSurface {
		fmt.Fprintln(w, "secure surface: the app blocks screenshots (FLAG_SECURE)")
	}
	fmt.Fprintf(w, "elements (%d):\n", len(s.UIElements))
	for _, e := range s.UIElements {
		fmt.Fprintf(w, "  %s\n", ElementLine(e))
	}
	if m := s.CaptureMetrics; m != nil {
		dist := "n/a"
		if m.VisualHashHammingDistance != nil {
			dist = fmt.Sprint(*m.VisualHashHammingDistance)
		}
		fmt.Fprintf(w, "metrics: total=%dms screencap=%dms currentApp=%dms uiDump=%dms scale=%dms overlay=%dms source=%s hash=%s distance=%s\n",
			m.TotalMs, m.ScreencapMs, m.CurrentAppMs, m.UIDumpMs, m.ScaleMs, m.OverlayMs, m.UIElementsSource, m.VisualHash, dist)
	}
	if len(s.InstalledPackages) > 0 {
		fmt.Fprintf(w, "launchable: %s\n", strings.Join(s.InstalledPackages, ", "))
	}
}

// ElementLine formats an element the way the agent prompt lists it, in
// device pixels.
func ElementLine(e screen.UIElement) string {
	label := e.Text
	if label == "" {
		label = e.ContentDesc
	}
	b := e.Bounds
	return fmt.Sprintf("[%s] %q id=%s class=%s clickable=%t center=(%d,%d) bounds=[%d,%d][%d,%d]",
		e.ID, label, dash(e.ResourceID), shortClass(e.ClassName), e.Clickable, e.Center.X, e.Center.Y, b.Left, b.Top, b.Right, b.Bottom)
}

func shortClass(c string) string {
	if i := strings.LastIndexByte(c, '.'); i >= 0 {
		return c[i+1:]
	}
	return c
}
