package device

import (
	"testing"

	"github.com/openpocket/openpocket/engine/screen"
)

// TestFormatChooserEncodesBothOnlyWhenItMustKnow: both formats are tried
// until one wins by a wide margin; then only the winner is encoded, with
// both tried again every recheckFrames images; a close call keeps trying
// both.
func TestFormatChooserEncodesBothOnlyWhenItMustKnow(t *testing.T) {
	var c formatChooser
	if _, both := c.plan(); !both {
		t.Fatal("nothing known yet: both formats must be tried")
	}
	c.record(10_000, 25_000) // a flat screen: the PNG is much smaller
	for i := range recheckFrames {
		if only, both := c.plan(); both || only != screen.FormatPNG {
			t.Fatalf("image %d after a wide PNG win: only=%q both=%v", i, only, both)
		}
	}
	if _, both := c.plan(); !both {
		t.Fatal("both formats are checked again after recheckFrames images")
	}
	c.record(90_000, 20_000) // a photo: the JPEG wins
	if only, both := c.plan(); both || only != screen.FormatJPEG {
		t.Fatalf("after a wide JPEG win: only=%q both=%v", only, both)
	}
	c.record(21_000, 20_000) // close: keep measuring
	if _, both := c.plan(); !both {
		t.Fatal("a close call keeps both formats")
	}
}
