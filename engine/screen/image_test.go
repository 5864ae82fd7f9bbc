package screen

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
)

func TestScaledSize(t *testing.T) {
	tests := []struct {
		w, h   int
		style  ModelStyle
		sw, sh int
	}{
		{1080, 2400, StyleOpenAI, 768, 1707},
		{2400, 1080, StyleOpenAI, 1707, 768},
		{1440, 3120, StyleOpenAI, 768, 1664},
		{720, 1600, StyleOpenAI, 720, 1600}, // no upscale
		{768, 1024, StyleOpenAI, 768, 1024},
		{1080, 2400, StyleAnthropic, 706, 1568},
		{2400, 1080, StyleAnthropic, 1568, 706},
		{1000, 1500, StyleAnthropic, 1000, 1500}, // no upscale
		{0, 100, StyleOpenAI, 0, 100},
	}
	for _, tt := range tests {
		sw, sh := ScaledSize(tt.w, tt.h, tt.style)
		if sw != tt.sw || sh != tt.sh {
			t.Errorf("ScaledSize(%d, %d, %v) = %d×%d, want %d×%d", tt.w, tt.h, tt.style, sw, sh, tt.sw, tt.sh)
		}
	}
	if StyleAnthropic.String() != "anthropic" || StyleOpenAI.String() != "openai" {
		t.Error("style names")
	}
}

