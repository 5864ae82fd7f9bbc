package sandbox

import (
	"errors"
	"fmt"
	"net"

	"github.com/openpocket/openpocket/internal/peercred"
)

// sameUser checks the connecting process's user (SO_PEERCRED): only this
// process's own user — which a confined script is, through its user
// namespace's mapping — may use the gate. The socket's owner-only
// directory already keeps other users out; this holds even if that
// directory's mode were widened.
func sameUser(c net.Conn) error {
	err := peercred.SameUser(c)
	switch {
	case errors.Is(err, peercred.ErrNotUnix):
		return nil // not the gate's unix socket: nothing to tell
	case err != nil:
		return fmt.Errorf("the adb gate: %w", err)
	}
	return nil
}
