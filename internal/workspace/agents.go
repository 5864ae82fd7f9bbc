package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine/textpos"
	"github.com/openpocket/openpocket/internal/atomicfile"
)

// One install hosts the default agent and any number of managed agents
// (docs/agents.md). The default agent is the install directory itself, laid out
// exactly as a single-agent OPENPOCKET_HOME always was; a managed agent is
// a complete home of its own below the install:
//
//	INSTALL/                       default agent: config.json, workspace/, state/
//	INSTALL/agents/ID/agent.json   managed agent ID: who made it, from what
//	INSTALL/agents/ID/config.json  … its own config, workspace/ and state/
//	INSTALL/state/targets/ID.json  target binding of agent ID (see targets.go)
//
// So sessions, memory, skills, cron jobs, the gateway lock and heartbeat of
// an agent never mix with another's: they live in its own home.

// DefaultAgent is the id of the install's own home.
const DefaultAgent = "default"

// EnvAgent names the environment variable that selects an agent.
const EnvAgent = "OPENPOCKET_AGENT"

// agentIDPattern keeps ids usable as directory names and URL path
// segments (/a/ID/…) on every host of a fleet.
var agentIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,39}$`)

// ValidateAgentID reports whether id can name an agent.
func ValidateAgentID(id string) error {
	if !agentIDPattern.MatchString(id) {
		return fmt.Errorf("agent id %q: expected 1-40 characters, lowercase letters, digits, '-' or '_', starting with a letter or digit", id)
	}
	return nil
}

// Install is one OpenPocket install: the default agent's home plus the
// managed agents below it.
type Install struct {
	dir string
}

// OpenInstall resolves the install directory like ResolveHome (dir, else
// $OPENPOCKET_HOME, else ~/.openpocket). Nothing is created.
func OpenInstall(dir string) (*Install, error) {
	d, err := ResolveHome(dir)
	if err != nil {
		return nil, err
	}
	return &Install{dir: d}, nil
}

// Dir is the install directory (the default agent's home).
func (in *Install) Dir() string { return in.dir }

// AgentsDir is INSTALL/agents.
func (in *Install) AgentsDir() string { return filepath.Join(in.dir, "agents") }

// TargetsDir is INSTALL/state/targets, where bindings are recorded.
func (in *Install) TargetsDir() string { return filepath.Join(in.dir, "state", "targets") }

// AgentDir is the home directory of agent id.
func (in *Install) AgentDir(id string) (string, error) {
	if id == "" || id == DefaultAgent {
		return in.dir, nil
	}
	if err := ValidateAgentID(id); err != nil {
		return "", err
	}
	return filepath.Join(in.AgentsDir(), id), nil
}

// AgentMeta is INSTALL/agents/ID/agent.json.
type AgentMeta struct {
	ID        string `json:"id"`
	CreatedAt string `json:"createdAt"`
	// CreatedFrom is the agent whose model profiles were copied.
	CreatedFrom string `json:"createdFrom"`
	// KeysCopied says whether the profiles' apiKey values came along.
	KeysCopied bool `json:"keysCopied"`
}

// AgentInfo describes one agent of the install.
type AgentInfo struct {
	AgentMeta
	Dir string
}

// ErrNoAgent is wrapped by errors about an agent that does not exist.
var ErrNoAgent = errors.New("no such agent")

// Exists reports whether agent id exists (the default agent always does).
func (in *Install) Exists(id string) (bool, error) {
	dir, err := in.AgentDir(id)
	if err != nil {
		return false, err
	}
	if dir == in.dir {
		return true, nil
	}
	_, err = os.Stat(filepath.Join(dir, "agent.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// OpenAgent opens the home of an existing agent.
func (in *Install) OpenAgent(id string) (*Home, error) {
	ok, err := in.Exists(id)
	if err != nil {
		return nil, err
	}
	if !ok {
		// A typo of an existing id is far likelier than a wish for a new
		// agent: suggest that one first.
		if near := textpos.Nearest(id, in.agentIDs()); near != "" {
			return nil, fmt.Errorf("%w %q in %s; did you mean %s? (agents: %s)", ErrNoAgent, id, in.dir, near, in.agentNames())
		}
		return nil, fmt.Errorf("%w %q in %s: create it with `openpocket agents create %s` (agents: %s)", ErrNoAgent, id, in.dir, id, in.agentNames())
	}
	dir, _ := in.AgentDir(id)
	return Open(dir)
}

func (in *Install) agentNames() string {
	return strings.Join(in.agentIDs(), ", ")
}

func (in *Install) agentIDs() []string {
	list, _ := in.Agents()
	ids := make([]string, len(list))
	for i, a := range list {
		ids[i] = a.ID
	}
	return ids
}

// Agents lists the default agent first, then the managed agents by id.
func (in *Install) Agents() ([]AgentInfo, error) {
	list := []AgentInfo{{AgentMeta: AgentMeta{ID: DefaultAgent}, Dir: in.dir}}
	entries, err := os.ReadDir(in.AgentsDir())
	if errors.Is(err, fs.ErrNotExist) {
		return list, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() || ValidateAgentID(e.Name()) != nil {
			continue
		}
		meta, err := in.readMeta(e.Name())
		if errors.Is(err, fs.ErrNotExist) {
			continue // half-created or not an agent
		}
		if err != nil {
			return nil, err
		}
		list = append(list, AgentInfo{AgentMeta: meta, Dir: filepath.Join(in.AgentsDir(), e.Name())})
	}
	return list, nil
}

// Agent describes one agent.
func (in *Install) Agent(id string) (AgentInfo, error) {
	if id == "" || id == DefaultAgent {
		return AgentInfo{AgentMeta: AgentMeta{ID: DefaultAgent}, Dir: in.dir}, nil
	}
	dir, err := in.AgentDir(id)
	if err != nil {
		return AgentInfo{}, err
	}
	meta, err := in.readMeta(id)
	if errors.Is(err, fs.ErrNotExist) {
		return AgentInfo{}, fmt.Errorf("%w %q (agents: %s)", ErrNoAgent, id, in.agentNames())
	}
	return AgentInfo{AgentMeta: meta, Dir: dir}, err
}

func (in *Install) readMeta(id string) (AgentMeta, error) {
	var m AgentMeta
	path := filepath.Join(in.AgentsDir(), id, "agent.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, positionError(path, data, err, nil)
	}
	m.ID = id
	return m, nil
}

// CreateOptions tune CreateAgent.
type CreateOptions struct {
	// From is the agent whose model profiles are copied ("" = default).
	From string
	// WithKeys copies the profiles' apiKey values too; without it only
	// apiKeyEnv (the name of a variable) comes along.
	WithKeys bool
	Now      func() time.Time
}

// CreateAgent creates managed agent id: a fresh home whose config is the
// defaults plus the model profiles and default model of o.From ("model
// template capture"), never its target, and its API keys only when asked.
func (in *Install) CreateAgent(id string, o CreateOptions) (*Home, error) {
	if id == DefaultAgent {
		return nil, fmt.Errorf("agent id %q is the install's own home; pick another id", id)
	}
	if err := ValidateAgentID(id); err != nil {
		return nil, err
	}
	from := o.From
	if from == "" {
		from = DefaultAgent
	}
	src, err := in.OpenAgent(from)
	if err != nil {
		return nil, err
	}
	cfg := captureTemplate(src.Config(), o.WithKeys)
	if err := os.MkdirAll(in.AgentsDir(), 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", in.AgentsDir(), err)
	}
	dir, _ := in.AgentDir(id)
	if err := os.Mkdir(dir, 0o755); errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("agent %q already exists (%s)", id, dir)
	} else if err != nil {
		return nil, fmt.Errorf("create agent %q: %w", id, err)
	}
	h, err := in.populate(dir, id, from, cfg, o)
	if err != nil {
		os.RemoveAll(dir) // nothing of the half-made agent stays
		return nil, err
	}
	return h, nil
}

func (in *Install) populate(dir, id, from string, cfg Config, o CreateOptions) (*Home, error) {
	data, err := MarshalConfig(cfg)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "config.json"), data, 0o600); err != nil {
		return nil, fmt.Errorf("create agent %q: %w", id, err)
	}
	h, err := Open(dir)
	if err != nil {
		return nil, err
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	meta, err := json.MarshalIndent(AgentMeta{ID: id, CreatedAt: isoTime(now()), CreatedFrom: from, KeysCopied: o.WithKeys}, "", "  ")
	if err != nil {
		return nil, err
	}
	// agent.json last: an agent without it is not listed, so a crash
	// mid-create never shows a half-made agent.
	if err := atomicfile.WriteFile(filepath.Join(dir, "agent.json"), append(meta, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("create agent %q: %w", id, err)
	}
	return h, nil
}

// captureTemplate is the config of a new agent made from src.
func captureTemplate(src Config, withKeys bool) Config {
	cfg := DefaultConfig()
	cfg.DefaultModel = src.DefaultModel
	cfg.Models = make(map[string]ModelProfile, len(src.Models))
	for name, p := range src.Models {
		if !withKeys {
			p.APIKey = ""
		}
		cfg.Models[name] = p
	}
	return cfg
}

// RemoveAgent deletes managed agent id with its workspace and state, after
// releasing its target binding. The caller checks its gateway is stopped.
func (in *Install) RemoveAgent(id string) error {
	if id == "" || id == DefaultAgent {
		return errors.New("the default agent is the install itself and cannot be removed")
	}
	if _, err := in.Agent(id); err != nil {
		return err
	}
	if err := in.Unbind(id); err != nil {
		return err
	}
	dir, _ := in.AgentDir(id)
	// agent.json first: a remove cut short leaves no listed half-agent.
	if err := os.Remove(filepath.Join(dir, "agent.json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove agent %q: %w", id, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove agent %q: %w", id, err)
	}
	return nil
}

// SortedModelNames lists a config's model profiles by name.
func SortedModelNames(cfg Config) []string {
	names := make([]string, 0, len(cfg.Models))
	for n := range cfg.Models {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
