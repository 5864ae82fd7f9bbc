package backend

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/openpocket/openpocket/internal/dashboard"
	"github.com/openpocket/openpocket/internal/dashenv"
	"github.com/openpocket/openpocket/internal/workspace"
)

// install is an install with the default agent and agent "work"; opened
// counts the runtimes the opener made, closed those closed.
func install(t *testing.T) (in *workspace.Install, open dashenv.Opener, opened, closed *int) {
	t.Helper()
	dir := t.TempDir()
	if _, err := workspace.Open(dir); err != nil {
		t.Fatal(err)
	}
	in, err := workspace.OpenInstall(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.CreateAgent("work", workspace.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	opened, closed = new(int), new(int)
	open = func(id string) (*dashenv.AgentRuntime, error) {
		h, err := in.OpenAgent(id)
		if err != nil {
			return nil, err
		}
		*opened++
		return &dashenv.AgentRuntime{ID: id, Home: h, Close: func() { *closed++ }}, nil
	}
	return in, open, opened, closed
}

func TestManagerKeepsToItsOnlyAgentAndOpensItOnce(t *testing.T) {
	in, open, opened, closed := install(t)
	m := New(in, "work", open)
	list, err := m.Agents(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != "work" || list[0].Gateway != "stopped" {
		t.Fatalf("agents = %+v, want only work, its gateway stopped", list)
	}
	if _, err := m.Agent(workspace.DefaultAgent); !errors.Is(err, dashboard.ErrNoAgent) {
		t.Fatalf("the default agent from work's dashboard: err = %v, want ErrNoAgent", err)
	}
	if _, err := m.Agent("nobody"); !errors.Is(err, dashboard.ErrNoAgent) {
		t.Fatalf("unknown agent: err = %v, want ErrNoAgent", err)
	}
	for range 2 {
		if _, err := m.Agent("work"); err != nil {
			t.Fatal(err)
		}
	}
	if *opened != 1 {
		t.Fatalf("opened %d runtimes for two pages of one agent, want 1", *opened)
	}
	m.Close()
	if *closed != 1 {
		t.Fatalf("closed %d runtimes, want 1", *closed)
	}
}

func TestAgentReadsSessionsAndRefusesNamesOutsideItsFolders(t *testing.T) {
	in, open, _, _ := install(t)
	m := New(in, "", open)
	defer m.Close()
	ag, err := m.Agent("work")
	if err != nil {
		t.Fatal(err)
	}
	h, _ := in.OpenAgent("work")
	md := "# Session\n\n## Task\n\nopen settings\n\n## Final\n\n- status: ok\n"
	if err := os.WriteFile(filepath.Join(h.Workspace(), "sessions", "session-20260222-030000.md"), []byte(md), 0o600); err != nil {
		t.Fatal(err)
	}
	list, err := ag.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != "20260222-030000" || list[0].Task != "open settings" || list[0].Status != "ok" || list[0].Running {
		t.Fatalf("sessions = %+v", list)
	}
	if _, err := ag.SessionMarkdown("../../state/secret"); err == nil {
		t.Fatal("a session id with a path was read")
	}
	// A screenshot name is looked up under the screenshots folder only,
	// through os.Root: a link out of it is not followed.
	outside := filepath.Join(t.TempDir(), "secret.png")
	if err := os.WriteFile(outside, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	shots := h.ScreenshotsDir()
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(shots, "leak.png")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"leak.png", "../secret.png", ".hidden.png", "notes.txt"} {
		if b, err := ag.Screenshot(name); err == nil {
			t.Errorf("screenshot %q read %q", name, b)
		}
	}
}
