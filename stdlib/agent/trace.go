package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/hostfs"
)

// TracePath is the trace file of a session markdown file:
// sessions/session-<id>.md → sessions/session-<id>.trace.jsonl.
func TracePath(sessionPath string) string {
	return strings.TrimSuffix(sessionPath, ".md") + ".trace.jsonl"
}

// traceFile is what AppendTrace needs of the trace file.
type traceFile interface {
	Write([]byte) (int, error)
	Sync() error
	Truncate(int64) error
	Stat() (os.FileInfo, error)
	Close() error
}

// openTrace opens a trace file under root for appending (through hostfs:
// the trace lives in the workspace, where the model may have swapped it or
// sessions/ for a link out, or a FIFO); tests inject failures.
var openTrace = func(root, path string) (traceFile, error) {
	return hostfs.OpenAppend(root, path, 0o644)
}

// maxTraceBytes caps ReadTrace.
const maxTraceBytes = 256 << 20

// AppendTrace appends one step to a trace file confined to its own
// directory; see AppendTraceIn.
func AppendTrace(path string, st engine.TraceStep) error {
	return AppendTraceIn(filepath.Dir(path), path, st)
}

// AppendTraceIn appends one step as a JSON line to a trace file inside
// root (created on first use) and syncs it, so a crash keeps every
// completed step. A failed write (a full disk) is cut back, so the file
// keeps only whole lines and the error says the step was not traced.
func AppendTraceIn(root, path string, st engine.TraceStep) error {
	line, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("trace step %d: %w", st.Step, err)
	}
	line = append(line, '\n')
	f, err := openTrace(root, path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	_, err = f.Write(line)
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		if terr := f.Truncate(info.Size()); terr != nil {
			return fmt.Errorf("%s: step %d not saved: %w (and its partial line could not be removed: %v)", path, st.Step, err, terr)
		}
		return fmt.Errorf("%s: step %d not saved: %w", path, st.Step, err)
	}
	return f.Close()
}

// ReadTrace reads a trace file written by AppendTrace. A torn last line (a
// crash in the middle of a write) is ignored; any other bad line is an
// error naming its line number.
func ReadTrace(path string) ([]engine.TraceStep, error) {
	data, err := hostfs.ReadFile(filepath.Dir(path), path, maxTraceBytes)
	if err != nil {
		return nil, err
	}
	var out []engine.TraceStep
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 64<<20)
	n := 0
	complete := len(data) > 0 && data[len(data)-1] == '\n'
	lines := bytes.Count(data, []byte("\n"))
	for sc.Scan() {
		n++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var st engine.TraceStep
		if err := json.Unmarshal(b, &st); err != nil {
			if !complete && n == lines+1 {
				break // torn final line
			}
			return out, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, st)
	}
	return out, sc.Err()
}
