// Package visual is the Lua module `visual`: screenshot comparison against
// a stored reference with a perceptual tolerance, for the playbook step
// assert_screenshot.
//
//	local visual = require("visual")
//	local ok, err = visual.compare("refs/home.png", {tolerance = 2})
//
// References are read (and, the first time, recorded) through an os.Root
// the host opens at the playbook's directory, so a path cannot leave it.
// The comparison downsamples both images to 8×8-pixel luminance cells,
// skips the status bar (top 7 %, where the clock changes) and counts the
// cells whose luminance moved by more than 10 %; the score is the share of
// such cells in percent. A failing comparison writes the screenshot and a
// diff image (changed cells in red over a dimmed copy) to the run's
// artifacts directory.
package visual

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
)

// Module is the root of the `visual` module.
type Module struct {
	refs *os.Root // where references live (the playbook's directory)
}

var _ lua.Module = (*Module)(nil)

// New returns the module reading references under refs (nil: every
// comparison fails with a clear error).
func New(refs *os.Root) *Module { return &Module{refs: refs} }

// Name implements lua.Module.
func (m *Module) Name() string { return "visual" }

// Open implements lua.Module.
func (m *Module) Open(vm *lua.VM) (lua.LValue, error) {
	return vm.NewModule(map[string]lua.LGFunction{
		// visual.compare(reference, {tolerance, name}) → {score, recorded,
		// diff} or nil, err. tolerance is the share of changed cells in
		// percent (default 1).
		"compare": func(L *lua.LState) int {
			ref := L.CheckString(1)
			opts := L.OptTable(2, L.NewTable())
			tol := 1.0
			if v, ok := opts.RawGetString("tolerance").(lua.LNumber); ok {
				tol = float64(v)
			}
			if tol < 0 || tol > 100 {
				return lua.Raisef(L, "visual.compare: tolerance must be 0..100 (percent), got %g", tol)
			}
			res, err := m.compare(vm, ref, tol)
			if err != nil {
				L.Push(lua.LNil)
				L.Push(lua.LString(err.Error()))
				return 2
			}
			t := L.CreateTable(0, 3)
			t.RawSetString("score", lua.LNumber(res.score))
			t.RawSetString("recorded", lua.LBool(res.recorded))
			L.Push(t)
			return 1
		},
	}), nil
}

type result struct {
	score    float64
	recorded bool
}

func (m *Module) compare(vm *lua.VM, ref string, tol float64) (result, error) {
	sess := stdlib.HostOf(vm).Session()
	if sess == nil {
		return result{}, errors.New("visual.compare: no device session")
	}
	if m.refs == nil {
		return result{}, errors.New("visual.compare: no reference directory (run the playbook with openpocket play)")
	}
	phone, err := sess.Phone()
	if err != nil {
		return result{}, err
	}
	shot, err := phone.Screencap(sess.Context())
	if err != nil {
		return result{}, err
	}
	clean := filepath.Clean(ref)
	want, err := m.refs.ReadFile(clean)
	if errors.Is(err, fs.ErrNotExist) {
		// First run: record the reference, like a snapshot test.
		if err := m.record(clean, shot); err != nil {
			return result{}, fmt.Errorf("visual.compare: recording reference %s: %w", ref, err)
		}
		return result{recorded: true}, nil
	}
	if err != nil {
		return result{}, fmt.Errorf("visual.compare: reference %s: %w", ref, err)
	}
	a, err := png.Decode(bytes.NewReader(want))
	if err != nil {
		return result{}, fmt.Errorf("visual.compare: reference %s is not a PNG: %w", ref, err)
	}
	b, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		return result{}, fmt.Errorf("visual.compare: screenshot is not a PNG: %w", err)
	}
	if a.Bounds().Size() != b.Bounds().Size() {
		return result{}, fmt.Errorf("visual.compare: reference %s is %v, the screen is %v", ref, a.Bounds().Size(), b.Bounds().Size())
	}
	score, changed := Diff(a, b)
	if score <= tol {
		return result{score: score}, nil
	}
	base := strings.TrimSuffix(filepath.Base(clean), filepath.Ext(clean))
	dir := sess.ArtifactsDir()
	msg := fmt.Sprintf("screenshot differs from %s: %.2f %% of the screen changed (tolerance %.2f %%)", ref, score, tol)
	if dir != "" {
		diffPath := filepath.Join(dir, "diff-"+base+".png")
		actualPath := filepath.Join(dir, "actual-"+base+".png")
		var buf bytes.Buffer
		if err := png.Encode(&buf, DiffImage(b, changed)); err == nil && writeFile(diffPath, buf.Bytes(), 0o644) == nil {
			msg += "; diff: " + diffPath
		}
		_ = writeFile(actualPath, shot, 0o644)
	}
	return result{score: score}, errors.New(msg)
}

func (m *Module) record(name string, data []byte) error {
	if dir := filepath.Dir(name); dir != "." {
		if err := m.refs.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := m.refs.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Cell is the side of the comparison grid's square cells, in pixels.
const Cell = 8

// Diff compares two images of the same size: it returns the share of
// grid cells (outside the status bar) whose mean luminance differs by more
// than 10 %, in percent, and the changed cells' rectangles.
func Diff(a, b image.Image) (float64, []image.Rectangle) {
	r := a.Bounds()
	top := r.Min.Y + r.Dy()*7/100
	var changed []image.Rectangle
	total := 0
	for y := top; y < r.Max.Y; y += Cell {
		for x := r.Min.X; x < r.Max.X; x += Cell {
			c := image.Rect(x, y, min(x+Cell, r.Max.X), min(y+Cell, r.Max.Y))
			total++
			if d := luma(a, c) - luma(b, c); d > 0.1 || d < -0.1 {
				changed = append(changed, c)
			}
		}
	}
	if total == 0 {
		return 0, nil
	}
	return 100 * float64(len(changed)) / float64(total), changed
}

// luma is the mean luminance (0..1) of a rectangle.
func luma(img image.Image, r image.Rectangle) float64 {
	var sum float64
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			sum += 0.299*float64(cr) + 0.587*float64(cg) + 0.114*float64(cb)
		}
	}
	return sum / float64(r.Dx()*r.Dy()) / 0xffff
}

// DiffImage is img dimmed to gray with the changed cells painted red.
func DiffImage(img image.Image, changed []image.Rectangle) image.Image {
	r := img.Bounds()
	out := image.NewRGBA(r)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			g := color.GrayModel.Convert(img.At(x, y)).(color.Gray)
			v := 128 + g.Y/2
			out.Set(x, y, color.RGBA{v, v, v, 255})
		}
	}
	red := color.RGBA{230, 30, 30, 255}
	for _, c := range changed {
		for y := c.Min.Y; y < c.Max.Y; y++ {
			for x := c.Min.X; x < c.Max.X; x++ {
				out.Set(x, y, red)
			}
		}
	}
	return out
}

// writeFile writes data to path atomically (temp file + rename).
func writeFile(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".visual-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), perm); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
