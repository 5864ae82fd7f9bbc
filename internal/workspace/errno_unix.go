//go:build unix

package workspace

import "syscall"

var (
	errNoSpace    error = syscall.ENOSPC
	errReadOnlyFS error = syscall.EROFS
	errNotDir     error = syscall.ENOTDIR
)
