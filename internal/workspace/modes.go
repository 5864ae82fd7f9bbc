package workspace

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/openpocket/openpocket/internal/atomicfile"
)

// ModeStore remembers per model profile which endpoint mode ("chat",
// "responses", ...) last worked, persisted in state/model-modes.json.
type ModeStore struct {
	path  string
	mu    sync.Mutex
	modes map[string]string
}

type modesFile struct {
	Version int               `json:"version"`
	Modes   map[string]string `json:"modes"`
}

// ModeStore opens state/model-modes.json.
func (h *Home) ModeStore() (*ModeStore, error) {
	return OpenModeStore(filepath.Join(h.State(), "model-modes.json"))
}

// OpenModeStore loads a mode store; a missing file is an empty store.
func OpenModeStore(path string) (*ModeStore, error) {
	m := &ModeStore{path: path, modes: map[string]string{}}
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read model modes: %w", err)
	}
	var f modesFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, positionError(path, data, err, nil)
	}
	for k, v := range f.Modes {
		m.modes[k] = v
	}
	return m, nil
}

// Get returns the remembered mode of a profile, or "".
func (m *ModeStore) Get(profile string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.modes[profile]
}

// Set remembers a profile's mode and writes the file atomically (only when
// the mode changed).
func (m *ModeStore) Set(profile, mode string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.modes[profile] == mode {
		return nil
	}
	m.modes[profile] = mode
	data, err := json.MarshalIndent(modesFile{Version: 1, Modes: m.modes}, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(m.path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("save model modes: %w", err)
	}
	return nil
}
