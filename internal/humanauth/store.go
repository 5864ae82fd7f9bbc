// Package humanauth is the human-auth plane's shared state: pending
// requests, decisions and artifacts on disk under the agent's state
// directory, and the Broker that turns a request_human_auth action into a
// pending request and waits for whoever answers first (the web relay, the
// `openpocket auth` command, the terminal).
//
// Requests and decisions are files so every process of one agent sees
// them: the gateway's relay serves a request an `openpocket agent` run
// made, and `openpocket auth approve` answers from another shell.
//
//	state/human-auth/pending/<requestId>.json    the request (token hash only)
//	state/human-auth/decisions/<requestId>.json  the first answer (created once)
//	state/human-auth/closed/<requestId>.json     a finished request: token hash
//	                                             and outcome only (no answer), so
//	                                             its link says "already answered"
//	state/human-auth-artifacts/<requestId>.<ext> the artifact (docs/formats.md)
package humanauth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/openpocket/openpocket/internal/atomicfile"
)

// ErrNotFound reports a request that does not exist or is already answered.
var ErrNotFound = errors.New("no such pending human-auth request")

// ErrDecided reports a second answer to a request: the first one stands.
var ErrDecided = errors.New("the request was already answered")

// Pending is a request waiting for a person.
type Pending struct {
	ID          string         `json:"id"`
	AgentID     string         `json:"agentId"`
	Task        string         `json:"task,omitempty"`
	Capability  string         `json:"capability"`
	Instruction string         `json:"instruction"`
	Reason      string         `json:"reason,omitempty"`
	UITemplate  map[string]any `json:"uiTemplate,omitempty"`
	CreatedAt   time.Time      `json:"createdAt"`
	ExpiresAt   time.Time      `json:"expiresAt"`
	// TokenHash is the hex SHA-256 of the link's token: the token itself
	// is only in the link.
	TokenHash string `json:"tokenHash"`
	// Device is the serial of the phone the run drives ("" when unknown):
	// the relay page shows its current screen.
	Device string `json:"device,omitempty"`
	// Takeover lets the page's person tap the phone through its screen
	// (humanAuth.takeover) while the request is pending.
	Takeover bool `json:"takeover,omitempty"`
}

// Expired reports whether the request's link no longer works at now.
func (p Pending) Expired(now time.Time) bool { return !now.Before(p.ExpiresAt) }

// TokenOK compares token with the stored hash in constant time.
func (p Pending) TokenOK(token string) bool {
	want, err := hex.DecodeString(p.TokenHash)
	if err != nil || len(want) != sha256.Size || token == "" {
		return false
	}
	got := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(got[:], want) == 1
}

// Artifact is a stored artifact as a decision names it.
type Artifact struct {
	Path string  `json:"path"`
	Kind string  `json:"kind"`
	MIME string  `json:"mime"`
	Lat  float64 `json:"lat,omitempty"`
	Lon  float64 `json:"lon,omitempty"`
}

// Field is one filled-in form field of a decision.
type Field struct {
	Key    string `json:"key"`
	Label  string `json:"label,omitempty"`
	Type   string `json:"type,omitempty"`
	Value  string `json:"value"`
	Secret bool   `json:"secret,omitempty"`
	Target string `json:"target,omitempty"`
}

// Decision is the first answer to a request.
type Decision struct {
	// Status is approved, rejected or timeout.
	Status string `json:"status"`
	// Message is the summary the model sees; never a secret.
	Message string `json:"message"`
	// Text is typed into the focused field. It may be a secret: the
	// decision file is private (0600) and removed once the run read it.
	Text string `json:"text,omitempty"`
	// Fields are a form's values in order, secrets included (typed, never
	// stored elsewhere); see agent.HumanAuthField.
	Fields []Field `json:"fields,omitempty"`
	// PageResult is what a template's approveScript returned: it may hold
	// what the person typed into the model's own HTML, so it stays here
	// (private, removed with the decision) and never reaches the model.
	PageResult string    `json:"pageResult,omitempty"`
	Artifact   *Artifact `json:"artifact,omitempty"`
	By         string    `json:"by"`
	DecidedAt  time.Time `json:"decidedAt"`
}

// Store is one agent's human-auth directory.
type Store struct {
	state string
}

// Open returns the store under an agent's state directory.
func Open(stateDir string) *Store { return &Store{state: stateDir} }

func (s *Store) pendingDir() string  { return filepath.Join(s.state, "human-auth", "pending") }
func (s *Store) decisionDir() string { return filepath.Join(s.state, "human-auth", "decisions") }
func (s *Store) closedDir() string   { return filepath.Join(s.state, "human-auth", "closed") }
func (s *Store) ArtifactDir() string { return filepath.Join(s.state, "human-auth-artifacts") }
func (s *Store) pendingPath(id string) string {
	return filepath.Join(s.pendingDir(), id+".json")
}
func (s *Store) decisionPath(id string) string {
	return filepath.Join(s.decisionDir(), id+".json")
}

// ValidID reports whether id is safe as a file name and a URL segment:
// letters, digits, '-', '_' and '.', not starting with '.'.
func ValidID(id string) bool {
	if id == "" || len(id) > 128 || id[0] == '.' {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// NewToken returns a fresh unguessable link token (256 bits) and its hash.
func NewToken() (token, hash string) {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand panics on platform failure)
	token = base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(token))
	return token, hex.EncodeToString(sum[:])
}

// Add writes a pending request atomically.
func (s *Store) Add(p Pending) error {
	if !ValidID(p.ID) {
		return fmt.Errorf("human auth: request id %q: expected letters, digits, '-', '_' or '.'", p.ID)
	}
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(s.pendingPath(p.ID), data, 0o600)
}

