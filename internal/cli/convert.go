package cli

import (
	"fmt"
	"path/filepath"

	"github.com/openpocket/openpocket/internal/convert/maestro"
	"github.com/openpocket/openpocket/playbooks"
)

// ConvertCmd converts flows of other tools into playbooks.
type ConvertCmd struct {
	Maestro ConvertMaestroCmd `cmd:"" help:"Convert Maestro flows (a file or a directory) into playbooks with the same layout."`
}

// ConvertMaestroCmd is `openpocket convert maestro FLOW|DIR [-o DIR]`.
type ConvertMaestroCmd struct {
	Path   string `arg:"" help:"Maestro flow file or directory of flows." type:"path"`
	Output string `short:"o" help:"Directory for the playbooks (same relative layout)." default:"converted" placeholder:"DIR"`
	NoLint bool   `name:"no-lint" help:"Do not lint the converted playbooks."`
}

// Help shows examples under --help.
func (c *ConvertMaestroCmd) Help() string { return exampleHelp("convert maestro") }

// Run converts, prints the per-file report and lints what it wrote; it
// fails when a file was not convertible or a converted playbook does not
// compile.
func (c *ConvertMaestroCmd) Run(out Streams) error {
	rep, err := maestro.Convert(c.Path, c.Output)
	if err != nil {
		return UsageError{err}
	}
	rep.Write(out.Stdout)
	_, _, failed := rep.Counts()
	bad := 0
	if !c.NoLint {
		for _, f := range rep.Files {
			if f.Output == "" {
				continue
			}
			if _, err := playbooks.Lint(f.Output); err != nil {
				bad++
				fmt.Fprintf(out.Stderr, "lint %s: %v\n", filepath.ToSlash(f.Output), err)
			}
		}
	}
	switch {
	case failed > 0 && bad > 0:
		return FailedError{Msg: fmt.Sprintf("%d files not convertible, %d converted playbooks do not lint", failed, bad)}
	case failed > 0:
		return FailedError{Msg: fmt.Sprintf("%d files not convertible", failed)}
	case bad > 0:
		return FailedError{Msg: fmt.Sprintf("%d converted playbooks do not lint", bad)}
	}
	return nil
}
