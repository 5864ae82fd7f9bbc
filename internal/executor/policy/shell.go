package policy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"

	"github.com/openpocket/openpocket/internal/sandbox"
)

// ShellOptions configures RunShell.
type ShellOptions struct {
	Allow Allowlist
	// Workspace is the only directory the interpreter's redirections, globs
	// and cd may reach (through an os.Root), and the directory bound
	// read-write for commands. Dir, inside it, is the starting directory.
	Workspace string
	Dir       string
	// Sandbox confines every external command (required).
	Sandbox *sandbox.Sandbox
	// ADBGate, when set, is the commands' only way to the adb server.
	ADBGate *sandbox.ADBGate
	Limits  sandbox.Limits
	// Env is the starting environment (already reduced by the caller).
	Env    []string
	Stdout io.Writer
	Stderr io.Writer
	// MaxChars limits the script length (0: none).
	MaxChars int
	// MaxMemoryBytes bounds the interpreter's own heap growth (0:
	// DefaultShellMemory); Limits.FileBytes bounds its redirections too.
	MaxMemoryBytes int64
}

// RunShell parses script and runs it with mvdan.cc/sh/v3's interpreter. Every
// simple command is checked after expansion (CallHandler) and every program
// is started confined (ExecHandler). A refused command stops the script: the
// error is then a *Violation. Otherwise the error is nil or an
// interp.ExitStatus; ctx ends every process at once.
func RunShell(ctx context.Context, script string, o ShellOptions) error {
	if v := checkLength(script, o.MaxChars); v != nil {
		return v
	}
	file, v := Parse(script, "script.sh")
	if v != nil {
		return v
	}
	if v := checkFile(file, o.Allow); v != nil {
		return v
	}
	root, err := os.OpenRoot(o.Workspace)
	if err != nil {
		return fmt.Errorf("open workspace: %w", err)
	}
	defer root.Close()
	cg, err := sandbox.NewCgroup(o.Limits.Processes)
	if err != nil {
		return err
	}
	defer cg.Close()
	sh := &shell{o: o, root: root, funcs: declaredFuncs(file), cgroup: cg}
	dir := o.Dir
	if dir == "" {
		dir = o.Workspace
	}
	stdin, err := os.Open(os.DevNull) // a script reads end of file, never the host's stdin
	if err != nil {
		return err
	}
	defer stdin.Close()
	r, err := interp.New(
		interp.Env(expand.ListEnviron(o.Env...)),
		interp.Dir(dir),
		interp.StdIO(stdin, o.Stdout, o.Stderr),
		interp.CallHandler(sh.call),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return sh.exec }),
		interp.OpenHandler(sh.open),
		interp.StatHandler(sh.stat),
		interp.ReadDirHandler2(sh.readDir),
	)
	if err != nil {
		return fmt.Errorf("shell: %w", err)
	}
	mem := o.MaxMemoryBytes
	if mem <= 0 {
		mem = DefaultShellMemory
	}
	runCtx, unwatch := watchMemory(ctx, mem)
	err = r.Run(runCtx, file)
	cause := context.Cause(runCtx)
	unwatch()
	var refused *Violation
	if errors.As(cause, &refused) && ctx.Err() == nil {
		return refused
	}
	if errors.As(err, &refused) {
		return refused
	}
	return err
}

// shell holds one run's hooks.
type shell struct {
	o      ShellOptions
	root   *os.Root
	funcs  map[string]bool
	cgroup *sandbox.Cgroup
	// checked is when call last checked the heap (checkWatched), in Unix
	// nanoseconds; pipelines call from several goroutines.
	checked atomic.Int64
}

