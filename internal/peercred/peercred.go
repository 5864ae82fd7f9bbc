// Package peercred is a leaf utility: the user of the process at the other
// end of a unix socket (SO_PEERCRED), for servers that serve their own user
// only (the adb gate, a gateway's control socket) whatever the mode of the
// socket's directory.
package peercred

import (
	"errors"
	"fmt"
	"net"
	"os"
)

// ErrNotUnix is returned for a connection that is not a unix socket's.
var ErrNotUnix = errors.New("peercred: not a unix socket connection")

// SameUser returns nil when the peer of c runs as this process's user, an
// error saying whose it is otherwise (or why it cannot be told).
func SameUser(c net.Conn) error {
	uid, err := UID(c)
	if err != nil {
		return err
	}
	if uid != os.Getuid() {
		return fmt.Errorf("connection from uid %d refused: this socket serves uid %d only", uid, os.Getuid())
	}
	return nil
}
