package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/hostfs"
	"github.com/openpocket/openpocket/internal/atomicfile"
)

// EnvHome names the environment variable that selects OPENPOCKET_HOME.
const EnvHome = "OPENPOCKET_HOME"

// Home is an opened OPENPOCKET_HOME. It implements engine.Workspace.
type Home struct {
	dir      string
	cfg      Config
	warnings []Warning

	// Now returns the current time (ended_at of sessions, bootstrap
	// timestamps). Tests may replace it before use.
	Now func() time.Time

	memMu  sync.Mutex // serializes daily memory appends
	shotMu sync.Mutex // serializes screenshot retention
}

var _ engine.Workspace = (*Home)(nil)

// ResolveHome returns the home directory to use: dir if set, else
// $OPENPOCKET_HOME, else ~/.openpocket.
func ResolveHome(dir string) (string, error) {
	if dir == "" {
		dir = os.Getenv(EnvHome)
	}
	if dir == "" {
		userHome, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find home directory for ~/.openpocket (set %s): %w", EnvHome, err)
		}
		dir = filepath.Join(userHome, ".openpocket")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", dir, err)
	}
	return abs, nil
}

// Open opens (and on first use creates) an OPENPOCKET_HOME: workspace/
// with its subdirectories and workspace-state.json, and state/. It never
// writes config.json: a home without one runs on DefaultConfig until
// `openpocket init` (or SaveConfig) writes it, so an ordinary first command
// does not leave behind a config that init then refuses to replace. A
// malformed config is an error naming line and column.
func Open(home string) (*Home, error) {
	dir, err := ResolveHome(home)
	if err != nil {
		return nil, err
	}
	h := &Home{dir: dir, Now: time.Now}
	for _, d := range []string{
		dir,
		h.State(),
		h.Workspace(),
		filepath.Join(h.Workspace(), ".openpocket"),
		filepath.Join(h.Workspace(), "memory"),
		filepath.Join(h.Workspace(), "sessions"),
		filepath.Join(h.Workspace(), "skills"),
		filepath.Join(h.Workspace(), "scripts"),
		filepath.Join(h.Workspace(), "cron"),
	} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", d, err)
		}
	}
	cfg, warnings, err := h.LoadConfigFile()
	if err != nil {
		return nil, err
	}
	h.cfg, h.warnings = cfg, warnings
	if err := h.ensureWorkspaceState(); err != nil {
		return nil, err
	}
	if err := h.ensureStarter(); err != nil {
		return nil, err
	}
	return h, nil
}

// LoadConfigFile reads config.json as it is now; a home without one has
// DefaultConfig (nothing is written).
func (h *Home) LoadConfigFile() (Config, []Warning, error) {
	if _, err := os.Stat(h.ConfigPath()); errors.Is(err, fs.ErrNotExist) {
		return DefaultConfig(), nil, nil
	} else if err != nil {
		return DefaultConfig(), nil, fmt.Errorf("stat %s: %w", h.ConfigPath(), err)
	}
	return LoadConfigWarnings(h.ConfigPath())
}

// IsUnedited reports whether the config file at path says nothing but the
// defaults (as a first command of an earlier version wrote it): replacing
// it loses nothing, so init may do so without --force.
func IsUnedited(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	cfg, warnings, err := ParseConfig(path, data)
	return err == nil && len(warnings) == 0 && reflect.DeepEqual(cfg, DefaultConfig())
}

// Dir is OPENPOCKET_HOME.
func (h *Home) Dir() string { return h.dir }

// Workspace is OPENPOCKET_HOME/workspace.
func (h *Home) Workspace() string { return filepath.Join(h.dir, "workspace") }

// Root implements engine.Workspace; it is Workspace().
func (h *Home) Root() string { return h.Workspace() }

// State is OPENPOCKET_HOME/state.
func (h *Home) State() string { return filepath.Join(h.dir, "state") }

// ConfigPath is OPENPOCKET_HOME/config.json.
func (h *Home) ConfigPath() string { return filepath.Join(h.dir, "config.json") }

// Config returns the loaded configuration.
func (h *Home) Config() Config { return h.cfg }

