package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/openpocket/openpocket/internal/sim"
)

// SimCmd runs the virtual phone in the foreground.
type SimCmd struct {
	Port    int    `help:"TCP port to listen on (0 = a free port)." default:"0"`
	Size    string `help:"Screen size WxH." default:"1080x2400"`
	Density int    `help:"Screen density in dpi." default:"420"`
	TV      bool   `name:"tv" help:"A TV-sized virtual device for android-tv targets (1920x1080, 320 dpi, ro.build.characteristics=tv); overrides --size and --density."`
}

// Run starts the virtual phone, attaches it, prints the serial and serves
// until Ctrl-C or SIGTERM, then disconnects cleanly.
func (c *SimCmd) Run(ctx context.Context, out Streams, phones *Phones) error {
	w, h, err := parseSize(c.Size)
	if err != nil {
		return UsageError{fmt.Errorf("--size: %w", err)}
	}
	o := sim.Options{Port: c.Port, Width: w, Height: h, Density: c.Density, ADBServer: phones.adbAddr(), Attach: true}
	if c.TV {
		sim.TV(&o)
		w, h, c.Density = o.Width, o.Height, o.Density
	}
	s, err := sim.Start(ctx, o)
	if err != nil {
		return err
	}
	defer s.Close()
	fmt.Fprintln(out.Stdout, s.Serial())
	if isTTY(out.Stderr) {
		fmt.Fprintf(out.Stderr, "virtual phone %dx%d@%ddpi attached as %s; Ctrl-C to stop\n", w, h, c.Density, s.Serial())
	}
	<-ctx.Done()
	return nil
}

func parseSize(s string) (int, int, error) {
	ws, hs, ok := strings.Cut(strings.ToLower(s), "x")
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	if !ok || err1 != nil || err2 != nil || w < 100 || h < 100 || w > 8000 || h > 8000 {
		return 0, 0, fmt.Errorf("expected WIDTHxHEIGHT such as 1080x2400, got %q", s)
	}
	return w, h, nil
}
