package cron

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/openpocket/openpocket/engine/hostfs"
)

// Run statuses recorded in the state file.
const (
	StatusOK      = "ok"
	StatusFail    = "fail"
	StatusSkipped = "skipped"
)

// JobState is the persisted run state of one job.
type JobState struct {
	// LastAttemptAtMs is when the job was last due (run or skipped).
	LastAttemptAtMs int64 `json:"lastAttemptAtMs,omitempty"`
	// LastRunAtMs is when the job last actually started.
	LastRunAtMs int64  `json:"lastRunAtMs,omitempty"`
	LastStatus  string `json:"lastStatus,omitempty"`
	LastMessage string `json:"lastMessage,omitempty"`
	// NextRunAtMs is the next scheduled run; 0 when none.
	NextRunAtMs int64 `json:"nextRunAtMs,omitempty"`
}

// State is state/cron-state.json.
type State struct {
	Version int                 `json:"version"`
	Jobs    map[string]JobState `json:"jobs"`
}

// LoadState reads a state file; a missing file is an empty state.
func LoadState(path string) (State, error) {
	st := State{Version: 1, Jobs: map[string]JobState{}}
	data, err := hostfs.ReadFile(confine(path), path, maxJobsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read cron state: %w", err)
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return State{Version: 1, Jobs: map[string]JobState{}}, jsonError(path, data, err)
	}
	if st.Jobs == nil {
		st.Jobs = map[string]JobState{}
	}
	st.Version = 1
	return st, nil
}

// SaveState writes a state file atomically.
func SaveState(path string, st State) error {
	if st.Jobs == nil {
		st.Jobs = map[string]JobState{}
	}
	st.Version = 1
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("encode cron state: %w", err)
	}
	if err := hostfs.WriteFile(confine(path), path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("save cron state: %w", err)
	}
	return nil
}
