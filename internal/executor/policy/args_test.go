package policy

import (
	"strings"
	"testing"
)

// TestProgramRunningOptionsRefused: each option that makes an allowed
// tool start another program is refused after expansion, in every
// spelling getopt accepts; the tool's ordinary use passes.
func TestProgramRunningOptionsRefused(t *testing.T) {
	allow := NewAllowlist([]string{"sort", "rg", "find", "split", "tar", "zip", "rsync", "grep"})
	refused := [][]string{
		{"sort", "--compress-program=bash", "f"},
		{"sort", "--compress-program", "bash", "f"},
		{"sort", "-S1", "--comp=sh", "f"},
		{"sort", "f", "--co=sh"},
		{"rg", "--pre", "bash", "x"},
		{"rg", "--pre=bash", "x"},
		{"find", ".", "-exec", "id", ";"},
		{"find", ".", "-execdir", "id", "+"},
		{"find", ".", "-ok", "id", ";"},
		{"split", "--filter=sh", "f"},
		{"tar", "-cIsh", "-f", "a.tar", "."},
		{"tar", "--to-command=sh", "-xf", "a.tar"},
		{"tar", "--checkpoint-action=exec=id", "-cf", "a.tar", "."},
		{"zip", "-T", "-TT", "id", "a.zip", "f"},
		{"rsync", "-ae", "sh", "a", "b"},
	}
	for _, args := range refused {
		v := allow.CheckCall(args, 3)
		if v == nil || !strings.Contains(v.Reason, "runs another program and is never allowed") || !strings.Contains(v.Reason, "(line 3)") {
			t.Errorf("%q: got %v", args, v)
		}
	}
	for _, args := range [][]string{
		{"sort", "-k2", "-n", "--reverse", "f"},
		{"sort", "--", "--compress-program=x"},
		{"rg", "--pretty", "x"},
		{"find", ".", "-name", "*.go"},
		{"tar", "-cf", "a.tar", "."},
		{"grep", "--exec", "f"},
	} {
		if v := allow.CheckCall(args, 1); v != nil {
			t.Errorf("%q refused: %v", args, v)
		}
	}
	if v := NewAllowlist([]string{"*"}).CheckCall([]string{"sort", "--compress-program=gzip"}, 1); v != nil {
		t.Errorf(`"*" trusts the script: %v`, v)
	}
}

func TestSedAndAwkRunSandboxed(t *testing.T) {
	got := sandboxArgs([]string{"sed", "-e", "e id"})
	if strings.Join(got, " ") != "sed --sandbox -e e id" {
		t.Errorf("sed: %q", got)
	}
	if got := sandboxArgs([]string{"sort", "f"}); len(got) != 2 {
		t.Errorf("sort changed: %q", got)
	}
}
