package lease

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// holderEnv makes the test binary a lease holder (see TestMain): it takes
// the lease of the serial in DIR|SERIAL, prints "held", and waits to be
// killed.
const holderEnv = "OPENPOCKET_TEST_LEASE_HOLDER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(holderEnv); spec != "" {
		dir, serial, _ := strings.Cut(spec, "|")
		l, err := Acquire(context.Background(), serial, Options{Dir: dir, Command: "lease-test holder"})
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("held")
		time.Sleep(time.Minute)
		l.Release()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestSecondDriverIsRefusedNamingTheHolder(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(context.Background(), "127.0.0.1:5555", Options{Dir: dir, Command: "openpocket agent"})
	require.NoError(t, err)

	_, err = Acquire(context.Background(), "127.0.0.1:5555", Options{Dir: dir, Command: "openpocket play"})
	require.ErrorIs(t, err, ErrBusy)
	var busy *BusyError
	require.ErrorAs(t, err, &busy)
	assert.Equal(t, os.Getpid(), busy.Holder.PID)
	assert.Contains(t, err.Error(), fmt.Sprintf("device 127.0.0.1:5555 is in use by pid %d (openpocket agent) since ", os.Getpid()))

	// Another serial is independent.
	other, err := Acquire(context.Background(), "emulator-5554", Options{Dir: dir})
	require.NoError(t, err)
	require.NoError(t, other.Release())

	require.NoError(t, l.Release())
	require.NoError(t, l.Release(), "a second Release is harmless")
	again, err := Acquire(context.Background(), "127.0.0.1:5555", Options{Dir: dir, Command: "openpocket play"})
	require.NoError(t, err)
	h, err := ReadHolder(dir, "127.0.0.1:5555")
	require.NoError(t, err)
	assert.Equal(t, "openpocket play", h.Command)
	require.NoError(t, again.Release())
}

func TestWaitGetsTheLeaseWhenTheHolderReleases(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(context.Background(), "s1", Options{Dir: dir})
	require.NoError(t, err)
	time.AfterFunc(300*time.Millisecond, func() { l.Release() })
	start := time.Now()
	var told []Holder
	l2, err := Acquire(context.Background(), "s1", Options{Dir: dir, Wait: 10 * time.Second, Poll: 20 * time.Millisecond,
		OnWait: func(h Holder) { told = append(told, h) }})
	require.NoError(t, err)
	require.Len(t, told, 1, "OnWait is called once")
	assert.Equal(t, os.Getpid(), told[0].PID)
	assert.GreaterOrEqual(t, time.Since(start), 250*time.Millisecond, "it waited for the release")
	require.NoError(t, l2.Release())
}

func TestWaitGivesUpAfterItsDurationAndOnCancel(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(context.Background(), "s1", Options{Dir: dir, Command: "first"})
	require.NoError(t, err)
	defer l.Release()

	_, err = Acquire(context.Background(), "s1", Options{Dir: dir, Wait: 150 * time.Millisecond, Poll: 20 * time.Millisecond})
	var busy *BusyError
	require.ErrorAs(t, err, &busy)
	assert.Equal(t, 150*time.Millisecond, busy.Waited)
	assert.Contains(t, err.Error(), "still in use by pid")
	assert.Contains(t, err.Error(), "(first)")
	assert.Contains(t, err.Error(), "after waiting 150ms")

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err = Acquire(ctx, "s1", Options{Dir: dir, Wait: time.Hour})
	assert.ErrorIs(t, err, context.Canceled)
}

// TestLeaseOfADeadHolderIsFree: another process holds the lease (and is
// named in the refusal); once it is killed, the lease is free at once.
func TestLeaseOfADeadHolderIsFree(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holderEnv+"="+dir+"|phone-1")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "held\n", line)

	_, err = Acquire(context.Background(), "phone-1", Options{Dir: dir})
	var busy *BusyError
	require.ErrorAs(t, err, &busy)
	assert.Equal(t, cmd.Process.Pid, busy.Holder.PID)
	assert.Equal(t, "lease-test holder", busy.Holder.Command)

	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	l, err := Acquire(context.Background(), "phone-1", Options{Dir: dir})
	require.NoError(t, err, "the kernel released the dead holder's lock")
	require.NoError(t, l.Release())
}

func TestPathIsSafeAndDistinct(t *testing.T) {
	a, b := Path("/d", "127.0.0.1:5555"), Path("/d", "127.0.0.1_5555")
	assert.NotEqual(t, a, b)
	assert.True(t, strings.HasPrefix(a, "/d/127.0.0.1_5555-"), a)
	assert.NotContains(t, Path("/d", "../../etc/passwd"), "/../")
	_, err := Acquire(context.Background(), "", Options{Dir: t.TempDir()})
	assert.Error(t, err)
	assert.False(t, errors.Is(err, ErrBusy))
}

func TestDirIsPrivateAndOverridable(t *testing.T) {
	t.Setenv(DirEnv, "")
	t.Setenv("XDG_RUNTIME_DIR", "")
	assert.Equal(t, fmt.Sprintf("%s/openpocket-leases-%d", os.TempDir(), os.Geteuid()), Dir())
	rt := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", rt)
	assert.Equal(t, rt+"/openpocket-leases", Dir())
	l, err := Acquire(context.Background(), "s1", Options{})
	require.NoError(t, err)
	defer l.Release()
	st, err := os.Stat(Dir())
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), st.Mode().Perm(), "a directory the lease makes is private")
	t.Setenv(DirEnv, "/x/leases")
	assert.Equal(t, "/x/leases", Dir())
}

// TestUnusableDirectoryIsAClearError: a lease directory that cannot hold
// lock files (here a file is in its way) fails the acquisition, saying
// where.
func TestUnusableDirectoryIsAClearError(t *testing.T) {
	file := t.TempDir() + "/leases"
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err := Acquire(context.Background(), "s1", Options{Dir: file})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "device lease for s1: "+file+" is not a directory")
	assert.False(t, errors.Is(err, ErrBusy))
	assert.Contains(t, permissionHint(os.ErrPermission), DirEnv)
}
