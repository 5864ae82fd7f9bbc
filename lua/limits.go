package lua

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// DefaultMaxMemoryBytes is the default Options.MaxMemoryBytes.
const DefaultMaxMemoryBytes = 64 << 20

// MemoryError is the cause of a run stopped by Options.MaxMemoryBytes.
type MemoryError struct {
	Limit int64 // bytes
	Used  int64 // heap growth measured after a collection
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("memory limit exceeded: the script grew the heap by %d MiB, the limit is %d MiB (lua Options.MaxMemoryBytes)", e.Used>>20, e.Limit>>20)
}

// The memory watchdog. gopher-lua allocates straight from the Go heap, so
// no allocation hook exists for concatenation or table growth; instead one
// goroutine samples the heap every memoryPoll while VMs run and, when the
// heap has grown past a VM's limit since that VM started, collects garbage
// and measures again before stopping the VM through its context. The
// measure is process-wide: several VMs in one process share the heap and
// nothing attributes growth to one of them, so the heap may grow by the sum
// of the limits of the VMs running together (two agent runs in one gateway
// each within their limit must not stop each other); past that sum, the
// VMs older than the growth are stopped.
const memoryPoll = 2 * time.Millisecond

type memWatch struct {
	baseline int64
	limit    int64
	stop     func(error)
}

var watchdog struct {
	mu      sync.Mutex
	vms     map[*memWatch]struct{}
	running bool
}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

func heapBytes() int64 {
	s := make([]metrics.Sample, 1)
	s[0].Name = heapSample[0].Name
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// watchMemory registers a VM with limit bytes; the returned function
// unregisters it.
func watchMemory(limit int64, stop func(error)) func() {
	w := &memWatch{baseline: heapBytes(), limit: limit, stop: stop}
	watchdog.mu.Lock()
	if watchdog.vms == nil {
		watchdog.vms = map[*memWatch]struct{}{}
	}
	watchdog.vms[w] = struct{}{}
	if !watchdog.running {
		watchdog.running = true
		go pollMemory()
	}
	watchdog.mu.Unlock()
	return func() {
		watchdog.mu.Lock()
		delete(watchdog.vms, w)
		watchdog.mu.Unlock()
	}
}

func pollMemory() {
	t := time.NewTicker(memoryPoll)
	defer t.Stop()
	for range t.C {
		watchdog.mu.Lock()
		if len(watchdog.vms) == 0 {
			watchdog.running = false
			watchdog.mu.Unlock()
			return
		}
		ws := make([]*memWatch, 0, len(watchdog.vms))
		for w := range watchdog.vms {
			ws = append(ws, w)
		}
		watchdog.mu.Unlock()
		checkMemory(ws)
	}
}

// checkMemory stops the VMs whose growth is over their limit. The heap
// sample counts garbage too, but the collector keeps garbage below the live
// heap (GOGC=100), so half the sample is a floor of what is live: past the
// limit even by that floor, a VM stops at once; in between, a collection
// decides.
func checkMemory(ws []*memWatch) {
	var budget int64
	for _, w := range ws {
		budget += w.limit
	}
	heap := heapBytes()
	uncertain := false
	for _, w := range ws {
		switch {
		case heap/2-w.baseline > budget:
			w.stop(&MemoryError{Limit: w.limit, Used: heap/2 - w.baseline})
		case heap-w.baseline > budget:
			uncertain = true
		}
	}
	if !uncertain {
		return
	}
	runtime.GC() // what is left now is live
	heap = heapBytes()
	for _, w := range ws {
		if used := heap - w.baseline; used > budget {
			w.stop(&MemoryError{Limit: w.limit, Used: used})
		} else if w.baseline > heap {
			w.baseline = heap // the process shrank below where it started
		}
	}
}

// LimitError is the cause of a run stopped by a structural limit.
type LimitError struct {
	Limit string // what was exceeded, e.g. "tail calls"
	Max   int
	Text  string // the whole message, when the default does not fit
}

func (e *LimitError) Error() string {
	if e.Text != "" {
		return e.Text
	}
	return fmt.Sprintf("%s limit exceeded: more than %d", e.Limit, e.Max)
}
