package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

func snapshotMain(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), append([]string{"--home", t.TempDir(), "snapshot"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

const bankDump = "../../engine/screen/testdata/selection/bank_menu.xml"

func TestSnapshotFromDump(t *testing.T) {
	code, out, errOut := snapshotMain(t, "--from-dump", bankDump)
	require.Equal(t, ExitOK, code, errOut)
	// The size comes from the widest window; coordinates are the model's.
	assert.Contains(t, out, "size: 1080x2400 (scaled 768x1707)\n")
	assert.Contains(t, out, "  mark 6: label=\"Transfer\" clickable=true class=FrameLayout center=(112,693) bounds=[65,647][158,740]\n")
	assert.Contains(t, out, "  [system bars]\n")
	assert.NotContains(t, out, "layout_quickBankingMenuCircle")

	// Exactly the block the model reads.
	data, err := os.ReadFile(bankDump)
	require.NoError(t, err)
	root, err := screen.ParseHierarchy(data)
	require.NoError(t, err)
	sel := screen.Select(root, screen.ElementOptions{Width: 1080, Height: 2400, ScaleX: 1080.0 / 768, ScaleY: 2400.0 / 1707})
	for _, line := range strings.Split(strings.TrimSpace(screen.ElementBlock(sel.Elements, sel.Notes)), "\n") {
		assert.Contains(t, out, "  "+line+"\n")
	}
}

func TestSnapshotFromDumpJSONSizeAndBudget(t *testing.T) {
	code, out, errOut := snapshotMain(t, "--from-dump", bankDump, "--json", "--size", "1080x2400", "--budget", "600")
	require.Equal(t, ExitOK, code, errOut)
	var v struct {
		Width, Height, ScaledWidth, ScaledHeight int
		UIElements                               []screen.UIElement
		UINotes                                  []string
	}
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	assert.Equal(t, []int{1080, 2400, 768, 1707}, []int{v.Width, v.Height, v.ScaledWidth, v.ScaledHeight})
	require.NotEmpty(t, v.UIElements)
	assert.Less(t, len(screen.ElementBlock(v.UIElements, nil)), 600)
	assert.Contains(t, strings.Join(v.UINotes, "\n"), "not listed (element budget)")
	assert.Equal(t, "Notifications", v.UIElements[0].ContentDesc)
}

func TestSnapshotFromDumpKeys(t *testing.T) {
	dump := "../../engine/screen/testdata/selection/keyboard_flood.xml"
	_, folded, _ := snapshotMain(t, "--from-dump", dump)
	assert.Contains(t, folded, screen.KeyboardNote)
	assert.NotContains(t, folded, `label="q"`)
	code, keys, errOut := snapshotMain(t, "--from-dump", dump, "--keys")
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, keys, "[keyboard]")
	assert.Contains(t, keys, `label="q"`)
}

func TestSnapshotFromDumpErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.xml")
	require.NoError(t, os.WriteFile(bad, []byte("<hierarchy><node bounds=\"[0,0][10,10]\">"), 0o644))
	noBounds := filepath.Join(dir, "nobounds.xml")
	require.NoError(t, os.WriteFile(noBounds, []byte(`<hierarchy><node text="x"/></hierarchy>`), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--from-dump", filepath.Join(dir, "missing.xml")}, "--from-dump: open"},
		{[]string{"--from-dump", bad}, "bad.xml: screen: truncated uiautomator dump"},
		{[]string{"--from-dump", noBounds}, "nobounds.xml: no window with bounds to infer the screen size from; pass --size WxH"},
		{[]string{"--from-dump", bankDump, "--size", "1080*2400"}, `--size: expected WxH in pixels like 1080x2400, got "1080*2400"`},
		{[]string{"--from-dump", bankDump, "--som", filepath.Join(dir, "som.png")}, "--som, --png and --with-images need a device"},
		{[]string{"--size", "1080x2400"}, "--size applies to --from-dump only"},
	} {
		code, _, errOut := snapshotMain(t, tc.args...)
		assert.Equal(t, ExitUsage, code, tc.args)
		assert.Contains(t, errOut, tc.want, tc.args)
	}
}

func TestSnapshotHelpNamesTheDefaultBudget(t *testing.T) {
	var out, errb bytes.Buffer
	Main(context.Background(), []string{"snapshot", "--help"}, &out, &errb)
	help := strings.Join(strings.Fields(out.String()), " ") // kong wraps lines
	assert.Contains(t, help, fmt.Sprintf("(default %d)", screen.DefaultElementBudget))
	assert.Contains(t, out.String(), "--from-dump")
}

// TestSnapshotLiveReadsLikeTheModel captures the virtual phone through the
// adb server with a permission dialog up: the printed list is the model's
// block — the app, then the dialog under its header, the system bars last —
// and --json carries the same elements and notes.
func TestSnapshotLiveReadsLikeTheModel(t *testing.T) {
	s := simtest.Start(t)
	s.Phone().ShowPermissionDialog("Settings")
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"--home", t.TempDir(), "--device", s.Serial(), "snapshot"}, &out, &errb)
	require.Equal(t, ExitOK, code, errb.String())
	text := out.String()
	dialog := strings.Index(text, "  [dialog]\n")
	allow := strings.Index(text, `label="Allow" clickable=true`)
	bars := strings.Index(text, "  [system bars]\n")
	require.True(t, dialog > 0 && allow > dialog && bars > allow, "dialog after the app, system bars last:\n%s", text)

	out.Reset()
	code = Main(context.Background(), []string{"--home", t.TempDir(), "--device", s.Serial(), "snapshot", "--json"}, &out, &errb)
	require.Equal(t, ExitOK, code, errb.String())
	var snap screen.Snapshot
	require.NoError(t, json.Unmarshal(out.Bytes(), &snap))
	var windows []string
	for _, e := range snap.UIElements {
		if len(windows) == 0 || windows[len(windows)-1] != e.Window {
			windows = append(windows, e.Window)
		}
	}
	assert.Equal(t, []string{"", "dialog", "system"}, windows)
}