// testScreen draws a phone-like picture: status bar, bands of colour, a
// white card and a nav bar.
func testScreen(w, h int, shift int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBA{uint8((x + shift) * 255 / w), uint8(y * 255 / h), uint8((x ^ y) & 0x3f), 255}
			if y > h/3 && y < h/2 && x > w/5 && x < 4*w/5 {
				c = color.NRGBA{250, 250, 250, 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

func TestResize(t *testing.T) {
	// A flat image stays flat, for every source type.
	flat := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	for i := range flat.Pix {
		flat.Pix[i] = []uint8{10, 200, 30, 255}[i%4]
	}
	for name, src := range map[string]image.Image{
		"rgba":  flat,
		"nrgba": (*image.NRGBA)(flat),
		"gray":  image.NewUniform(color.RGBA{10, 200, 30, 255}),
	} {
		if u, ok := src.(*image.Uniform); ok {
			_ = u
			g := image.NewPaletted(image.Rect(0, 0, 100, 50), color.Palette{color.RGBA{10, 200, 30, 255}})
			src = g
		}
		out := Resize(src, 77, 33)
		if out.Bounds() != image.Rect(0, 0, 77, 33) {
			t.Fatalf("%s: bounds %v", name, out.Bounds())
		}
		for i := 0; i < len(out.Pix); i += 4 {
			if out.Pix[i] != 10 || out.Pix[i+1] != 200 || out.Pix[i+2] != 30 || out.Pix[i+3] != 255 {
				t.Fatalf("%s: pixel %d = %v, want flat colour", name, i/4, out.Pix[i:i+4])
			}
		}
	}
	// 2×2 box average is exact.
	src := image.NewRGBA(image.Rect(0, 0, 4, 2))
	copy(src.Pix, []uint8{
		0, 0, 0, 255, 100, 100, 100, 255, 200, 0, 0, 255, 200, 0, 0, 255,
		100, 100, 100, 255, 200, 200, 200, 255, 0, 0, 200, 255, 0, 0, 200, 255,
	})
	out := Resize(src, 2, 1)
	if want := []uint8{100, 100, 100, 255, 100, 0, 100, 255}; !bytes.Equal(out.Pix, want) {
		t.Errorf("box average = %v, want %v", out.Pix, want)
	}
	// Non-zero origin and a transparent NRGBA pixel (premultiplied).
	sub := image.NewNRGBA(image.Rect(10, 10, 12, 11))
	copy(sub.Pix, []uint8{255, 255, 255, 255, 255, 0, 0, 0})
	out = Resize(sub, 1, 1)
	if want := []uint8{128, 128, 128, 128}; !bytes.Equal(out.Pix, want) {
		t.Errorf("premultiplied average = %v, want %v", out.Pix, want)
	}
	// Upscaling works too (no panic, right size, colours kept).
	up := Resize(src, 9, 5)
	if up.Bounds().Dx() != 9 || up.RGBAAt(0, 0) != (color.RGBA{0, 0, 0, 255}) {
		t.Errorf("upscale corner = %v", up.RGBAAt(0, 0))
	}
	if Resize(src, 0, 5).Bounds().Empty() != true {
		t.Error("zero width must give empty image")
	}
}

func TestPNGRoundTrip(t *testing.T) {
	img := testScreen(120, 200, 0)
	b, err := EncodePNG(img)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodePNG(b)
	if err != nil {
		t.Fatal(err)
	}
	if DHash(back) != DHash(img) {
		t.Error("hash changed through PNG")
	}
	r, g, bl, a := back.At(5, 7).RGBA()
	r2, g2, b2, a2 := img.At(5, 7).RGBA()
	if r != r2 || g != g2 || bl != b2 || a != a2 {
		t.Error("pixel changed through PNG")
	}
	if _, err := DecodePNG(nil); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty input err = %v", err)
	}
	if _, err := DecodePNG([]byte("not a png")); err == nil || !strings.HasPrefix(err.Error(), "screen: decode png") {
		t.Errorf("garbage err = %v", err)
	}
}

func TestDHash(t *testing.T) {
	a := testScreen(360, 800, 0)
	h := DHash(a)
	if len(h) != 16 || strings.ToLower(h) != h {
		t.Fatalf("hash %q is not 16 lowercase hex digits", h)
	}
	if DHash(a) != h {
		t.Error("hash not deterministic")
	}
	// The same picture at another resolution and pixel type hashes alike.
	small := Resize(a, 180, 400)
	if d := Hamming(h, DHash(small)); d > 2 {
		t.Errorf("resized image distance %d, want ≤ 2", d)
	}
	// Changing only the status bar (top 7 %) and nav bar (bottom 11 %) is ignored.
	b := image.NewNRGBA(a.Bounds())
	copy(b.Pix, a.Pix)
	for y := 0; y < 50; y++ {
		for x := 0; x < 360; x++ {
			b.SetNRGBA(x, y, color.NRGBA{255, 0, 0, 255})
			b.SetNRGBA(x, 799-y, color.NRGBA{0, 0, 255, 255})
		}
	}
	if DHash(b) != h {
		t.Errorf("status/nav bar change altered hash: %s vs %s", DHash(b), h)
	}
	// A different screen is far away.
	c := testScreen(360, 800, 180)
	if d := Hamming(h, DHash(c)); d < 10 {
		t.Errorf("different screen distance %d, want ≥ 10", d)
	}
	// Known value for a left-to-right dark-to-light gradient: every cell is
	// darker than its right neighbour → all bits 0; reversed → all ones.
	grad := image.NewGray(image.Rect(0, 0, 90, 100))
	for y := 0; y < 100; y++ {
		for x := 0; x < 90; x++ {
			grad.SetGray(x, y, color.Gray{uint8(x * 2)})
		}
	}
	if got := DHash(grad); got != "0000000000000000" {
		t.Errorf("gradient hash = %s", got)
	}
	for y := 0; y < 100; y++ {
		for x := 0; x < 90; x++ {
			grad.SetGray(x, y, color.Gray{uint8(255 - x*2)})
		}
	}
	if got := DHash(grad); got != "ffffffffffffffff" {
		t.Errorf("reversed gradient hash = %s", got)
	}
	if DHash(image.NewRGBA(image.Rectangle{})) != "0000000000000000" {
		t.Error("empty image hash")
	}
}

func TestHamming(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"0000000000000000", "0000000000000000", 0},
		{"0000000000000000", "ffffffffffffffff", 64},
		{"00000000000000f0", "0000000000000001", 5},
		{"ABCDEF0123456789", "abcdef0123456789", 0},
		{"", "0000000000000000", 64},
		{"000000000000000", "0000000000000000", 64},
		{"000000000000000g", "0000000000000000", 64},
		{"+000000000000000", "0000000000000000", 64},
	}
	for _, tt := range tests {
		if got := Hamming(tt.a, tt.b); got != tt.want {
			t.Errorf("Hamming(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestSetOfMark(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 768, 1707))
	for i := range src.Pix {
		src.Pix[i] = 40
		if i%4 == 3 {
			src.Pix[i] = 255
		}
	}
	els := []UIElement{
		{ID: "1", Bounds: Rect{0, 0, 500, 300}, ScaledBounds: Rect{100, 100, 300, 200}},
		{ID: "2", Bounds: Rect{0, 0, 10, 10}, ScaledBounds: Rect{400, 500, 700, 800}},
		{ID: "17", ScaledBounds: Rect{700, 1650, 900, 1800}},  // runs off the image
		{ID: "x", ScaledBounds: Rect{2000, 2000, 2100, 2100}}, // entirely outside
	}
	out := SetOfMark(src, els, true)
	if out == src || out.Bounds() != src.Bounds() {
		t.Fatal("SetOfMark must return a new image of the same size")
	}
	if src.RGBAAt(101, 101) != (color.RGBA{40, 40, 40, 255}) {
		t.Fatal("source image modified")
	}
	// Badge background: opaque first palette colour next to the corner.
	if got := out.RGBAAt(101, 101); got != MarkColors[0] {
		t.Errorf("badge 1 pixel = %v, want %v", got, MarkColors[0])
	}
	// Some badge pixel is ink (the digit).
	ink := 0
	for y := 100; y < 130; y++ {
		for x := 100; x < 130; x++ {
			if out.RGBAAt(x, y).R < 0x20 {
				ink++
			}
		}
	}
	if ink == 0 {
		t.Error("no digit drawn in badge 1")
	}
	// Translucent fill inside the box: tinted, not opaque.
	in := out.RGBAAt(250, 180)
	if in == src.RGBAAt(250, 180) || in == MarkColors[0] {
		t.Errorf("fill pixel = %v, want a tint", in)
	}
	if in.B <= 40 || in.R > 60 {
		t.Errorf("fill tint %v is not cyan-ish", in)
	}
	// Second element uses the second colour; outside all boxes is untouched.
	if got := out.RGBAAt(401, 501); got != MarkColors[1] {
		t.Errorf("badge 2 pixel = %v, want %v", got, MarkColors[1])
	}
	if got := out.RGBAAt(50, 1000); got != (color.RGBA{40, 40, 40, 255}) {
		t.Errorf("untouched pixel = %v", got)
	}
	// Clipped badge stays inside the image.
	if got := out.RGBAAt(767, 1706); got == (color.RGBA{40, 40, 40, 255}) {
		t.Error("third element not drawn at the image edge")
	}
	// Device bounds when not scaled.
	dev := SetOfMark(src, els[:1], false)
	if got := dev.RGBAAt(1, 1); got != MarkColors[0] {
		t.Errorf("unscaled badge pixel = %v", got)
	}
	if got := dev.RGBAAt(101, 101); got == MarkColors[0] {
		t.Error("unscaled overlay used scaled bounds")
	}
	// NRGBA input works.
	n := SetOfMark(testScreen(100, 100, 0), []UIElement{{ID: "3", Bounds: Rect{10, 10, 90, 90}}}, false)
	if n.RGBAAt(11, 11) != MarkColors[0] {
		t.Errorf("nrgba badge = %v", n.RGBAAt(11, 11))
	}
}

func TestIsBlack(t *testing.T) {
	black := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	for i := 3; i < len(black.Pix); i += 4 {
		black.Pix[i] = 255
	}
	if !IsBlack(black) {
		t.Error("black image not detected")
	}
	nearly := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	for i := range nearly.Pix {
		nearly.Pix[i] = 12
	}
	if !IsBlack(nearly) {
		t.Error("near-black image not detected")
	}
	black.SetRGBA(540, 1200, color.RGBA{255, 255, 255, 255})
	if IsBlack(black) {
		t.Error("white centre pixel missed")
	}
	if IsBlack(testScreen(100, 100, 0)) {
		t.Error("picture reported black")
	}
	gray := image.NewGray(image.Rect(0, 0, 10, 10))
	if !IsBlack(gray) {
		t.Error("black gray image")
	}
	if IsBlack(image.NewRGBA(image.Rectangle{})) {
		t.Error("empty image reported black")
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, gray)
	img, _ := DecodePNG(buf.Bytes())
	if !IsBlack(img) {
		t.Error("decoded black gray PNG")
	}
}

func TestSetOfMarkNestedBadgesDoNotOverlap(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 768, 1000))
	els := []UIElement{
		{ID: "6", ScaledBounds: Rect{0, 100, 768, 400}},
		{ID: "7", ScaledBounds: Rect{0, 100, 768, 200}},
	}
	out := SetOfMark(src, els, true)
	if got := out.RGBAAt(1, 101); got != MarkColors[0] {
		t.Errorf("first badge at corner = %v, want %v", got, MarkColors[0])
	}
	found := false
	for x := 0; x < 100; x++ {
		if out.RGBAAt(x, 101) == MarkColors[1] {
			found = true
		}
	}
	if !found {
		t.Error("second badge not placed beside the first")
	}
}

func TestEncodePNGFastPath(t *testing.T) {
	for _, r := range []image.Rectangle{image.Rect(0, 0, 97, 61), image.Rect(5, 7, 40, 30), image.Rect(0, 0, 1, 1)} {
		src := Resize(testScreen(300, 200, 3), r.Dx(), r.Dy())
		img := image.NewRGBA(r)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				img.SetRGBA(x, y, src.RGBAAt(x-r.Min.X, y-r.Min.Y))
			}
		}
		b, err := EncodePNG(img)
		if err != nil {
			t.Fatal(err)
		}
		back, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%v: standard decoder rejects fast-path PNG: %v", r, err)
		}
		if back.Bounds().Dx() != r.Dx() || back.Bounds().Dy() != r.Dy() {
			t.Fatalf("size %v, want %v", back.Bounds(), r)
		}
		for y := 0; y < r.Dy(); y++ {
			for x := 0; x < r.Dx(); x++ {
				r1, g1, b1, _ := back.At(back.Bounds().Min.X+x, back.Bounds().Min.Y+y).RGBA()
				r2, g2, b2, _ := img.At(r.Min.X+x, r.Min.Y+y).RGBA()
				if r1 != r2 || g1 != g2 || b1 != b2 {
					t.Fatalf("%v: pixel (%d,%d) differs", r, x, y)
				}
			}
		}
	}
	// Translucent RGBA keeps its alpha through the standard path.
	tr := image.NewRGBA(image.Rect(0, 0, 2, 1))
	tr.SetRGBA(0, 0, color.RGBA{10, 10, 10, 128})
	b, err := EncodePNG(tr)
	if err != nil {
		t.Fatal(err)
	}
	back, _ := png.Decode(bytes.NewReader(b))
	if _, _, _, a := back.At(0, 0).RGBA(); a>>8 != 128 {
		t.Errorf("alpha = %d, want 128", a>>8)
	}
}

