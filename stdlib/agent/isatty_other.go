//go:build !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package agent

// isatty is false where terminal attributes are not read: the relay and
// `openpocket auth` answer instead of a prompt.
func isatty(uintptr) bool { return false }
