package imagecodec

import (
	"image"
	"runtime"
	"sync"
)

// parallelMinPixels is the image size below which splitting the work
// across goroutines costs more than it saves.
const parallelMinPixels = 64 * 1024

// ParallelRows calls do for consecutive bands of [0, n) rows, one band per
// CPU when the job (pixels pixels) is big enough, and waits. The screen
// package's scaling and marks share it.
func ParallelRows(n, pixels int, do func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if pixels < parallelMinPixels || workers < 2 {
		do(0, n)
		return
	}
	var wg sync.WaitGroup
	for i := range workers {
		lo, hi := n*i/workers, n*(i+1)/workers
		wg.Add(1)
		go func() { defer wg.Done(); do(lo, hi) }()
	}
	wg.Wait()
}

// yccPool keeps the JPEG encoder's YCbCr planes between encodings.
var yccPool sync.Pool

func getYCbCr(r image.Rectangle) *image.YCbCr {
	if img, _ := yccPool.Get().(*image.YCbCr); img != nil && img.Rect == r && img.SubsampleRatio == image.YCbCrSubsampleRatio420 {
		return img
	}
	return image.NewYCbCr(r, image.YCbCrSubsampleRatio420)
}

// mul255 is x*a/255 rounded, for premultiplying.
func mul255(x, a uint32) uint32 {
	t := x*a + 128
	return (t + t>>8) >> 8
}
