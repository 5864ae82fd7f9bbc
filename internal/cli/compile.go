package cli

import (
	"fmt"
	"os"

	"github.com/openpocket/openpocket/playbooks"
)

// CompileCmd prints the Lua a playbook compiles to.
type CompileCmd struct {
	File string            `arg:"" help:"Playbook file." type:"existingfile"`
	Env  map[string]string `short:"e" help:"Set a playbook param (repeatable): -e KEY=VALUE." placeholder:"KEY=VALUE"`
}

// Run compiles and prints; errors name file:line:column with a snippet.
func (c *CompileCmd) Run(app *App) error {
	src, err := os.ReadFile(c.File)
	if err != nil {
		return UsageError{err}
	}
	res, err := playbooks.CompileWithMap(src, playbooks.Options{File: c.File, Params: c.Env})
	if err != nil {
		return UsageError{err}
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(app.Stderr, "warning: %s\n", w)
	}
	_, err = app.Stdout.Write(res.Lua)
	return err
}

// LintCmd validates playbooks without a device.
type LintCmd struct {
	Paths []string `arg:"" help:"Playbook files or directories." type:"path"`
}

// Run compiles every playbook and reports all problems.
func (c *LintCmd) Run(app *App) error {
	files, err := expandPlaybooks(c.Paths)
	if err != nil {
		return UsageError{err}
	}
	bad := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return UsageError{err}
		}
		res, err := playbooks.CompileWithMap(src, playbooks.Options{File: f})
		if err != nil {
			bad++
			fmt.Fprintln(app.Stderr, err)
			continue
		}
		for _, w := range res.Warnings {
			fmt.Fprintf(app.Stderr, "warning: %s\n", w)
		}
		fmt.Fprintf(app.Stdout, "ok %s\n", f)
	}
	if bad > 0 {
		return UsageError{fmt.Errorf("%d of %d playbooks have errors", bad, len(files))}
	}
	return nil
}

// dryRun prints each playbook's plan (steps with file:line) without a
// device, so a user sees what would run.
func dryRun(app *App, files []string, params map[string]string) error {
	bad := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return UsageError{err}
		}
		res, err := playbooks.CompileWithMap(src, playbooks.Options{File: f, Params: params})
		if err != nil {
			bad++
			fmt.Fprintln(app.Stderr, err)
			continue
		}
		fmt.Fprintf(app.Stdout, "%s (%s): %d steps\n%s\n", res.Meta.Name, f, len(res.Plan), playbooks.FormatPlan(res.Plan))
	}
	if bad > 0 {
		return UsageError{fmt.Errorf("%d of %d playbooks have errors", bad, len(files))}
	}
	return nil
}
