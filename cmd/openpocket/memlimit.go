package main

import (
	"os"
	"runtime/debug"
)

// defaultMemoryLimit is the Go runtime's soft memory limit when GOMEMLIMIT
// is not set. A capture's working set is a few frames (a 1080×2400 frame
// is 10 MiB raw, its model-size image 5 MiB); with the default GC pacing
// alone the heap of a long-running gateway or MCP server grows to twice
// its live size between collections (20 snapshots added ~80 MiB of peak
// RSS), and freed pages go back to the system slowly. The limit makes the
// collector run earlier and return memory sooner as the heap nears it;
// collecting is cheap here, the frames are pointer-free. It is soft: a
// process that needs more (a tablet's frames, a big script) still gets
// it, collecting more often. GOMEMLIMIT (e.g. GOMEMLIMIT=256MiB, or off)
// overrides it.
const defaultMemoryLimit = 40 << 20

// setMemoryLimit applies defaultMemoryLimit unless GOMEMLIMIT is set (the
// runtime has read it then).
func setMemoryLimit() {
	if _, ok := os.LookupEnv("GOMEMLIMIT"); ok {
		return
	}
	debug.SetMemoryLimit(defaultMemoryLimit)
}
