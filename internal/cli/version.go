package cli

import (
	"fmt"
	"runtime"
)

// VersionCmd prints the version.
type VersionCmd struct{}

// Run prints "openpocket VERSION (go, os/arch)", as --version does.
func (c *VersionCmd) Run(out Streams) error {
	_, err := fmt.Fprintln(out.Stdout, versionLine())
	return err
}

func versionLine() string {
	return fmt.Sprintf("openpocket %s (%s, %s/%s)", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
