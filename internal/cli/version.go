package cli

import (
	"fmt"
	"runtime"
)

// VersionCmd prints the version.
type VersionCmd struct{}

// Run prints "openpocket VERSION (go, os/arch)".
func (c *VersionCmd) Run(app *App) error {
	_, err := fmt.Fprintf(app.Stdout, "openpocket %s (%s, %s/%s)\n", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}