// call checks every simple command (builtins and functions too) after
// expansion.
func (s *shell) call(ctx context.Context, args []string) ([]string, error) {
	// A statement that grows the heap by megabytes takes far longer than
	// memoryCheckGap, so skipping checks closer than that misses nothing.
	if now, last := time.Now().UnixNano(), s.checked.Load(); now-last >= int64(memoryCheckGap) && s.checked.CompareAndSwap(last, now) {
		checkWatched()
	}
	var over *Violation
	if errors.As(context.Cause(ctx), &over) {
		return nil, over
	}
	if len(args) == 0 {
		return args, nil
	}
	if s.funcs[args[0]] && !strings.Contains(args[0], "/") {
		return args, checkCallSize(args, interp.HandlerCtx(ctx).Pos.Line()).orNil()
	}
	line := interp.HandlerCtx(ctx).Pos.Line()
	if v := checkCallSize(args, line); v != nil {
		return nil, v
	}
	if v := s.o.Allow.CheckCall(args, line); v != nil {
		return nil, v
	}
	return args, nil
}

// exec starts an allowed program inside the sandbox and waits for it.
func (s *shell) exec(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	if v := s.o.Allow.checkProgram(args[0], hc.Pos.Line()); v != nil {
		return v
	}
	var env []string
	hc.Env.Each(func(name string, vr expand.Variable) bool {
		if vr.Exported && vr.Kind == expand.String {
			env = append(env, name+"="+vr.Str)
		}
		return true
	})
	if !s.o.Allow.AllowsAll() {
		args = sandboxArgs(args)
	}
	cmd, err := s.o.Sandbox.Command(sandbox.Spec{
		Args: args, Workspace: s.o.Workspace, Dir: hc.Dir, Env: env,
		ADBGate: s.o.ADBGate, Limits: s.o.Limits, Cgroup: s.cgroup,
	})
	if err != nil {
		return &Violation{"sandbox", err.Error()}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = hc.Stdin, osFile(hc.Stdout), osFile(hc.Stderr)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = drainGrace
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(hc.Stderr, "%s: %v\n", args[0], err)
		return interp.ExitStatus(127)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			s.cgroup.Kill()
		case <-done:
		}
	}()
	err = cmd.Wait()
	close(done)
	return exitStatus(cmd, err)
}

func exitStatus(cmd *exec.Cmd, err error) error {
	st := cmd.ProcessState
	if st == nil {
		return err
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return interp.ExitStatus(128 + uint8(ws.Signal()))
	}
	if code := st.ExitCode(); code != 0 {
		return interp.ExitStatus(uint8(code))
	}
	return nil
}

// rel maps a path the interpreter uses to one inside the workspace, or
// fails when it would leave it.
func (s *shell) rel(ctx context.Context, path string) (string, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(interp.HandlerCtx(ctx).Dir, path)
	}
	rel, err := filepath.Rel(s.o.Workspace, filepath.Clean(path))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", &fs.PathError{Op: "open", Path: path, Err: errors.New("outside the workspace")}
	}
	return rel, nil
}

// open serves redirections: /dev/null, or a regular file inside the
// workspace through the os.Root (no symlink or .. escape). FIFOs and
// devices are refused without blocking.
func (s *shell) open(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	if path == "/dev/null" {
		return os.OpenFile(path, flag, perm)
	}
	rel, err := s.rel(ctx, path)
	if err != nil {
		return nil, err
	}
	f, err := s.root.OpenFile(rel, flag|syscall.O_NONBLOCK, perm)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: errors.New("not a regular file")}
	}
	max := s.o.Limits.FileBytes
	if max == 0 {
		max = sandbox.DefaultLimits.FileBytes
	}
	return capWrites(f, flag, int64(max)), nil
}

func (s *shell) stat(ctx context.Context, name string, follow bool) (fs.FileInfo, error) {
	rel, err := s.rel(ctx, name)
	if err != nil {
		return nil, err
	}
	if follow {
		return s.root.Stat(rel)
	}
	return s.root.Lstat(rel)
}

func (s *shell) readDir(ctx context.Context, path string) ([]fs.DirEntry, error) {
	rel, err := s.rel(ctx, path)
	if err != nil {
		return nil, err
	}
	d, err := s.root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir(-1)
}
