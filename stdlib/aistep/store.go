package aistep

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine/airesolve"
	"github.com/openpocket/openpocket/engine/hostfs"
	"github.com/openpocket/openpocket/engine/textpos"
)

// storeVersion is the .ai.json format written.
const storeVersion = 1

// maxStoreBytes caps a .ai.json read.
const maxStoreBytes = 4 << 20

// Entry is one resolved AI step of <playbook>.ai.json: meant to be
// committed beside the playbook so CI replays it without a model.
type Entry struct {
	// Kind is tap, assert or extract.
	Kind        string `json:"kind"`
	Description string `json:"description"`
	// Fingerprint is the screen the answer was given on
	// (airesolve.Fingerprint). A tap's locator is reused on any screen
	// where it finds its element; an assert's or extract's answer only on
	// the same screen.
	Fingerprint string             `json:"fingerprint"`
	Selector    *airesolve.Locator `json:"selector,omitempty"`
	Pass        *bool              `json:"pass,omitempty"`
	Reason      string             `json:"reason,omitempty"`
	Value       *string            `json:"value,omitempty"`
	Model       string             `json:"model"`
	ResolvedAt  time.Time          `json:"resolvedAt"`
}

type storeFile struct {
	Version int     `json:"version"`
	Steps   []Entry `json:"steps"`
}

// store is one playbook's .ai.json, read once per run and rewritten
// (atomically, through hostfs under the playbook's directory) after each
// resolution.
type store struct {
	dir, name string

	mu      sync.Mutex
	loaded  bool
	loadErr error
	// refreshing: --ai-refresh (get finds nothing; a broken file is
	// replaced).
	refreshing bool
	entries    []Entry
}

// load reads the file once; a missing file is an empty store, a file that
// does not parse is an error naming it, the line and the column.
func (s *store) load() error {
	if s.loaded {
		return s.loadErr
	}
	s.loaded = true
	b, err := hostfs.ReadFile(s.dir, s.name, maxStoreBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		s.loadErr = fmt.Errorf("%s: %w", s.name, err)
		return s.loadErr
	}
	var f storeFile
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		where := ""
		if off, ok := textpos.JSONSyntaxOffset(b, err); ok {
			l, c := textpos.LineCol(b, off)
			where = fmt.Sprintf(":%d:%d", l, c)
		}
		if s.refreshing {
			return nil
		}
		s.loadErr = fmt.Errorf("%s%s does not parse: %v (expected the JSON object {\"version\": 1, \"steps\": [...]} this runtime writes; delete the file or run with --ai-refresh to resolve again)", s.name, where, err)
		return s.loadErr
	}
	if f.Version != storeVersion && !s.refreshing {
		s.loadErr = fmt.Errorf("%s: version %d, expected %d", s.name, f.Version, storeVersion)
		return s.loadErr
	}
	s.entries = f.Steps
	return nil
}

// get is the entry of kind and description (and, for judgements, the
// screen's fingerprint; "" matches any screen).
func (s *store) get(kind, desc, fp string) (Entry, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refreshing {
		return Entry{}, false, nil
	}
	if err := s.load(); err != nil {
		return Entry{}, false, err
	}
	for _, e := range s.entries {
		if e.Kind == kind && e.Description == desc && (fp == "" || e.Fingerprint == fp) {
			return e, true, nil
		}
	}
	return Entry{}, false, nil
}

// put replaces the entry of the same kind and description (and, for
// judgements, the same screen) and writes the file.
func (s *store) put(e Entry, perScreen bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(); err != nil {
		// A broken file is replaced only when resolving everything again
		// (--ai-refresh), never silently.
		return err
	}
	kept := s.entries[:0]
	for _, o := range s.entries {
		if o.Kind == e.Kind && o.Description == e.Description && (!perScreen || o.Fingerprint == e.Fingerprint) {
			continue
		}
		kept = append(kept, o)
	}
	s.entries = append(kept, e)
	b, err := json.MarshalIndent(storeFile{Version: storeVersion, Steps: s.entries}, "", "  ")
	if err != nil {
		return err
	}
	if err := hostfs.WriteFile(s.dir, s.name, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", s.name, err)
	}
	return nil
}

// refresh makes every step resolve again (--ai-refresh): nothing stored
// is reused, each resolution replaces its entry, and a file that does not
// parse is started afresh.
func (s *store) refresh() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refreshing = true
}
