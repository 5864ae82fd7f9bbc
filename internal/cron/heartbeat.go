package cron

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/openpocket/openpocket/engine/hostfs"
)

// HeartbeatStatus is what the gateway is doing right now.
type HeartbeatStatus struct {
	Busy        bool
	CurrentTask string
	// TaskStartedAt is when the current task started (zero when idle).
	TaskStartedAt time.Time
	Device        string
	// Fleet is "" outside a fleet, else "ok" or "paused" (the fleet's
	// coordinator is unreachable: fleet jobs wait for it).
	Fleet string
}

// HeartbeatLine is one JSON line of state/heartbeat.log: ours (at,
// currentTask, taskRuntimeSec, device) and upstream's heartbeat-runner
// fields (ts in Unix milliseconds, busy, task and runtimeSec null when
// idle, devices and bootedDevices), so tools written for either read it.
type HeartbeatLine struct {
	At             string `json:"at"`
	Busy           bool   `json:"busy"`
	CurrentTask    string `json:"currentTask"`
	TaskRuntimeSec int64  `json:"taskRuntimeSec"`
	Device         string `json:"device"`

	TS         int64   `json:"ts"`
	Task       *string `json:"task"`
	RuntimeSec *int64  `json:"runtimeSec"`
	// Devices counts the devices the adb server lists; BootedDevices those
	// online (state "device"). Both 0 when the count failed.
	Devices       int `json:"devices"`
	BootedDevices int `json:"bootedDevices"`
	// Fleet is HeartbeatStatus.Fleet (absent outside a fleet).
	Fleet string `json:"fleet,omitempty"`
}

// HeartbeatOptions configures a Heartbeat. Zero values get defaults.
type HeartbeatOptions struct {
	// Every is the interval between lines (config heartbeat.everySec;
	// default 30 s).
	Every time.Duration
	// StuckWarn is the task runtime after which a warning is logged once
	// per task (config heartbeat.stuckTaskWarnSec; default 600 s; < 0
	// disables).
	StuckWarn time.Duration
	Clock     clockwork.Clock
	Logger    *slog.Logger
	// OnStuck, if set, is called once per task that runs too long.
	OnStuck func(HeartbeatStatus, time.Duration)
	// KeepAwake, if set, is called on every beat while a task runs, so the
	// gateway can keep the task's device screen on (upstream's gateway does
	// the same); an error is logged, never fatal.
	KeepAwake func(HeartbeatStatus) error
	// Devices, if set, counts the attached devices and those online for
	// the line (an error leaves both 0 and is logged).
	Devices func() (all, online int, err error)
	// MaxBytes rotates heartbeat.log to heartbeat.log.1 when it grows
	// beyond this size (default 5 MiB).
	MaxBytes int64
}

// Heartbeat appends liveness lines to a log file.
type Heartbeat struct {
	path   string
	status func() HeartbeatStatus
	opts   HeartbeatOptions

	mu          sync.Mutex
	warnedStart time.Time
	warnedTask  string
}

// NewHeartbeat creates a heartbeat writing to path (state/heartbeat.log)
// with the status reported by status.
func NewHeartbeat(path string, status func() HeartbeatStatus, opts HeartbeatOptions) *Heartbeat {
	if opts.Every <= 0 {
		opts.Every = 30 * time.Second
	}
	if opts.StuckWarn == 0 {
		opts.StuckWarn = 600 * time.Second
	}
	if opts.Clock == nil {
		opts.Clock = clockwork.NewRealClock()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 5 << 20
	}
	return &Heartbeat{path: path, status: status, opts: opts}
}

// StatusFunc reports the scheduler's oldest running job as heartbeat
// status.
func (s *Scheduler) StatusFunc() func() HeartbeatStatus {
	return func() HeartbeatStatus {
		fleet := ""
		if s.opts.Fleet != nil {
			fleet = "ok"
			if s.FleetPaused() {
				fleet = "paused"
			}
		}
		runs := s.Running()
		if len(runs) == 0 {
			return HeartbeatStatus{Device: s.opts.DefaultDevice, Fleet: fleet}
		}
		r := runs[0]
		return HeartbeatStatus{Busy: true, CurrentTask: r.Task, TaskStartedAt: r.StartedAt, Device: r.Device, Fleet: fleet}
	}
}

// Run writes a line every interval until ctx ends.
func (h *Heartbeat) Run(ctx context.Context) error {
	t := h.opts.Clock.NewTicker(h.opts.Every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.Chan():
			if err := h.Beat(); err != nil {
				h.opts.Logger.Error("heartbeat not written", "err", err)
			}
		}
	}
}

// Beat writes one line now and warns once if the task runs too long.
func (h *Heartbeat) Beat() error {
	now := h.opts.Clock.Now()
	st := h.status()
	var runtime time.Duration
	if st.Busy && !st.TaskStartedAt.IsZero() {
		runtime = now.Sub(st.TaskStartedAt)
	}
	line := HeartbeatLine{
		At:             now.UTC().Format("2006-01-02T15:04:05.000Z"),
		Busy:           st.Busy,
		CurrentTask:    st.CurrentTask,
		TaskRuntimeSec: int64(runtime / time.Second),
		Device:         st.Device,
		TS:             now.UnixMilli(),
		Fleet:          st.Fleet,
	}
	if st.Busy {
		task, sec := st.CurrentTask, int64(runtime/time.Second)
		line.Task, line.RuntimeSec = &task, &sec
	}
	if h.opts.Devices != nil {
		all, online, err := h.opts.Devices()
		if err != nil {
			h.opts.Logger.Warn("heartbeat: devices not counted", "err", err)
		} else {
			line.Devices, line.BootedDevices = all, online
		}
	}
	h.checkStuck(st, runtime)
	data, err := json.Marshal(line)
	if err != nil {
		return err
	}
	if err := h.append(append(data, '\n')); err != nil {
		return err
	}
	// After the line: a slow device never delays the liveness record.
	if st.Busy && h.opts.KeepAwake != nil {
		if err := h.opts.KeepAwake(st); err != nil {
			h.opts.Logger.Warn("keep-awake failed", "device", st.Device, "err", err)
		}
	}
	return nil
}

func (h *Heartbeat) checkStuck(st HeartbeatStatus, runtime time.Duration) {
	if !st.Busy || h.opts.StuckWarn < 0 || runtime < h.opts.StuckWarn {
		return
	}
	h.mu.Lock()
	already := h.warnedTask == st.CurrentTask && h.warnedStart.Equal(st.TaskStartedAt)
	h.warnedTask, h.warnedStart = st.CurrentTask, st.TaskStartedAt
	h.mu.Unlock()
	if already {
		return
	}
	h.opts.Logger.Warn("task is taking long", "task", st.CurrentTask, "device", st.Device,
		"runtimeSec", int64(runtime/time.Second), "warnAfterSec", int64(h.opts.StuckWarn/time.Second))
	if h.opts.OnStuck != nil {
		h.opts.OnStuck(st, runtime)
	}
}

func (h *Heartbeat) append(line []byte) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	root := confine(h.path)
	if info, err := hostfs.Lstat(root, h.path); err == nil && info.Size()+int64(len(line)) > h.opts.MaxBytes {
		if err := hostfs.Rename(root, h.path, h.path+".1"); err != nil {
			return fmt.Errorf("heartbeat: rotate %s: %w", h.path, err)
		}
	}
	f, err := hostfs.OpenAppend(root, h.path, 0o644)
	if err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return fmt.Errorf("heartbeat: write %s: %w", h.path, err)
	}
	return f.Close()
}
