// Package report writes the reports of playbook runs (run.PlaybookResult):
// JSON (play --report-json), JUnit XML (--report, one suite per device when
// runs are sharded) and the HTML pages (--report-html). The CLI's play
// command calls it; it renders results only, never runs anything.
package report

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/openpocket/openpocket/internal/atomicfile"
	"github.com/openpocket/openpocket/internal/run"
)

// JSON is play --report-json: every playbook with its steps and
// totals, for scripts that read results without parsing JUnit XML.
type JSON struct {
	Passed     int                  `json:"passed"`
	Failed     int                  `json:"failed"`
	DurationMs int64                `json:"durationMs"`
	Flows      []run.PlaybookResult `json:"flows"`
}

// WriteJSON writes the JSON report atomically.
func WriteJSON(path string, flows []run.PlaybookResult) error {
	rep := JSON{Flows: flows}
	if rep.Flows == nil {
		rep.Flows = []run.PlaybookResult{}
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
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

type JUnitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []JUnitCase `xml:"testcase"`
	ms       int64       // total duration, for the enclosing testsuites
}

type JUnitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *JUnitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type JUnitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func secs(ms int64) string { return fmt.Sprintf("%.3f", float64(ms)/1000) }

// WriteJUnit writes one testcase per playbook, its steps as system-out.
func WriteJUnit(path string, flows []run.PlaybookResult) error {
	return WriteJUnitSuites(path, []JUnitSuite{JUnitSuiteFor("openpocket playbooks", flows)})
}

// JUnitSuiteFor is one suite: a test case per playbook run.
func JUnitSuiteFor(name string, flows []run.PlaybookResult) JUnitSuite {
	suite := JUnitSuite{Name: name}
	var total int64
	for _, f := range flows {
		c := JUnitCase{Name: f.Name, Classname: f.File, Time: secs(f.DurationMs)}
		var out strings.Builder
		for _, s := range f.Steps {
			fmt.Fprintf(&out, "%s%s %s (%s)", strings.Repeat("  ", s.Depth), s.Status, s.Label, run.FormatMs(s.DurationMs))
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
			c.Failure = &JUnitFailure{Message: OneLine(f.Error), Text: f.Error}
			suite.Failures++
		}
		suite.Cases = append(suite.Cases, c)
		suite.Tests++
		total += f.DurationMs
	}
	suite.Time, suite.ms = secs(total), total
	return suite
}

// WriteJUnitSuites writes a JUnit report of the suites (one per device
// when playbooks were split across devices).
func WriteJUnitSuites(path string, suites []JUnitSuite) error {
	doc := JUnitSuites{Name: "openpocket", Suites: suites}
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

// OneLine is s on one line, cut to 160 characters: a failure's message
// where a report has room for one line.
func OneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 160 {
		return string(r[:160]) + "…"
	}
	return s
}
