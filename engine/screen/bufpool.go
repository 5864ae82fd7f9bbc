package screen

import (
	"image"
	"sync"
)

// rgbaPools keep pixel buffers between frames, one pool per size: a
// capture draws the set-of-mark overlay into a buffer the previous capture
// gave back instead of allocating a copy of the screenshot per frame (the
// garbage a long-running gateway's heap would otherwise grow by).
var (
	rgbaMu    sync.Mutex
	rgbaPools = map[image.Point]*sync.Pool{}
)

func rgbaPool(size image.Point) *sync.Pool {
	rgbaMu.Lock()
	defer rgbaMu.Unlock()
	p := rgbaPools[size]
	if p == nil {
		if len(rgbaPools) >= 8 { // sizes come and go with rotations and resizes
			clear(rgbaPools)
		}
		p = &sync.Pool{}
		rgbaPools[size] = p
	}
	return p
}

// GetRGBA returns a packed *image.RGBA with bounds r, reused from PutRGBA
// when one of that size is at hand. Its pixels are not cleared: callers
// overwrite all of them.
func GetRGBA(r image.Rectangle) *image.RGBA {
	if img, _ := rgbaPool(r.Size()).Get().(*image.RGBA); img != nil && img.Stride == 4*r.Dx() && len(img.Pix) == 4*r.Dx()*r.Dy() {
		img.Rect = r
		return img
	}
	return image.NewRGBA(r)
}

// PutRGBA gives img back for reuse. The caller must hold no reference to
// it (or to images sharing its pixels) afterwards.
func PutRGBA(img *image.RGBA) {
	if img != nil && len(img.Pix) > 0 && img.Stride == 4*img.Rect.Dx() {
		rgbaPool(img.Rect.Size()).Put(img)
	}
}
