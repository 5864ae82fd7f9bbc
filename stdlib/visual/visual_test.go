package visual

import (
	"image"
	"image/color"
	"image/draw"
	"testing"

	"github.com/stretchr/testify/assert"
)

func solid(w, h int, c color.Color) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(c), image.Point{}, draw.Src)
	return img
}

func TestDiffCountsChangedCellsBelowTheStatusBar(t *testing.T) {
	a := solid(80, 100, color.White)
	b := solid(80, 100, color.White)
	score, changed := Diff(a, b)
	assert.Zero(t, score)
	assert.Empty(t, changed)

	// The status bar (top 7 %) is ignored: a clock changing there is no diff.
	draw.Draw(b, image.Rect(0, 0, 80, 6), image.NewUniform(color.Black), image.Point{}, draw.Src)
	score, _ = Diff(a, b)
	assert.Zero(t, score)

	// One grid cell turned black (the grid starts below the bar, at y=7):
	// 1 of 10×12 cells changed.
	draw.Draw(b, image.Rect(40, 39, 48, 47), image.NewUniform(color.Black), image.Point{}, draw.Src)
	score, changed = Diff(a, b)
	assert.InDelta(t, 100.0/float64(10*12), score, 0.01)
	assert.Equal(t, []image.Rectangle{image.Rect(40, 39, 48, 47)}, changed)

	// Antialiasing-level noise (under 10 % luminance) is tolerated.
	c := solid(80, 100, color.Gray{Y: 240})
	score, _ = Diff(a, c)
	assert.Zero(t, score)

	out := DiffImage(b, changed)
	assert.Equal(t, color.RGBA{230, 30, 30, 255}, out.At(changed[0].Min.X, changed[0].Min.Y))
	r, g, bl, _ := out.At(0, 99).RGBA()
	assert.Equal(t, r, g)
	assert.Equal(t, g, bl, "unchanged parts are gray")
}
