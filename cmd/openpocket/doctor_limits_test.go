package main_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sandbox"
)

// TestDoctorShowsWhichSandboxLimitsHold: `openpocket doctor` prints one
// line per confinement limit — processes among them — marked ✓ only where
// this machine's probe says it holds (a machine without a pids cgroup
// once got ✓ for processes while 618 of 256 ran).
func TestDoctorShowsWhichSandboxLimitsHold(t *testing.T) {
	home := homeWithModel(t, llmtest.NewServer(t))
	res := runBinary(t, nil, "--home", home, "doctor")
	for _, g := range sandbox.Probe().Guarantees(os.Geteuid() == 0) {
		mark := map[bool]string{true: "✓", false: "✗"}[g.Holds]
		assert.Contains(t, res.stdout, mark+" sandbox: "+g.Name+": "+g.How, "doctor:\n%s", res.stdout)
	}
	assert.Contains(t, res.stdout, "sandbox: processes: ")
}
