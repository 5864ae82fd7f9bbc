package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/hostfs"
	"github.com/openpocket/openpocket/internal/atomicfile"
)

// SessionsDir is workspace/sessions.
func (h *Home) SessionsDir() string { return filepath.Join(h.Workspace(), "sessions") }

// Session is one session markdown file being written (docs/formats.md).
type Session struct {
	id   string
	path string
	home *Home

	mu        sync.Mutex
	f         *os.File
	finalized bool
}

var _ engine.SessionLog = (*Session)(nil)

// BeginSession creates workspace/sessions/session-<YYYYMMDD-HHMMSS>.md
// (suffix -2, -3, ... when that second is taken) and writes the header. The
// id and file name use meta.StartedAt in its own location; started_at is
// ISO 8601 UTC.
func (h *Home) BeginSession(meta engine.SessionMeta) (engine.SessionLog, error) {
	return h.beginSession(meta)
}

func (h *Home) beginSession(meta engine.SessionMeta) (*Session, error) {
	started := meta.StartedAt
	if started.IsZero() {
		started = h.Now()
	}
	dir := h.SessionsDir()
	// sessions/ is in the workspace: a link the model planted there (the
	// directory or a file) must not carry the session out.
	root := h.rootFor(dir)
	if err := hostfs.MkdirAll(root, dir, 0o755); err != nil {
		return nil, fmt.Errorf("create sessions directory: %w", err)
	}
	base := started.Format("20060102-150405")
	var (
		f    *os.File
		id   string
		path string
	)
	for n := 1; ; n++ {
		id = base
		if n > 1 {
			id = base + "-" + strconv.Itoa(n)
		}
		path = filepath.Join(dir, "session-"+id+".md")
		var err error
		f, err = hostfs.CreateExcl(root, path, 0o644)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || n > 10000 {
			return nil, fmt.Errorf("create session file: %w", err)
		}
	}
	var b strings.Builder
	b.WriteString("# OpenPocket Session\n\n")
	fmt.Fprintf(&b, "- id: %s\n", id)
	fmt.Fprintf(&b, "- started_at: %s\n", isoTime(started))
	fmt.Fprintf(&b, "- model_profile: %s\n", meta.ModelProfile)
	fmt.Fprintf(&b, "- model_name: %s\n", meta.ModelName)
	b.WriteString("\n## Task\n\n")
	b.WriteString(ensureNewline(meta.Task))
	b.WriteString("\n## Steps\n\n")
	s := &Session{id: id, path: path, home: h, f: f}
	if err := s.write(b.String()); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

// ID is the session id (<YYYYMMDD-HHMMSS>[-N]).
func (s *Session) ID() string { return s.id }

// Path is the session file.
func (s *Session) Path() string { return s.path }

// write appends text and syncs it; on failure (a full disk) the file is
// cut back to its previous end, so it holds only whole blocks.
func (s *Session) write(text string) error {
	if err := atomicfile.Append(s.f, []byte(text)); err != nil {
		return fmt.Errorf("write session %s: %w", s.path, err)
	}
	return nil
}

// AppendStep appends one step block and syncs it to disk.
func (s *Session) AppendStep(r engine.StepRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finalized {
		return fmt.Errorf("session %s: append step %d: session already finalized", s.id, r.Step)
	}
	at := r.At
	if at.IsZero() {
		at = s.home.Now()
	}
	thought := r.Thought
	if strings.TrimSpace(thought) == "" {
		thought = "(empty)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### Step %d\n\n", r.Step)
	fmt.Fprintf(&b, "- at: %s\n", isoTime(at))
	b.WriteString("- thought:\n")
	fenced(&b, "text", thought)
	b.WriteString("- action:\n")
	fenced(&b, "json", actionJSON(r.ActionJSON))
	b.WriteString("- execution_result:\n")
	fenced(&b, "text", r.Result)
	b.WriteString("\n")
	return s.write(b.String())
}

// Finalize writes the final block once; later calls are no-ops.
func (s *Session) Finalize(success bool, message string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finalized {
		return nil
	}
	s.finalized = true
	status := "FAILED"
	if success {
		status = "SUCCESS"
	}
	var b strings.Builder
	b.WriteString("## Final\n\n")
	fmt.Fprintf(&b, "- status: %s\n", status)
	fmt.Fprintf(&b, "- ended_at: %s\n", isoTime(s.home.Now()))
	b.WriteString("\n### Message\n\n")
	b.WriteString(ensureNewline(message))
	err := s.write(b.String())
	if cerr := s.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close session %s: %w", s.path, cerr)
	}
	return err
}

// actionJSON pretty-prints the action with two-space indentation (as
// JSON.stringify(action, null, 2) does); invalid JSON is kept verbatim.
func actionJSON(raw []byte) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "{}"
	}
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSpace(raw), "", "  "); err != nil {
		return string(raw)
	}
	return out.String()
}

// fenced writes a fenced code block whose fence is longer than any run of
// backticks inside text, so the text cannot close it early.
func fenced(b *strings.Builder, lang, text string) {
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	b.WriteString(fence)
	b.WriteString(lang)
	b.WriteString("\n")
	b.WriteString(ensureNewline(text))
	b.WriteString(fence)
	b.WriteString("\n")
}

func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

func ensureNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// SessionFiles lists the session files in dir, newest first. Ids are
// "YYYYMMDD-HHMMSS" with "-N" appended for later sessions of the same
// second, so plain string order would put "…-2" before its own first
// session; this orders by the timestamp, then by N.
func SessionFiles(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "session-*.md"))
	if err != nil {
		return nil, err
	}
	sort.SliceStable(files, func(i, j int) bool {
		bi, ni := sessionOrder(files[i])
		bj, nj := sessionOrder(files[j])
		if bi != bj {
			return bi > bj
		}
		return ni > nj
	})
	return files, nil
}

// sessionOrder splits a session file name into its timestamp and its
// same-second counter (1 when absent).
func sessionOrder(path string) (string, int) {
	id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "session-"), ".md")
	if i := strings.LastIndexByte(id, '-'); i > len("20060102") {
		if n, err := strconv.Atoi(id[i+1:]); err == nil {
			return id[:i], n
		}
	}
	return id, 1
}