// Get reads a pending request (ErrNotFound when it is gone or answered).
func (s *Store) Get(id string) (Pending, error) {
	if !ValidID(id) {
		return Pending{}, ErrNotFound
	}
	data, err := os.ReadFile(s.pendingPath(id))
	if errors.Is(err, os.ErrNotExist) {
		return Pending{}, ErrNotFound
	}
	if err != nil {
		return Pending{}, err
	}
	var p Pending
	if err := json.Unmarshal(data, &p); err != nil {
		return Pending{}, fmt.Errorf("%s: %w", s.pendingPath(id), err)
	}
	if _, decided, _ := s.Decision(id); decided {
		return p, ErrDecided
	}
	return p, nil
}

// List returns the unanswered requests, oldest first.
func (s *Store) List() ([]Pending, error) {
	ents, err := os.ReadDir(s.pendingDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Pending
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !ValidID(id) {
			continue
		}
		if p, err := s.Get(id); err == nil {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, nil
}

// Decide records the first answer; a later one gets ErrDecided.
func (s *Store) Decide(id string, d Decision) error {
	if !ValidID(id) {
		return ErrNotFound
	}
	if d.DecidedAt.IsZero() {
		d.DecidedAt = time.Now().UTC()
	}
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	created, err := atomicfile.WriteNew(s.decisionPath(id), data, 0o600)
	if err != nil {
		return err
	}
	if !created {
		return ErrDecided
	}
	return nil
}

// Decision reads the answer to id, if there is one.
func (s *Store) Decision(id string) (Decision, bool, error) {
	data, err := os.ReadFile(s.decisionPath(id))
	if errors.Is(err, os.ErrNotExist) {
		return Decision{}, false, nil
	}
	if err != nil {
		return Decision{}, false, err
	}
	var d Decision
	if err := json.Unmarshal(data, &d); err != nil {
		return Decision{}, false, fmt.Errorf("%s: %w", s.decisionPath(id), err)
	}
	return d, true, nil
}

// claim clears what a process that died while waiting left under id (a
// stale request, a decision nobody read) so it cannot answer the new
// request; a live request of another run with the same id is an error.
func (s *Store) claim(id string, now time.Time) error {
	p, err := s.Get(id)
	if err == nil && !p.Expired(now) {
		return fmt.Errorf("human auth: request %s is already waiting for an answer (another run?)", id)
	}
	s.Close(id)
	return nil
}

// Closed is what is kept of a finished request: enough for its link to
// tell a person it was already answered or has expired, nothing of the
// answer.
type Closed struct {
	AgentID   string `json:"agentId"`
	TokenHash string `json:"tokenHash"`
	// Status is approved, rejected, timeout, or "" when the run stopped
	// waiting without an answer.
	Status   string    `json:"status"`
	ClosedAt time.Time `json:"closedAt"`
}

// TokenOK compares token with the stored hash in constant time.
func (c Closed) TokenOK(token string) bool { return Pending{TokenHash: c.TokenHash}.TokenOK(token) }

// closedKeep is how long a finished request's link still says so.
const closedKeep = 7 * 24 * time.Hour

// ClosedRequest reads what is kept of finished request id.
func (s *Store) ClosedRequest(id string) (Closed, bool) {
	if !ValidID(id) {
		return Closed{}, false
	}
	data, err := os.ReadFile(filepath.Join(s.closedDir(), id+".json"))
	if err != nil {
		return Closed{}, false
	}
	var c Closed
	if json.Unmarshal(data, &c) != nil {
		return Closed{}, false
	}
	return c, true
}

// Close removes a finished request's pending and decision files (the
// decision may hold a typed secret); artifacts stay. Its link is dead:
// it says so to whoever holds the token (a closed record keeps the token's
// hash and the outcome for a week).
func (s *Store) Close(id string) {
	if p, err := s.Get(id); err == nil || errors.Is(err, ErrDecided) {
		d, _, _ := s.Decision(id)
		if data, err := json.Marshal(Closed{AgentID: p.AgentID, TokenHash: p.TokenHash, Status: d.Status, ClosedAt: time.Now().UTC()}); err == nil {
			atomicfile.WriteFile(filepath.Join(s.closedDir(), id+".json"), data, 0o600)
		}
		s.pruneClosed()
	}
	os.Remove(s.pendingPath(id))
	os.Remove(s.decisionPath(id))
}

// pruneClosed drops closed records older than closedKeep.
func (s *Store) pruneClosed() {
	ents, _ := os.ReadDir(s.closedDir())
	for _, e := range ents {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > closedKeep {
			os.Remove(filepath.Join(s.closedDir(), e.Name()))
		}
	}
}

// FormFields are the labels of a request's template form when answering
// it takes more than one plain code: several fields, or a secret one
// (password, card number, expiry, cvc). Such a request is answered on its
// relay page, which types each value into its own phone field; a single
// text box elsewhere (the dashboard) would type it into the focused one.
func FormFields(p Pending) []string {
	raw, _ := p.UITemplate["fields"].([]any)
	var labels []string
	secret := false
	for _, x := range raw {
		f, ok := x.(map[string]any)
		if !ok {
			continue
		}
		id, _ := f["id"].(string)
		label, _ := f["label"].(string)
		if strings.TrimSpace(label) == "" {
			label = id
		}
		if strings.TrimSpace(label) == "" {
			continue
		}
		labels = append(labels, label)
		switch t, _ := f["type"].(string); t {
		case "password", "card-number", "expiry", "cvc":
			secret = true
		}
		if tgt, _ := f["target"].(string); tgt != "" {
			secret = true // typed into a named field, not the focused one
		}
	}
	if len(labels) > 1 || secret {
		return labels
	}
	return nil
}
