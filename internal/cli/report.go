package cli

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/openpocket/openpocket/internal/atomicfile"
	"github.com/openpocket/openpocket/internal/run"
)

// StepReport and FlowReport are the run service's playbook results
// (steps.json's format).
type (
	StepReport = run.StepReport
	FlowReport = run.PlaybookResult
)

// stepProgress draws the run service's step events as progress lines: a
// live line per running step on a terminal, one line per finished step.
type stepProgress struct {
	w   io.Writer
	tty bool
}

func newStepProgress(w io.Writer, tty bool) *stepProgress { return &stepProgress{w: w, tty: tty} }

func (p *stepProgress) event(ev run.Event) {
	if ev.Step == nil {
		return
	}
	st := ev.Step
	switch ev.Kind {
	case run.KindStepStart:
		if p.tty {
			fmt.Fprintf(p.w, "\r\033[K%s▶ %s", strings.Repeat("  ", st.Depth), st.Label)
		}
	case run.KindStepEnd:
		mark := map[string]string{"passed": "✓", "failed": "✗", "warned": "!", "skipped": "-"}[st.Status]
		if mark == "" {
			mark = "?"
		}
		line := fmt.Sprintf("%s%s %s (%s)", strings.Repeat("  ", st.Depth), mark, st.Label, fmtMs(st.DurationMs))
		if st.Error != "" && st.Status != "passed" {
			line += ": " + oneLine(st.Error)
		}
		if note, _ := ev.Fields["note"].(string); note != "" && st.Status == "passed" {
			line += ": " + oneLine(note)
		}
		if p.tty {
			fmt.Fprintf(p.w, "\r\033[K%s\n", line)
		} else {
			fmt.Fprintln(p.w, line)
		}
	}
}

func fmtMs(ms int64) string { return run.FormatMs(ms) }

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 160 {
		return string(r[:160]) + "…"
	}
	return s
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
	ms       int64       // total duration, for the enclosing testsuites
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
	return writeJUnitSuites(path, []junitSuite{junitSuiteFor("openpocket playbooks", flows)})
}

// junitSuiteFor is one suite: a test case per playbook run.
func junitSuiteFor(name string, flows []FlowReport) junitSuite {
	suite := junitSuite{Name: name}
	var total int64
	for _, f := range flows {
		c := junitCase{Name: f.Name, Classname: f.File, Time: secs(f.DurationMs)}
		var out strings.Builder
		for _, s := range f.Steps {
			fmt.Fprintf(&out, "%s%s %s (%s)", strings.Repeat("  ", s.Depth), s.Status, s.Label, fmtMs(s.DurationMs))
			if s.Error != "" {
				fmt.Fprintf(&out, ": %s", s.Error)
			}
			if s.Note != "" {
				fmt.Fprintf(&out, ": %s", s.Note)
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
	suite.Time, suite.ms = secs(total), total
	return suite
}

// writeJUnitSuites writes a JUnit report of the suites (one per device
// when playbooks were split across devices).
func writeJUnitSuites(path string, suites []junitSuite) error {
	doc := junitSuites{Name: "openpocket", Suites: suites}
	var total int64
	for _, s := range suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		total += s.ms
	}
	doc.Time = secs(total)
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644)
}
