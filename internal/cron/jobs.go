package cron

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine/hostfs"
	"github.com/openpocket/openpocket/engine/textpos"
)

// JobsVersion is the jobs.json format written by SaveJobs.
const JobsVersion = 2

// Schedule kinds.
const (
	KindCron  = "cron"
	KindAt    = "at"
	KindEvery = "every"
)

// Payload kinds.
const (
	PayloadAgentTurn = "agent_turn" // {task}: an agent run
	PayloadPlaybook  = "playbook"   // {path, params}: a YAML playbook
	PayloadLua       = "lua"        // {path, args}: a Lua script or skill
)

// MinEvery is the shortest interval of an "every" schedule.
const MinEvery = 5 * time.Second

// JobsFile is workspace/cron/jobs.json.
type JobsFile struct {
	Version int
	Jobs    []Job
	// Legacy is true when the file was read in the legacy format
	// ({"jobs": [...]} without version 2); SaveJobs writes version 2.
	Legacy bool
	// Extra holds unknown top-level fields, written back unchanged.
	Extra map[string]json.RawMessage
}

// Job is one scheduled job (upstream version-2 format plus "device").
type Job struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Enabled  bool            `json:"enabled"`
	Schedule Schedule        `json:"schedule"`
	Payload  Payload         `json:"payload"`
	Delivery json.RawMessage `json:"delivery"`
	// Model names a config model profile; nil means the default.
	Model        *string `json:"model"`
	PromptMode   *string `json:"promptMode"`
	CreatedAt    string  `json:"createdAt"`
	UpdatedAt    string  `json:"updatedAt"`
	RunOnStartup bool    `json:"runOnStartup"`
	// CreatedBy says who added the job ("cli", "model via telegram:42"),
	// as upstream records it.
	CreatedBy string `json:"createdBy,omitempty"`
	// Device is the adb serial the job runs on; "" is the default device.
	Device string `json:"device,omitempty"`
	// Target, in a fleet, lets the job run on any host with an idle phone
	// of this type instead of naming one (docs/fleet.md).
	Target *JobTarget `json:"target,omitempty"`
	// Agent, in a fleet, runs the job on the host whose gateway serves
	// this agent of its install, on the agent's bound phone
	// (docs/fleet.md). Give device, target or agent, not several.
	Agent string `json:"agent,omitempty"`

	// Extra holds unknown fields, written back unchanged.
	Extra map[string]json.RawMessage `json:"-"`
	// raw is the entry as read when it could not be decoded; it is
	// written back verbatim.
	raw json.RawMessage
}

// Schedule says when a job runs.
type Schedule struct {
	// Kind is cron, at or every.
	Kind string `json:"kind"`
	// Expr is a 5-field cron expression (or @daily style descriptor).
	Expr string `json:"expr,omitempty"`
	// At is an ISO 8601 time; without an offset it is read in TZ.
	At      string `json:"at,omitempty"`
	EveryMs int64  `json:"everyMs,omitempty"`
	// TZ is an IANA time zone for cron and at; "" is the scheduler's.
	TZ          string                     `json:"tz,omitempty"`
	SummaryText string                     `json:"summaryText,omitempty"`
	Extra       map[string]json.RawMessage `json:"-"`
}

// Payload says what a job runs.
type Payload struct {
	// Kind is agent_turn, playbook or lua.
	Kind string `json:"kind"`
	// Task is the agent task (agent_turn).
	Task string `json:"task,omitempty"`
	// Path is the playbook, Lua script or skill (playbook, lua).
	Path string `json:"path,omitempty"`
	// Params are playbook parameters.
	Params map[string]string `json:"params,omitempty"`
	// Args are Lua script arguments.
	Args  []string                   `json:"args,omitempty"`
	Extra map[string]json.RawMessage `json:"-"`
}

// JobTarget is a job's "target": {"type": "emulator"}.
type JobTarget struct {
	// Type is emulator, physical-phone, android-tv or cloud.
	Type string `json:"type"`
}

// DeviceOf is the device serial a job runs on ("" = default device).
func DeviceOf(j Job) string { return j.Device }

