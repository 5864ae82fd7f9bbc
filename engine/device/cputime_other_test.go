//go:build !unix

package device

import "time"

// processCPU is not measured here; the CPU metric then reads 0.
func processCPU() time.Duration { return 0 }
