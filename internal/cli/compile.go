package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/openpocket/openpocket/engine/hostfs"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/playbooks"
)

// CompileCmd prints the Lua a playbook compiles to.
type CompileCmd struct {
	File string            `arg:"" help:"Playbook file." type:"existingfile"`
	Env  map[string]string `short:"e" help:"Set a playbook param (repeatable): -e KEY=VALUE." placeholder:"KEY=VALUE"`
}

// Run compiles and prints; errors name file:line:column with a snippet.
func (c *CompileCmd) Run(out Streams) error {
	res, err := compilePlaybook(out.Stderr, c.File, playbookParams{values: c.Env})
	if err != nil {
		return err
	}
	_, err = out.Stdout.Write(res.Lua)
	return err
}

// LintCmd validates playbooks without a device.
type LintCmd struct {
	Paths []string          `arg:"" help:"Playbook files or directories." type:"path"`
	Env   map[string]string `short:"e" help:"Check a playbook param value (repeatable): -e KEY=VALUE. Required params may be left out." placeholder:"KEY=VALUE"`
}

// Run compiles every playbook (and the Lua it generates) and reports all
// problems.
func (c *LintCmd) Run(out Streams) error {
	files, err := expandPlaybooks(c.Paths)
	if err != nil {
		return UsageError{err}
	}
	bad := 0
	for _, f := range files {
		if _, err := compilePlaybook(out.Stderr, f, playbookParams{values: c.Env, lint: true, shared: len(files) > 1}); err != nil {
			if errors.As(err, new(*os.PathError)) {
				return err
			}
			bad++
			fmt.Fprintln(out.Stderr, strings.TrimSpace(err.Error()))
			continue
		}
		fmt.Fprintf(out.Stdout, "ok %s\n", f)
	}
	if bad > 0 {
		return UsageError{fmt.Errorf("%d of %d playbooks have errors", bad, len(files))}
	}
	return nil
}

// playbookParams say how -e values apply to one playbook.
type playbookParams struct {
	values map[string]string
	// lint accepts missing required params.
	lint bool
	// shared: the values were given for several playbooks at once, so a
	// playbook that does not declare one ignores it (with a note), as
	// Maestro's -e does.
	shared bool
	// quiet drops the notes (the playbook is filtered out anyway).
	quiet bool
	// root, when set, confines the playbook and every file it includes to
	// that directory (engine/hostfs: no "..", absolute path or link out,
	// no FIFO): MCP clients name files, and an error quoting a line of
	// /etc/shadow must be impossible.
	root string
}

// compilePlaybook reads and compiles one playbook (run.CompilePlaybookIn),
// prints its warnings and checks that the Lua it generates (lua: steps,
// ${expressions}) compiles, reporting a syntax error at the YAML line of
// its step. Errors are UsageErrors (exit 2).
func compilePlaybook(warn io.Writer, file string, p playbookParams) (*playbooks.Result, error) {
	// A regular file only, opened non-blocking: a FIFO among the files
	// named (lint flows/) is an error at once, never a hang.
	read := func(name string) ([]byte, error) { return hostfs.ReadRegular(name, maxPlaybookBytes) }
	if p.root != "" {
		read = func(name string) ([]byte, error) { return hostfs.ReadFile(p.root, name, maxPlaybookBytes) }
	}
	src, err := read(file)
	if err != nil {
		return nil, UsageError{err}
	}
	return compilePlaybookSource(warn, file, src, p)
}

// compilePlaybookSource is compilePlaybook for source already read; with
// p.root its includes are read inside the root.
func compilePlaybookSource(warn io.Writer, file string, src []byte, p playbookParams) (*playbooks.Result, error) {
	params := p.values
	if p.shared {
		params = declaredParams(warn, src, file, params, p.quiet)
	}
	res, err := run.CompilePlaybookSourceIn(p.root, file, src, params, p.lint)
	if res != nil {
		for _, w := range res.Warnings {
			fmt.Fprintf(warn, "warning: %s\n", w)
		}
	}
	if err != nil {
		return res, UsageError{err}
	}
	return res, nil
}

// maxPlaybookBytes caps a playbook the command reads.
const maxPlaybookBytes = 4 << 20

// declaredParams keeps the -e values the playbook declares and notes the
// others. A playbook that does not parse keeps them all: its compile error
// says what is wrong.
func declaredParams(warn io.Writer, src []byte, file string, values map[string]string, quiet bool) map[string]string {
	if len(values) == 0 {
		return values
	}
	pb, err := playbooks.Parse(src, file)
	if err != nil || pb == nil {
		return values
	}
	declared := map[string]bool{}
	for _, prm := range pb.Params {
		declared[prm.Name] = true
	}
	kept := map[string]string{}
	var ignored []string
	for k, v := range values {
		if declared[k] {
			kept[k] = v
		} else {
			ignored = append(ignored, k)
		}
	}
	if len(ignored) > 0 && !quiet {
		sort.Strings(ignored)
		fmt.Fprintf(warn, "note: %s does not declare %s; ignored for it\n", file, strings.Join(ignored, ", "))
	}
	return kept
}

// dryRun prints the plan of each selected playbook (steps with file:line)
// without a device, so a user sees what would run.
func dryRun(out Streams, files []string, c *PlayCmd) error {
	bad := 0
	for _, f := range files {
		if !fileSelected(f, c.IncludeTags, c.ExcludeTags) {
			continue
		}
		res, err := compilePlaybook(out.Stderr, f, playbookParams{values: c.Env, shared: len(files) > 1})
		if err != nil {
			bad++
			fmt.Fprintln(out.Stderr, strings.TrimSpace(err.Error()))
			continue
		}
		fmt.Fprintf(out.Stdout, "%s (%s): %d steps\n%s\n", res.Meta.Name, f, len(res.Plan), playbooks.FormatPlan(res.Plan))
	}
	if bad > 0 {
		return UsageError{fmt.Errorf("%d of %d playbooks have errors", bad, len(files))}
	}
	return nil
}

// fileSelected reads a playbook's tags and applies --include-tags and
// --exclude-tags before it is compiled, so a filtered-out playbook is
// neither planned, run nor held to the -e values. One that does not parse
// is selected: compiling it reports the problem.
func fileSelected(file string, include, exclude []string) bool {
	if len(include) == 0 && len(exclude) == 0 {
		return true
	}
	src, err := hostfs.ReadRegular(file, maxPlaybookBytes)
	if err != nil {
		return true
	}
	pb, err := playbooks.Parse(src, file)
	if err != nil || pb == nil {
		return true
	}
	return tagsSelected(pb.Tags, include, exclude)
}
