package policy

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/openpocket/openpocket/internal/sandbox"
)

// SpawnOptions describes a child process started by Spawn.
type SpawnOptions struct {
	// Args is the command line; Args[0] is looked up in PATH.
	Args []string
	// Dir is the working directory.
	Dir string
	// Env is the environment (callers pass sandbox.Environment(...)).
	Env []string
	// Stdout receives standard output. When Stderr is nil, standard error
	// goes to Stdout too (one pipe, so the interleaving is preserved).
	Stdout io.Writer
	Stderr io.Writer
	// Stdin opens a pipe for Proc.WriteStdin; otherwise stdin is /dev/null.
	Stdin bool
	// Sandbox, when set, confines the process (Workspace read-write, Limits,
	// no network) and puts its tree in its own pids cgroup.
	Sandbox   *sandbox.Sandbox
	Workspace string
	Limits    sandbox.Limits
}

// drainGrace bounds how long output is read after the process group is gone;
// a grandchild that escaped the group (setsid) cannot hold a run open.
const drainGrace = 2 * time.Second

// Proc is a child process running in its own process group. Output is read
// through os pipes by Proc itself, so Done does not depend on stray
// background children closing their copies: when the main process exits, the
// rest of its group is killed and output is drained.
type Proc struct {
	pgid     int
	stdin    io.WriteCloser
	done     chan struct{}
	exitCode int
	cgroup   *sandbox.Cgroup
	mu       sync.Mutex
}

// command builds the process: confined by o.Sandbox when set, in a fresh
// pids cgroup (nil when the machine has none).
func command(o SpawnOptions) (*exec.Cmd, *sandbox.Cgroup, error) {
	if o.Sandbox == nil {
		cmd := exec.Command(o.Args[0], o.Args[1:]...)
		cmd.Dir, cmd.Env = o.Dir, o.Env
		return cmd, nil, nil
	}
	cg, err := sandbox.NewCgroup(o.Limits.Processes)
	if err != nil {
		return nil, nil, err
	}
	cmd, err := o.Sandbox.Command(sandbox.Spec{Args: o.Args, Workspace: o.Workspace, Dir: o.Dir, Env: o.Env, Limits: o.Limits, Cgroup: cg})
	if err != nil {
		cg.Close()
		return nil, nil, err
	}
	return cmd, cg, nil
}

// Spawn starts the process in a new process group.
func Spawn(o SpawnOptions) (*Proc, error) {
	if len(o.Args) == 0 {
		return nil, errors.New("spawn: empty command line")
	}
	cmd, cg, err := command(o)
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}

	var readers []*os.File
	var writers []*os.File
	closeAll := func() {
		for _, f := range append(readers, writers...) {
			f.Close()
		}
		cg.Close()
	}
	pipe := func() (*os.File, error) {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		readers = append(readers, r)
		writers = append(writers, w)
		return w, nil
	}
	outW, err := pipe()
	if err != nil {
		cg.Close()
		return nil, fmt.Errorf("spawn: %w", err)
	}
	cmd.Stdout = outW
	cmd.Stderr = outW
	if o.Stderr != nil {
		errW, err := pipe()
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("spawn: %w", err)
		}
		cmd.Stderr = errW
	}
	p := &Proc{done: make(chan struct{}), cgroup: cg}
	if o.Stdin {
		if p.stdin, err = cmd.StdinPipe(); err != nil {
			closeAll()
			return nil, fmt.Errorf("spawn: %w", err)
		}
	}
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("spawn %s: %w", o.Args[0], err)
	}
	p.pgid = cmd.Process.Pid
	for _, w := range writers {
		w.Close()
	}
	dsts := []io.Writer{o.Stdout, o.Stderr}
	var drained sync.WaitGroup
	for i, r := range readers {
		drained.Add(1)
		go func(r *os.File, dst io.Writer) {
			defer drained.Done()
			if dst == nil {
				dst = io.Discard
			}
			io.Copy(dst, r)
		}(r, dsts[i])
	}
	go func() {
		_ = cmd.Wait() // the status is read from cmd.ProcessState below
		// Stray members of the group would keep running (and keep the
		// pipes open): the run is over, so they go too.
		syscall.Kill(-p.pgid, syscall.SIGKILL)
		cg.Close()
		ch := make(chan struct{})
		go func() { drained.Wait(); close(ch) }()
		select {
		case <-ch:
		case <-time.After(drainGrace):
			for _, r := range readers {
				r.Close()
			}
			<-ch
		}
		for _, r := range readers {
			r.Close()
		}
		p.mu.Lock()
		p.exitCode = -1
		if st := cmd.ProcessState; st != nil {
			if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				p.exitCode = 128 + int(ws.Signal())
			} else {
				p.exitCode = st.ExitCode()
			}
		}
		p.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// Pid is the process id (and process group id).
func (p *Proc) Pid() int { return p.pgid }

// Done is closed once the process has exited and its output is drained.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Exited reports whether Done is closed.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// ExitCode is the exit status after Done: the exit code, 128+signal when a
// signal ended the process (137 for SIGKILL), -1 when unknown.
func (p *Proc) ExitCode() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exitCode
}

// Signal sends sig to the whole process group. Signalling a finished group
// is not an error.
func (p *Proc) Signal(sig syscall.Signal) error {
	if p.Exited() {
		return nil
	}
	if err := syscall.Kill(-p.pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal process group %d: %w", p.pgid, err)
	}
	return nil
}

// Kill sends SIGKILL to the whole process group (and every process of its
// cgroup, wherever it moved) and waits for Done.
func (p *Proc) Kill() {
	p.Signal(syscall.SIGKILL)
	p.cgroup.Kill()
	<-p.done
}

// Terminate sends SIGTERM to the group, waits up to grace, then SIGKILL. It
// returns once Done is closed and reports whether SIGKILL was needed.
func (p *Proc) Terminate(grace time.Duration) (killed bool) {
	p.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return false
	case <-time.After(grace):
	}
	p.Kill()
	return true
}

// WriteStdin writes to the process's standard input (Spawn with Stdin).
func (p *Proc) WriteStdin(b []byte) (int, error) {
	if p.stdin == nil {
		return 0, errors.New("stdin is not open")
	}
	if p.Exited() {
		return 0, errors.New("process has exited")
	}
	return p.stdin.Write(b)
}

// CloseStdin closes standard input (the process sees end of file).
func (p *Proc) CloseStdin() error {
	if p.stdin == nil {
		return nil
	}
	return p.stdin.Close()
}
