package sandbox

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// sameUser checks the connecting process's user (SO_PEERCRED): only this
// process's own user — which a confined script is, through its user
// namespace's mapping — may use the gate. The socket's owner-only
// directory already keeps other users out; this holds even if that
// directory's mode were widened.
func sameUser(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if credErr != nil {
		return credErr
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("connection from uid %d refused: the adb gate serves uid %d only", cred.Uid, os.Getuid())
	}
	return nil
}