// opaqueImage hides the concrete type so the generic conversion path runs.
type opaqueImage struct{ image.Image }

func TestDHashPixelPathsAndSampling(t *testing.T) {
	big := testScreen(1080, 2400, 0) // sampled sparsely
	h := DHash(big)
	rgba := image.NewRGBA(big.Bounds())
	copy(rgba.Pix, big.Pix) // opaque: same bytes premultiplied or not
	if got := DHash(rgba); got != h {
		t.Errorf("RGBA hash %s, NRGBA hash %s", got, h)
	}
	if got := DHash(opaqueImage{big}); got != h {
		t.Errorf("generic path hash %s, want %s", got, h)
	}
	// Sampling agrees with a full read of the same picture.
	if d := Hamming(h, DHash(Resize(big, 360, 800))); d > 3 {
		t.Errorf("sampled 1080x2400 vs full 360x800 distance %d, want ≤ 3", d)
	}

	// Translucent NRGBA is premultiplied like image/draw does.
	tr := testScreen(180, 400, 0)
	for i := 3; i < len(tr.Pix); i += 4 {
		tr.Pix[i] = uint8(i / 4 % 256)
	}
	if got, want := DHash(tr), DHash(opaqueImage{tr}); got != want {
		t.Errorf("translucent NRGBA hash %s, converted %s", got, want)
	}

	// Flat images stay flat whatever the cell sizes, down to 1×1.
	for _, sz := range [][2]int{{1081, 2399}, {7, 5}, {1, 1}, {9, 8}} {
		flat := image.NewRGBA(image.Rect(0, 0, sz[0], sz[1]))
		for i := range flat.Pix {
			flat.Pix[i] = 200
		}
		if got := DHash(flat); got != "0000000000000000" {
			t.Errorf("flat %dx%d hash %s", sz[0], sz[1], got)
		}
	}
	// A tiny gradient still orders its cells.
	tiny := image.NewGray(image.Rect(0, 0, 3, 2))
	for x := 0; x < 3; x++ {
		tiny.SetGray(x, 0, color.Gray{uint8(200 - 50*x)})
		tiny.SetGray(x, 1, color.Gray{uint8(200 - 50*x)})
	}
	if got := DHash(tiny); got == "0000000000000000" {
		t.Error("3x2 falling gradient hashed flat")
	}
}

