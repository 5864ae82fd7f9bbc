//go:build !unix

package workspace

import "errors"

var (
	errNoSpace    = errors.New("no space left on device")
	errReadOnlyFS = errors.New("read-only file system")
	errNotDir     = errors.New("not a directory")
)
