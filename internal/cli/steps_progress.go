package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/openpocket/openpocket/internal/report"
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

func oneLine(s string) string { return report.OneLine(s) }
