//go:build !linux

package sandbox

import "net"

// sameUser: outside Linux the socket's owner-only directory alone keeps
// other users out.
func sameUser(net.Conn) error { return nil }