// Problem is an invalid jobs.json entry; the entry is skipped.
type Problem struct {
	File  string
	JobID string
	// Index is the entry's position in "jobs" (0-based).
	Index   int
	Field   string
	Message string
}

func (p Problem) Error() string {
	who := fmt.Sprintf("job %q", p.JobID)
	if p.JobID == "" {
		who = fmt.Sprintf("job #%d", p.Index+1)
	}
	if p.Field == "" {
		return fmt.Sprintf("%s: %s: %s", p.File, who, p.Message)
	}
	return fmt.Sprintf("%s: %s: %s: %s", p.File, who, p.Field, p.Message)
}

// --- JSON with unknown-field preservation ---

func knownKeys(v any) map[string]bool {
	t := reflect.TypeOf(v)
	out := map[string]bool{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out[name] = true
		}
	}
	return out
}

func extraFields(data []byte, known map[string]bool) (map[string]json.RawMessage, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	var extra map[string]json.RawMessage
	for k, v := range all {
		if !known[k] {
			if extra == nil {
				extra = map[string]json.RawMessage{}
			}
			extra[k] = v
		}
	}
	return extra, nil
}

// withExtra appends extra fields (sorted) to an encoded object.
func withExtra(obj []byte, extra map[string]json.RawMessage) ([]byte, error) {
	if len(extra) == 0 {
		return obj, nil
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b bytes.Buffer
	b.Write(bytes.TrimSuffix(obj, []byte("}")))
	for i, k := range keys {
		if i > 0 || len(obj) > 2 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(extra[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

type jobAlias Job
type scheduleAlias Schedule
type payloadAlias Payload

// UnmarshalJSON decodes a job; "enabled" defaults to true and unknown
// fields are kept.
func (j *Job) UnmarshalJSON(data []byte) error {
	a := jobAlias{Enabled: true}
	if err := json.Unmarshal(data, &a); err != nil {
		return err
	}
	extra, err := extraFields(data, knownKeys(a))
	if err != nil {
		return err
	}
	*j = Job(a)
	j.Extra = extra
	return nil
}

// MarshalJSON encodes a job with its unknown fields.
func (j Job) MarshalJSON() ([]byte, error) {
	if j.raw != nil {
		return j.raw, nil
	}
	a := jobAlias(j)
	if a.Delivery == nil {
		a.Delivery = json.RawMessage("null")
	}
	data, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	return withExtra(data, j.Extra)
}

// UnmarshalJSON decodes a schedule keeping unknown fields.
func (s *Schedule) UnmarshalJSON(data []byte) error {
	var a scheduleAlias
	if err := json.Unmarshal(data, &a); err != nil {
		return err
	}
	extra, err := extraFields(data, knownKeys(a))
	if err != nil {
		return err
	}
	*s = Schedule(a)
	s.Extra = extra
	return nil
}

// MarshalJSON encodes a schedule with its unknown fields.
func (s Schedule) MarshalJSON() ([]byte, error) {
	data, err := json.Marshal(scheduleAlias(s))
	if err != nil {
		return nil, err
	}
	return withExtra(data, s.Extra)
}

// UnmarshalJSON decodes a payload keeping unknown fields.
func (p *Payload) UnmarshalJSON(data []byte) error {
	var a payloadAlias
	if err := json.Unmarshal(data, &a); err != nil {
		return err
	}
	extra, err := extraFields(data, knownKeys(a))
	if err != nil {
		return err
	}
	*p = Payload(a)
	p.Extra = extra
	return nil
}

// MarshalJSON encodes a payload with its unknown fields.
func (p Payload) MarshalJSON() ([]byte, error) {
	data, err := json.Marshal(payloadAlias(p))
	if err != nil {
		return nil, err
	}
	return withExtra(data, p.Extra)
}

// legacyJob is one entry of the legacy format.
type legacyJob struct {
	ID           string  `json:"id"`
	Name         string  `json:"name"`
	Enabled      *bool   `json:"enabled"`
	EverySec     int64   `json:"everySec"`
	Task         string  `json:"task"`
	ChatID       any     `json:"chatId"`
	Model        *string `json:"model"`
	RunOnStartup bool    `json:"runOnStartup"`
}

func (l legacyJob) migrate(data []byte) (Job, error) {
	extra, err := extraFields(data, knownKeys(l))
	if err != nil {
		return Job{}, err
	}
	if l.ChatID != nil { // no version-2 field; kept verbatim
		raw, _ := json.Marshal(l.ChatID)
		if extra == nil {
			extra = map[string]json.RawMessage{}
		}
		extra["chatId"] = raw
	}
	enabled := l.Enabled == nil || *l.Enabled
	return Job{
		ID:           l.ID,
		Name:         l.Name,
		Enabled:      enabled,
		Schedule:     Schedule{Kind: KindEvery, EveryMs: l.EverySec * 1000},
		Payload:      Payload{Kind: PayloadAgentTurn, Task: l.Task},
		Model:        l.Model,
		RunOnStartup: l.RunOnStartup,
		Extra:        extra,
	}, nil
}

// --- load / save ---

// LoadJobs reads a jobs file. A missing file is an empty version-2 file.
// Entries that cannot be decoded or are invalid are reported as problems
// (and kept in the file so a later save does not lose them); the error is
// reserved for an unreadable file or malformed JSON (with line:column).
func LoadJobs(path string) (JobsFile, []Problem, error) {
	f := JobsFile{Version: JobsVersion}
	data, err := hostfs.ReadFile(confine(path), path, maxJobsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil, nil
	}
	if err != nil {
		return f, nil, fmt.Errorf("read jobs: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return f, nil, jsonError(path, data, err)
	}
	if top == nil {
		return f, nil, fmt.Errorf("%s:1:1: expected a JSON object with \"version\" and \"jobs\"", path)
	}
	if v, ok := top["version"]; ok {
		if err := json.Unmarshal(v, &f.Version); err != nil {
			return f, nil, fmt.Errorf("%s: version: expected a number, got %s", path, v)
		}
	} else {
		f.Version = 0
	}
	switch f.Version {
	case JobsVersion:
	case 0, 1:
		f.Legacy = true
	default:
		return f, nil, fmt.Errorf("%s: version: expected 2 (or a legacy file without version), got %d", path, f.Version)
	}
	var entries []json.RawMessage
	if raw, ok := top["jobs"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &entries); err != nil {
			return f, nil, fmt.Errorf("%s: jobs: expected an array of jobs", path)
		}
	}
	for k, v := range top {
		if k != "version" && k != "jobs" {
			if f.Extra == nil {
				f.Extra = map[string]json.RawMessage{}
			}
			f.Extra[k] = v
		}
	}
	var problems []Problem
	for i, raw := range entries {
		var j Job
		var err error
		if f.Legacy {
			var l legacyJob
			if err = json.Unmarshal(raw, &l); err == nil {
				j, err = l.migrate(raw)
			}
		} else {
			err = json.Unmarshal(raw, &j)
		}
		if err != nil {
			j = Job{ID: bestEffortID(raw), raw: slices.Clone(raw)}
			problems = append(problems, decodeProblem(path, i, j.ID, err))
		}
		f.Jobs = append(f.Jobs, j)
	}
	f.Version = JobsVersion
	problems = append(problems, Validate(path, f, time.Local)...)
	return f, problems, nil
}

func bestEffortID(raw json.RawMessage) string {
	var v struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(raw, &v) == nil {
		if s, ok := v.ID.(string); ok {
			return s
		}
	}
	return ""
}

func decodeProblem(path string, i int, id string, err error) Problem {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return Problem{File: path, JobID: id, Index: i, Field: te.Field,
			Message: fmt.Sprintf("expected %s, got %s", describeKind(te.Type), te.Value)}
	}
	return Problem{File: path, JobID: id, Index: i, Message: err.Error()}
}

func describeKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice:
		return "an array"
	default:
		return t.String()
	}
}

// jsonError reports malformed JSON as path:line:col: message.
func jsonError(path string, data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off, _ := textpos.JSONSyntaxOffset(data, err)
		line, col := textpos.LineCol(data, off)
		return fmt.Errorf("%s:%d:%d: malformed JSON: %s", path, line, col, se.Error())
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("%s: expected a JSON object with \"version\" and \"jobs\", got %s", path, te.Value)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// SaveJobs writes a jobs file atomically in version-2 format (migrating a
// legacy file), filling missing createdAt/updatedAt.
func SaveJobs(path string, f JobsFile) error {
	now := isoTime(time.Now())
	jobs := make([]Job, len(f.Jobs))
	for i, j := range f.Jobs {
		if j.raw == nil {
			if j.CreatedAt == "" {
				j.CreatedAt = now
			}
			if j.UpdatedAt == "" {
				j.UpdatedAt = j.CreatedAt
			}
		}
		jobs[i] = j
	}
	obj := map[string]any{"version": JobsVersion, "jobs": jobs}
	for k, v := range f.Extra {
		if k != "version" && k != "jobs" {
			obj[k] = v
		}
	}
	data, err := json.MarshalIndent(obj, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	// Keep "version" first for readers: map keys sort, so move it.
	data = versionFirst(data)
	if err := hostfs.WriteFile(confine(path), path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("save jobs: %w", err)
	}
	return nil
}

// versionFirst re-encodes the top-level object with "version" then "jobs"
// first and the remaining keys after.
func versionFirst(data []byte) []byte {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return data
	}
	keys := make([]string, 0, len(top))
	for k := range top {
		if k != "version" && k != "jobs" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	keys = append([]string{"version", "jobs"}, keys...)
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, k := range keys {
		var v bytes.Buffer
		if err := json.Indent(&v, top[k], "  ", "  "); err != nil {
			return data
		}
		fmt.Fprintf(&b, "  %s: %s", strconv.Quote(k), v.String())
		if i < len(keys)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}")
	return b.Bytes()
}

// NewID returns a new random job id ("job-" + 12 hex digits).
func NewID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "job-" + hex.EncodeToString(b[:])
}

// Find returns the job with the id.
func (f *JobsFile) Find(id string) (*Job, bool) {
	for i := range f.Jobs {
		if f.Jobs[i].ID == id {
			return &f.Jobs[i], true
		}
	}
	return nil, false
}

// AddJob validates a job, gives it an id (if empty) and timestamps and
// appends it. Duplicate ids and invalid jobs are errors.
func (f *JobsFile) AddJob(j Job) (Job, error) {
	if j.ID == "" {
		j.ID = NewID()
	}
	if _, dup := f.Find(j.ID); dup {
		return j, fmt.Errorf("add job: a job with id %q already exists", j.ID)
	}
	if j.Payload.Kind == "" {
		j.Payload.Kind = PayloadAgentTurn
	}
	now := isoTime(time.Now())
	j.CreatedAt, j.UpdatedAt = now, now
	if _, probs := compileJob("jobs.json", 0, j, time.Local, time.Now()); len(probs) > 0 {
		msgs := make([]string, len(probs))
		for i, p := range probs {
			msgs[i] = p.Error()
		}
		return j, errors.New(strings.Join(msgs, "; "))
	}
	f.Jobs = append(f.Jobs, j)
	return j, nil
}

// RemoveJob deletes the job with the id.
func (f *JobsFile) RemoveJob(id string) error {
	for i := range f.Jobs {
		if f.Jobs[i].ID == id {
			f.Jobs = slices.Delete(f.Jobs, i, i+1)
			return nil
		}
	}
	return fmt.Errorf("remove job: no job with id %q", id)
}

// SetEnabled enables or disables the job with the id.
func (f *JobsFile) SetEnabled(id string, enabled bool) error {
	j, ok := f.Find(id)
	if !ok {
		return fmt.Errorf("set enabled: no job with id %q", id)
	}
	if j.raw != nil {
		return fmt.Errorf("set enabled: job %q is malformed; fix it in the jobs file first", id)
	}
	if j.Enabled != enabled {
		j.Enabled = enabled
		j.UpdatedAt = isoTime(time.Now())
	}
	return nil
}

func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
