package cli

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/atomicfile"
)

// StepReport is one executed playbook step as steps.json records it.
type StepReport struct {
	ID         string `json:"id"` // "3", "4.1", "on_start.1"…
	Label      string `json:"label"`
	File       string `json:"file,omitempty"`
	Line       int    `json:"line,omitempty"`
	Depth      int    `json:"depth,omitempty"`
	Status     string `json:"status"`
	DurationMs int64  `json:"durationMs"`
	Error      string `json:"error,omitempty"`
	Screenshot string `json:"screenshot,omitempty"` // the screen after a UI step, relative to the run's directory
}

// FlowReport is one playbook run.
type FlowReport struct {
	Name       string       `json:"name"`
	File       string       `json:"file"`
	Status     string       `json:"status"` // passed | failed
	DurationMs int64        `json:"durationMs"`
	Error      string       `json:"error,omitempty"`
	OutputDir  string       `json:"outputDir,omitempty"`
	Steps      []StepReport `json:"steps"`
	Artifacts  []string     `json:"artifacts,omitempty"`
}

// stepRecorder turns the flow runtime's events into step reports and,
// on a terminal, progress lines.
type stepRecorder struct {
	mu      sync.Mutex
	steps   []StepReport
	started map[string]time.Time
	// running is the stack of steps started and not yet ended (nested
	// steps above their parent), so an interruption names the YAML line
	// of the step that was running.
	running  []StepReport
	progress io.Writer // nil: no progress lines
	tty      bool
	shoot    func(n int) string // nil: no screenshots after UI steps
}

func newStepRecorder(progress io.Writer, tty bool) *stepRecorder {
	return &stepRecorder{started: map[string]time.Time{}, progress: progress, tty: tty}
}

func intField(f map[string]any, k string) int {
	switch v := f[k].(type) {
	case float64:
		return int(v)
	case int:
		return v
	case int64:
		return int(v)
	}
	return 0
}

func strField(f map[string]any, k string) string {
	s, _ := f[k].(string)
	return s
}

// onEvent is the session's event sink.
func (r *stepRecorder) onEvent(ev engine.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	id := idField(ev.Fields, "id")
	label := strField(ev.Fields, "label")
	depth := intField(ev.Fields, "depth")
	switch ev.Kind {
	case "step_start":
		r.started[id] = time.Now()
		r.running = append(r.running, StepReport{ID: id, Label: label, File: strField(ev.Fields, "file"), Line: intField(ev.Fields, "line"), Depth: depth})
		if r.progress != nil && r.tty {
			fmt.Fprintf(r.progress, "\r\033[K%s▶ %s", strings.Repeat("  ", depth), label)
		}
	case "step_end":
		dur := int64(intField(ev.Fields, "duration_ms"))
		if dur == 0 {
			if t, ok := r.started[id]; ok {
				dur = time.Since(t).Milliseconds()
			}
		}
		st := StepReport{ID: id, Label: label, File: strField(ev.Fields, "file"), Line: intField(ev.Fields, "line"), Depth: depth,
			Status: strField(ev.Fields, "status"), DurationMs: dur, Error: strField(ev.Fields, "error")}
		if ui, _ := ev.Fields["ui"].(bool); ui && r.shoot != nil && st.Status != "skipped" {
			st.Screenshot = r.shoot(len(r.steps) + 1)
		}
		r.steps = append(r.steps, st)
		if n := len(r.running); n > 0 && r.running[n-1].ID == id {
			r.running = r.running[:n-1]
		}
		if r.progress != nil {
			mark := map[string]string{"passed": "✓", "failed": "✗", "warned": "!", "skipped": "-"}[st.Status]
			if mark == "" {
				mark = "?"
			}
			line := fmt.Sprintf("%s%s %s (%s)", strings.Repeat("  ", depth), mark, label, fmtMs(dur))
			if st.Error != "" && st.Status != "passed" {
				line += ": " + oneLine(st.Error)
			}
			if r.tty {
				fmt.Fprintf(r.progress, "\r\033[K%s\n", line)
			} else {
				fmt.Fprintln(r.progress, line)
			}
		}
	}
}

// current is the innermost step running now, if any.
func (r *stepRecorder) current() (StepReport, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.running) == 0 {
		return StepReport{}, false
	}
	return r.running[len(r.running)-1], true
}

// idField reads a step id: the flow runtime sends strings ("4.1"); a
// number is formatted.
func idField(f map[string]any, k string) string {
	switch v := f[k].(type) {
	case string:
		return v
	case float64, int, int64:
		return fmt.Sprint(v)
	}
	return ""
}

func (r *stepRecorder) result() []StepReport {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]StepReport{}, r.steps...)
}

func fmtMs(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%dms", ms)
	}
	return fmt.Sprintf("%.1fs", float64(ms)/1000)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 160 {
		return string(r[:160]) + "…"
	}
	return s
}

// writeStepsJSON writes a flow's steps.json atomically.
func writeStepsJSON(path string, fr FlowReport) error {
	b, err := json.MarshalIndent(fr, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o644)
}

// jsonReport is play --report-json: every playbook with its steps and
// totals, for scripts that read results without parsing JUnit XML.
type jsonReport struct {
	Passed     int          `json:"passed"`
	Failed     int          `json:"failed"`
	DurationMs int64        `json:"durationMs"`
	Flows      []FlowReport `json:"flows"`
}

// writeReportJSON writes the JSON report atomically.
func writeReportJSON(path string, flows []FlowReport) error {
	rep := jsonReport{Flows: flows}
	if rep.Flows == nil {
		rep.Flows = []FlowReport{}
	}
	for _, f := range flows {
		if f.Status == "passed" {
			rep.Passed++
		} else {
			rep.Failed++
		}
		rep.DurationMs += f.DurationMs
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o644)
}

// JUnit XML, the subset CI systems read.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func secs(ms int64) string { return fmt.Sprintf("%.3f", float64(ms)/1000) }

// writeJUnit writes one testcase per playbook, its steps as system-out.
func writeJUnit(path string, flows []FlowReport) error {
	suite := junitSuite{Name: "openpocket playbooks"}
	var total int64
	for _, f := range flows {
		c := junitCase{Name: f.Name, Classname: f.File, Time: secs(f.DurationMs)}
		var out strings.Builder
		for _, s := range f.Steps {
			fmt.Fprintf(&out, "%s%s %s (%s)", strings.Repeat("  ", s.Depth), s.Status, s.Label, fmtMs(s.DurationMs))
			if s.Error != "" {
				fmt.Fprintf(&out, ": %s", s.Error)
			}
			out.WriteByte('\n')
		}
		c.SystemOut = out.String()
		if f.Status != "passed" {
			c.Failure = &junitFailure{Message: oneLine(f.Error), Text: f.Error}
			suite.Failures++
		}
		suite.Cases = append(suite.Cases, c)
		suite.Tests++
		total += f.DurationMs
	}
	suite.Time = secs(total)
	doc := junitSuites{Name: "openpocket", Tests: suite.Tests, Failures: suite.Failures, Time: suite.Time, Suites: []junitSuite{suite}}
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644)
}
