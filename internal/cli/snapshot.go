package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/atomicfile"
)

// SnapshotCmd captures the screen, or reads a saved `uiautomator dump`
// (--from-dump) and prints the element list the model would read for it.
type SnapshotCmd struct {
	FromDump string `name:"from-dump" help:"Read a saved uiautomator dump instead of a device and print the element list the model would see for it." placeholder:"FILE.xml" type:"path"`
	Size     string `help:"Screen size of --from-dump as WxH (default: the widest window of the dump)." placeholder:"WxH"`
	Budget   int    `help:"Size of the element block in characters (default 3200)." placeholder:"CHARS"`
	Keys     bool   `help:"List the soft keyboard's keys one by one instead of folding them (what a task about keys gets)."`

	JSON bool   `help:"Print the snapshot as JSON (docs/formats.md#screen-snapshot; screenshots omitted unless --with-images)."`
	SOM  string `name:"som" help:"Write the set-of-mark image (scaled screenshot with numbered elements, in the default model profile's imageFormat, else whichever of PNG and JPEG is smaller for it) to FILE." placeholder:"FILE" type:"path"`
	PNG  string `name:"png" help:"Write the full-size screenshot PNG to FILE." placeholder:"FILE" type:"path"`

	WithImages bool `help:"Include base64 screenshots in --json output."`
}

// Run captures one snapshot and prints it.
func (c *SnapshotCmd) Run(ctx context.Context, out Streams, phones *Phones, g Globals, asm Assembly) error {
	if c.FromDump != "" {
		return c.fromDump(out.Stdout)
	}
	if c.Size != "" {
		return UsageError{errors.New("--size applies to --from-dump only (a device reports its own size)")}
	}
	// snapshot works without a home: the device layer's own defaults,
	// except the model-sized images' encoding (snapshotImage).
	opts := device.Options{ElementBudget: c.Budget}
	// --json --with-images carries the set-of-mark image too, without --som.
	som := c.SOM != "" || (c.JSON && c.WithImages)
	if som {
		enc, err := snapshotImage(g, asm)
		if err != nil {
			return err
		}
		opts.Image = enc
	}
	phone, err := phones.openPhone(ctx, opts)
	if err != nil {
		return err
	}
	snap, err := phone.Capture(ctx, device.CaptureOptions{Scaled: true, SOM: som, Installed: true, KeyboardKeys: c.Keys})
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
		shown := *snap
		if !c.WithImages {
			shown.Screenshot, shown.SOMScreenshot = nil, nil
		}
		enc := json.NewEncoder(out.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(shown)
	}
	printSnapshot(out.Stdout, snap)
	return nil
}

func printSnapshot(w io.Writer, s *screen.Snapshot) {
	fmt.Fprintf(w, "device: %s\ncurrent app: %s\nsize: %dx%d (scaled %dx%d)\n", s.DeviceID, s.CurrentApp, s.Width, s.Height, s.ScaledWidth, s.ScaledHeight)
	if s.SecureSurface {
		fmt.Fprintln(w, "secure surface: the app blocks screenshots (FLAG_SECURE)")
	}
	fmt.Fprintf(w, "elements (%d, as the model reads them, in scaled pixels):\n", len(s.UIElements))
	printBlock(w, s.UIElements, s.UINotes)
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

// printBlock prints the element block exactly as the agent's prompt holds
// it, indented.
func printBlock(w io.Writer, els []screen.UIElement, notes []string) {
	block := strings.TrimSuffix(screen.ElementBlock(els, notes), "\n")
	if block == "" {
		fmt.Fprintln(w, "  (none)")
		return
	}
	for _, l := range strings.Split(block, "\n") {
		fmt.Fprintf(w, "  %s\n", l)
	}
}

// dumpView is --from-dump --json: what a snapshot of that screen would
// hold for the model.
type dumpView struct {
	Width        int                `json:"width"`
	Height       int                `json:"height"`
	ScaledWidth  int                `json:"scaledWidth"`
	ScaledHeight int                `json:"scaledHeight"`
	UIElements   []screen.UIElement `json:"uiElements"`
	UINotes      []string           `json:"uiNotes,omitempty"`
}

// fromDump selects the elements of a saved dump the way a capture would.
func (c *SnapshotCmd) fromDump(stdout io.Writer) error {
	if c.SOM != "" || c.PNG != "" || c.WithImages {
		return UsageError{errors.New("--som, --png and --with-images need a device; --from-dump has no screenshot")}
	}
	data, err := os.ReadFile(c.FromDump)
	if err != nil {
		return UsageError{fmt.Errorf("--from-dump: %w", err)}
	}
	root, err := screen.ParseHierarchy(data)
	if err != nil {
		return UsageError{fmt.Errorf("%s: %w", c.FromDump, err)}
	}
	w, h, err := c.screenSize(root)
	if err != nil {
		return err
	}
	sw, sh := screen.ScaledSize(w, h, device.Options{}.ModelStyle)
	sel := screen.Select(root, screen.ElementOptions{Width: w, Height: h,
		ScaleX: float64(w) / float64(sw), ScaleY: float64(h) / float64(sh), Budget: c.Budget, KeyboardKeys: c.Keys})
	if sel.Elements == nil {
		sel.Elements = []screen.UIElement{}
	}
	if c.JSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(dumpView{Width: w, Height: h, ScaledWidth: sw, ScaledHeight: sh, UIElements: sel.Elements, UINotes: sel.Notes})
	}
	fmt.Fprintf(stdout, "dump: %s\nsize: %dx%d (scaled %dx%d)\n", c.FromDump, w, h, sw, sh)
	fmt.Fprintf(stdout, "elements (%d, as the model reads them, in scaled pixels):\n", len(sel.Elements))
	printBlock(stdout, sel.Elements, sel.Notes)
	return nil
}

// screenSize is --size, else the extent of the dump's widest window.
func (c *SnapshotCmd) screenSize(root *screen.Node) (int, int, error) {
	if c.Size != "" {
		ws, hs, ok := strings.Cut(strings.ToLower(strings.TrimSpace(c.Size)), "x")
		w, errW := strconv.Atoi(ws)
		h, errH := strconv.Atoi(hs)
		if !ok || errW != nil || errH != nil || w <= 0 || h <= 0 {
			return 0, 0, UsageError{fmt.Errorf("--size: expected WxH in pixels like 1080x2400, got %q", c.Size)}
		}
		return w, h, nil
	}
	var widest screen.Rect
	for _, win := range root.Children {
		if b := win.Bounds; b.Width() > widest.Width() || (b.Width() == widest.Width() && b.Height() > widest.Height()) {
			widest = b
		}
	}
	if widest.Right <= 0 || widest.Bottom <= 0 {
		return 0, 0, UsageError{fmt.Errorf("%s: no window with bounds to infer the screen size from; pass --size WxH", c.FromDump)}
	}
	return widest.Right, widest.Bottom, nil
}
