package main

import (
	"os"
	"runtime/debug"
)

// defaultMemoryLimit is the Go runtime's soft memory limit when GOMEMLIMIT
// is not set. A capture's working set is a few frames (a 1080×2400 frame
// is 10 MiB decoded); with the default GC pacing alone the heap of a
// long-running gateway or MCP server may grow to twice its live size
// between collections, and freed pages go back to the system slowly. The
// limit makes the collector run earlier and return memory sooner as the
// heap nears it. It is soft: a process that needs more still gets it, at
// the cost of more frequent collections. GOMEMLIMIT=… (e.g. 256MiB, or
// "off") overrides it.
const defaultMemoryLimit = 64 << 20

// setMemoryLimit applies defaultMemoryLimit unless GOMEMLIMIT is set (the
// runtime has read it then).
func setMemoryLimit() {
	if _, ok := os.LookupEnv("GOMEMLIMIT"); ok {
		return
	}
	debug.SetMemoryLimit(defaultMemoryLimit)
}