// Warnings returns the warnings from loading config.json (unknown keys).
func (h *Home) Warnings() []Warning { return h.warnings }

// Resolve makes a configured path absolute: absolute paths stay, `~` and
// `~/…` are the user's home (as upstream expands them: its example config
// writes "~/.openpocket/…"), other relative ones are relative to
// OPENPOCKET_HOME.
func (h *Home) Resolve(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil && home != "" {
			return filepath.Join(home, p[1:])
		}
	}
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(h.dir, p)
}

// JobsPath is the cron jobs file (cron.jobsFile).
func (h *Home) JobsPath() string { return h.Resolve(h.cfg.Cron.JobsFile) }

// SaveConfig validates cfg and writes it atomically to config.json.
func (h *Home) SaveConfig(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	data, err := MarshalConfig(cfg)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(h.ConfigPath(), data, 0o600); err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	h.cfg = cfg
	return nil
}

// WorkspaceState is workspace/.openpocket/workspace-state.json (docs/formats.md).
type WorkspaceState struct {
	Version               int     `json:"version"`
	BootstrapSeededAt     string  `json:"bootstrapSeededAt"`
	OnboardingCompletedAt *string `json:"onboardingCompletedAt"`
}

// WorkspaceStatePath is workspace/.openpocket/workspace-state.json.
func (h *Home) WorkspaceStatePath() string {
	return filepath.Join(h.Workspace(), ".openpocket", "workspace-state.json")
}

func (h *Home) ensureWorkspaceState() error {
	if _, err := hostfs.Lstat(h.Workspace(), h.WorkspaceStatePath()); err != nil {
		st := WorkspaceState{Version: 1, BootstrapSeededAt: isoTime(h.Now())}
		data, err := json.MarshalIndent(st, "", "  ")
		if err != nil {
			return err
		}
		if _, err := hostfs.WriteNew(h.Workspace(), h.WorkspaceStatePath(), append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	return h.checkBootstrap()
}

// checkBootstrap completes onboarding once BOOTSTRAP.md, seen earlier, is
// gone (upstream's workspace bootstrap does this at every start). The
// marker records that the file was seen, so a workspace that never had one
// is not taken as onboarded.
func (h *Home) checkBootstrap() error {
	seen := filepath.Join(h.Workspace(), ".openpocket", "bootstrap-seen")
	if st, err := hostfs.Lstat(h.Workspace(), filepath.Join(h.Workspace(), "BOOTSTRAP.md")); err == nil && st.Mode().IsRegular() {
		if _, err := hostfs.Lstat(h.Workspace(), seen); err == nil {
			return nil
		}
		_, err := hostfs.WriteNew(h.Workspace(), seen, []byte(isoTime(h.Now())+"\n"), 0o644)
		return err
	}
	if _, err := hostfs.Lstat(h.Workspace(), seen); err != nil {
		return nil
	}
	st, err := h.ReadWorkspaceState()
	if err != nil || st.OnboardingCompletedAt != nil {
		return nil // an unreadable state is reported where it is read
	}
	return h.MarkOnboardingCompleted(h.Now())
}

// ReadWorkspaceState reads workspace-state.json.
func (h *Home) ReadWorkspaceState() (WorkspaceState, error) {
	var st WorkspaceState
	data, err := hostfs.ReadFile(h.Workspace(), h.WorkspaceStatePath(), maxHostRead)
	if err != nil {
		return st, fmt.Errorf("read workspace state: %w", err)
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return st, positionError(h.WorkspaceStatePath(), data, err, nil)
	}
	return st, nil
}

// MarkOnboardingCompleted sets onboardingCompletedAt.
func (h *Home) MarkOnboardingCompleted(at time.Time) error {
	st, err := h.ReadWorkspaceState()
	if err != nil {
		return err
	}
	s := isoTime(at)
	st.OnboardingCompletedAt = &s
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return hostfs.WriteFile(h.Workspace(), h.WorkspaceStatePath(), append(data, '\n'), 0o644)
}

// isoTime formats like JavaScript's Date.toISOString: UTC, milliseconds.
func isoTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}
