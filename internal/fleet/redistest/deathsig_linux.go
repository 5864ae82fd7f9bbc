package redistest

import (
	"os/exec"
	"syscall"
)

// dieWithTest kills the server when the test binary dies (a killed or
// timed-out test leaves no redis-server behind).
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
