package agent

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/openpocket/openpocket/engine"
)

// tornWriter writes half of each write, then fails like a full disk.
type tornWriter struct{ *os.File }

func (f tornWriter) Write(p []byte) (int, error) {
	n, _ := f.File.Write(p[:len(p)/2])
	return n, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
}

// TestAppendTraceOnAFullDiskKeepsWholeLines: the failed step is reported,
// and the trace keeps the steps before it readable, with nothing torn
// between them and the next step.
func TestAppendTraceOnAFullDiskKeepsWholeLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session-1.trace.jsonl")
	if err := AppendTrace(path, engine.TraceStep{Step: 1, Result: "ok"}); err != nil {
		t.Fatal(err)
	}
	real := openTrace
	openTrace = func(root, p string) (traceFile, error) {
		f, err := real(root, p)
		if err != nil {
			return nil, err
		}
		return tornWriter{f.(*os.File)}, nil
	}
	err := AppendTrace(path, engine.TraceStep{Step: 2, Result: "a result long enough to be torn in half"})
	openTrace = real
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err = %v, want ENOSPC", err)
	}
	if want := path + ": step 2 not saved: "; len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
		t.Fatalf("err = %q, want it to start %q", err, want)
	}
	if err := AppendTrace(path, engine.TraceStep{Step: 3, Result: "ok"}); err != nil {
		t.Fatal(err)
	}
	steps, err := ReadTrace(path)
	if err != nil {
		t.Fatalf("trace unreadable after a failed write: %v", err)
	}
	if len(steps) != 2 || steps[0].Step != 1 || steps[1].Step != 3 {
		t.Fatalf("steps = %+v, want steps 1 and 3", steps)
	}
}