// TestSnapshotImagesFollowTheProfile: --som writes the set-of-mark image
// in the default profile's imageFormat, and without one in whichever of
// PNG and JPEG is smaller for that image (docs/screenshots.md); --json
// --with-images carries it without --som.
func TestSnapshotImagesFollowTheProfile(t *testing.T) {
	s := simtest.Start(t)
	home := t.TempDir()
	som := filepath.Join(t.TempDir(), "marks.img")
	run := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		code := Main(context.Background(), append([]string{"--home", home, "--device", s.Serial(), "snapshot"}, args...), &out, &errb)
		require.Equal(t, ExitOK, code, errb.String())
		return out.String()
	}
	somIn := func(format string) []byte {
		t.Helper()
		if format != "" {
			cfg := `{"models": {"default": {"model": "m", "imageFormat": "` + format + `"}}}`
			require.NoError(t, os.WriteFile(filepath.Join(home, "config.json"), []byte(cfg), 0o600))
		}
		run("--som", som)
		img, err := os.ReadFile(som)
		require.NoError(t, err)
		return img
	}
	chosen := somIn("")
	jpg := somIn("jpeg")
	assert.Equal(t, "\xff\xd8", string(jpg[:2]), `imageFormat: "jpeg"`)
	png := somIn("png")
	assert.Equal(t, "\x89PNG", string(png[:4]), `imageFormat: "png"`)
	smaller := png
	if len(jpg) < len(png) {
		smaller = jpg
	}
	assert.Equal(t, string(smaller[:2]), string(chosen[:2]), "no config: the smaller format (PNG %d bytes, JPEG %d)", len(png), len(jpg))
	assert.Equal(t, len(smaller), len(chosen), "no config: the smaller encoding of the same image")

	var snap screen.Snapshot
	require.NoError(t, json.Unmarshal([]byte(run("--json", "--with-images")), &snap))
	require.NotEmpty(t, snap.SOMScreenshot, "the set-of-mark image without --som")
	assert.Equal(t, "\x89PNG", string(snap.SOMScreenshot[:4]))
	assert.Equal(t, screen.FormatPNG, snap.ImageFormat)
	assert.NotEmpty(t, snap.Screenshot)
}
