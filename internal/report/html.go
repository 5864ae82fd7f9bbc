package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openpocket/openpocket/internal/atomicfile"
	"github.com/openpocket/openpocket/internal/run"
)

// The HTML run report (play --report-html DIR): one self-contained page per
// playbook run under DIR/<run>/index.html — every step with its status,
// duration and YAML line, a screenshot after each UI step (a thumbnail
// that opens full size, CSS only), the failure's message, screen and UI
// dump, and the recording — plus DIR/index.html listing the runs. It is
// rendered with html/template, needs no build step or network, and opens
// from the file system.

//go:embed templates/report.html
var reportHTMLSource string

var reportHTMLTemplate = template.Must(template.New("report").Parse(reportHTMLSource))

var reportIndexTemplate = template.Must(template.New("index").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>OpenPocket runs</title>
<style>body{font:15px/1.45 system-ui,sans-serif;margin:24px;color:#1d2330;overflow-wrap:anywhere}
td,th{padding:6px 10px;border-bottom:1px solid #e2e5ea;text-align:left}
@media (max-width:600px){body{margin:12px}td,th{padding:4px 6px}}
.passed{color:#1f7a3e}.failed{color:#a52a2a}</style></head>
<body><h1>OpenPocket runs</h1><p>{{.Passed}} passed, {{.Failed}} failed</p>
<table id="runs"><tr><th>playbook</th><th>status</th><th>duration</th><th>steps</th></tr>
{{range .Runs}}<tr><td><a href="{{.Link}}">{{.Name}}</a></td><td class="{{.Status}}">{{.Status}}</td><td>{{.Duration}}</td><td>{{.Steps}}</td></tr>
{{end}}</table></body></html>
`))

type htmlStep struct {
	ID, Status, Label, Error string
	File, Source, Duration   string
	Line, Indent             int
	Screenshot               string
}

type htmlRun struct {
	Name, File, Status, Duration, Started, Error string
	FailureImage, FailureDump                    string
	Steps                                        []htmlStep
	Videos                                       []string
}

type indexEntry struct {
	Name, Status, Duration, Link string
	Steps                        int
}

// HTML collects the runs of one play invocation.
type HTML struct {
	dir  string
	runs []indexEntry
}

// NewHTML is the HTML report under dir.
func NewHTML(dir string) *HTML { return &HTML{dir: dir} }

// Len is the number of runs written so far.
func (h *HTML) Len() int { return len(h.runs) }

// Add writes the run's page and copies its images and videos next to it.
func (h *HTML) Add(fr run.PlaybookResult, started time.Time) error {
	name := filepath.Base(fr.OutputDir)
	if fr.OutputDir == "" {
		name = started.Format("20060102-150405") + "-compile-error"
	}
	dir := filepath.Join(h.dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	page := htmlRun{Name: fr.Name, File: fr.File, Status: fr.Status, Duration: run.FormatMs(fr.DurationMs),
		Started: started.Format(time.RFC3339), Error: fr.Error}
	src := sourceLines(fr.File)
	for i, s := range fr.Steps {
		st := htmlStep{ID: fmt.Sprint(i + 1), Status: s.Status, Label: s.Label, Error: s.Error, File: filepath.Base(s.File),
			Line: s.Line, Indent: 16 * s.Depth, Duration: run.FormatMs(s.DurationMs)}
		if s.File == fr.File && s.Line > 0 && s.Line <= len(src) {
			st.Source = strings.TrimSpace(src[s.Line-1])
		}
		if s.Screenshot != "" {
			rel := fmt.Sprintf("steps/%03d.png", i+1)
			if copyFile(filepath.Join(fr.OutputDir, s.Screenshot), filepath.Join(dir, rel)) == nil {
				st.Screenshot = rel
			}
		}
		page.Steps = append(page.Steps, st)
	}
	for _, a := range fr.Artifacts {
		base := filepath.Base(a)
		if copyFile(a, filepath.Join(dir, base)) != nil {
			continue
		}
		switch {
		case base == "failure.png":
			page.FailureImage = base
		case base == "failure.xml":
			if b, err := os.ReadFile(a); err == nil {
				page.FailureDump = string(b)
			}
		case strings.HasSuffix(base, ".mp4"):
			page.Videos = append(page.Videos, base)
		}
	}
	var b strings.Builder
	if err := reportHTMLTemplate.Execute(&b, page); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "index.html"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	h.runs = append(h.runs, indexEntry{Name: fr.Name, Status: fr.Status, Duration: page.Duration, Link: name + "/index.html", Steps: len(fr.Steps)})
	return h.writeIndex()
}

func (h *HTML) writeIndex() error {
	data := struct {
		Runs           []indexEntry
		Passed, Failed int
	}{Runs: h.runs}
	for _, r := range h.runs {
		if r.Status == "passed" {
			data.Passed++
		} else {
			data.Failed++
		}
	}
	var b strings.Builder
	if err := reportIndexTemplate.Execute(&b, data); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(h.dir, "index.html"), []byte(b.String()), 0o644)
}

func sourceLines(file string) []string {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	return strings.Split(string(b), "\n")
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(dst, b, 0o644)
}