// TestContentHashSeesSmallChangesDHashMayNot: a switch-sized change must
// change ContentHash (state_delta, settling), while the status bar and
// navigation bar bands are ignored like in DHash.
func TestContentHashSeesSmallChangesDHashMayNot(t *testing.T) {
	base := image.NewNRGBA(image.Rect(0, 0, 1080, 2400))
	for i := range base.Pix {
		base.Pix[i] = 200
	}
	h0 := ContentHash(base)
	if ContentHash(base) != h0 {
		t.Error("ContentHash is not deterministic within a process")
	}

	sw := image.NewNRGBA(base.Rect)
	copy(sw.Pix, base.Pix)
	for y := 1000; y < 1040; y++ { // a 60x40 "switch" moves
		for x := 900; x < 960; x++ {
			sw.Set(x, y, color.NRGBA{0, 150, 136, 255})
		}
	}
	if ContentHash(sw) == h0 {
		t.Error("a 60x40 change in the content area did not change ContentHash")
	}

	clock := image.NewNRGBA(base.Rect)
	copy(clock.Pix, base.Pix)
	clock.Set(50, 30, color.NRGBA{0, 0, 0, 255})    // status bar
	clock.Set(500, 2390, color.NRGBA{0, 0, 0, 255}) // navigation bar
	if ContentHash(clock) != h0 {
		t.Error("a change in the status or navigation bar changed ContentHash")
	}
	// BandsHash reads exactly the rows ContentHash skips: with both, every
	// pixel counts.
	b0 := BandsHash(base)
	if BandsHash(sw) != b0 {
		t.Error("a change in the content area changed BandsHash")
	}
	for _, p := range []image.Point{{50, 30}, {500, 2390}} {
		bar := image.NewNRGBA(base.Rect)
		copy(bar.Pix, base.Pix)
		bar.Set(p.X, p.Y, color.NRGBA{0, 0, 0, 255})
		if BandsHash(bar) == b0 {
			t.Errorf("a change at %v in a bar did not change BandsHash", p)
		}
	}

	rgba := image.NewRGBA(base.Rect)
	copy(rgba.Pix, base.Pix)
	if ContentHash(rgba) != h0 {
		t.Error("the same opaque pixels as *image.RGBA hash differently")
	}
}
