package main_test

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestValidateAndLintRefuseAFIFOAtOnce: a model left a FIFO named like a
// replay script in a skills directory and like a playbook in a flows
// directory; `skills validate` and `lint` of those directories (and of the
// FIFO itself) report it and finish at once — runQuick fails the test
// when the binary blocks — and still check the other files.
func TestValidateAndLintRefuseAFIFOAtOnce(t *testing.T) {
	home := initHome(t)
	dir := t.TempDir()
	writeFile(t, dir, "skills/broken.lua", "local = 1\n")
	fifo := filepath.Join(dir, "skills", "evil.lua")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	for _, arg := range []string{filepath.Join(dir, "skills"), fifo} {
		res := runQuick(t, home, "skills", "validate", arg)
		assert.Equal(t, 1, res.code, res.stdout+res.stderr)
		assert.Contains(t, res.stdout, fifo)
		assert.Contains(t, res.stdout, "not a regular file (a FIFO)")
	}
	res := runQuick(t, home, "skills", "validate", filepath.Join(dir, "skills"))
	assert.Contains(t, res.stdout, filepath.Join(dir, "skills", "broken.lua"), "the regular script was checked too")

	writeFile(t, dir, "flows/ok.yaml", "name: ok\nsteps:\n  - assert: {expr: 'true'}\n")
	pfifo := filepath.Join(dir, "flows", "evil.yaml")
	require.NoError(t, syscall.Mkfifo(pfifo, 0o644))
	res = runQuick(t, home, "lint", filepath.Join(dir, "flows"))
	assert.Equal(t, 2, res.code, res.stdout+res.stderr)
	assert.Contains(t, res.stderr, pfifo)
	assert.Contains(t, res.stderr, "a FIFO")
	assert.Contains(t, res.stdout, "ok "+filepath.Join(dir, "flows", "ok.yaml"))

	writeFile(t, dir, "inc/main.yaml", "name: main\nsteps:\n  - run: evil.yaml\n")
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "inc", "evil.yaml"), 0o644))
	res = runQuick(t, home, "lint", filepath.Join(dir, "inc", "main.yaml"))
	assert.Equal(t, 2, res.code, res.stdout+res.stderr)
	assert.Contains(t, res.stderr, "a FIFO", "an included FIFO is refused at once")
}
