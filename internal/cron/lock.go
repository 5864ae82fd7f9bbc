package cron

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/openpocket/openpocket/internal/atomicfile"
)

// GatewayLock is the content of state/runtime/gateway.lock.json.
type GatewayLock struct {
	PID       int    `json:"pid"`
	StartedAt string `json:"startedAt"`
	Host      string `json:"host"`
}

// GatewayLockPath is state/runtime/gateway.lock.json below stateDir.
func GatewayLockPath(stateDir string) string {
	return filepath.Join(stateDir, "runtime", "gateway.lock.json")
}

// AcquireGatewayLock makes this process the only gateway of a state
// directory. A lock left by a process that no longer exists (on this
// host) is taken over; a live one is an error naming its pid. release
// removes the lock if it is still ours.
func AcquireGatewayLock(stateDir string) (release func(), err error) {
	path := GatewayLockPath(stateDir)
	host, _ := os.Hostname()
	me := GatewayLock{PID: os.Getpid(), StartedAt: isoTime(time.Now()), Host: host}
	data, err := json.MarshalIndent(me, "", "  ")
	if err != nil {
		return nil, err
	}
	data = append(data, '\n')
	for attempt := 0; attempt < 3; attempt++ {
		// Created only if no lock exists; readers never see a half-written
		// lock.
		created, err := atomicfile.WriteNew(path, data, 0o644)
		if err != nil {
			return nil, fmt.Errorf("gateway lock: %w", err)
		}
		if created {
			return func() { releaseLock(path, me.PID) }, nil
		}
		held, readErr := readLock(path)
		if readErr == nil && held.PID > 0 && (held.Host != host || processAlive(held.PID)) {
			// A live lock is never to be removed: only another host's
			// gateway, whose process cannot be checked from here, may be
			// gone.
			if held.Host != host {
				return nil, fmt.Errorf("gateway already running on host %s (pid %d, started %s); stop it there (only if that host's gateway is gone for good, remove %s)",
					held.Host, held.PID, held.StartedAt, path)
			}
			return nil, fmt.Errorf("gateway already running (pid %d, started %s); stop it first (Ctrl-C in its terminal, or `kill %d`); `openpocket cron run` hands jobs to it",
				held.PID, held.StartedAt, held.PID)
		}
		// Dead pid, or an unreadable/empty lock: stale, take it over.
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("gateway lock: remove stale %s: %w", path, err)
		}
	}
	return nil, fmt.Errorf("gateway lock: %s keeps changing; another gateway is starting", path)
}

func readLock(path string) (GatewayLock, error) {
	var l GatewayLock
	data, err := os.ReadFile(path)
	if err != nil {
		return l, err
	}
	err = json.Unmarshal(data, &l)
	return l, err
}

func releaseLock(path string, pid int) {
	if l, err := readLock(path); err == nil && l.PID == pid {
		os.Remove(path)
	}
}

// updateJobsMu serializes UpdateJobs in this process, so two updates (say
// two one-shot jobs disabling themselves at once) cannot both load the old
// file and the later save drop the earlier change.
var updateJobsMu sync.Mutex

// JobsLockPath is the lock file every writer of the jobs file at path
// holds around its read-modify-write: path + ".lock", beside it, so all
// processes using one workspace (the CLI, the gateway, the cron tool)
// share it.
func JobsLockPath(path string) string { return path + ".lock" }

// UpdateJobs loads a jobs file, applies fn and saves it, holding the jobs
// file's lock (JobsLockPath) across all three: concurrent writers in
// other processes wait for each other instead of saving over each other's
// changes.
func UpdateJobs(path string, fn func(*JobsFile) error) error {
	updateJobsMu.Lock()
	defer updateJobsMu.Unlock()
	unlock, err := lockFile(confine(path), JobsLockPath(path))
	if err != nil {
		return fmt.Errorf("jobs file: %w", err)
	}
	defer unlock()
	f, _, err := LoadJobs(path)
	if err != nil {
		return err
	}
	if err := fn(&f); err != nil {
		return err
	}
	return SaveJobs(path, f)
}
