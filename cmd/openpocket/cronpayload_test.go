package main_test

import (
	"bufio"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// payloadMarker stands for the contents of a file outside the workspace
// (a line of /etc/passwd, a key): it must never reach any output.
const payloadMarker = "root:x:0:0:MARKER-5ec7e7:/root:/bin/bash"

// outsidePayloads writes files outside the workspace that would show the
// marker if anything read them: a playbook whose compile error quotes its
// line, Lua scripts and a skill that print it.
func outsidePayloads(t *testing.T) string {
	dir := t.TempDir()
	writeFile(t, dir, "passwd.yaml", payloadMarker+"\n")
	writeFile(t, dir, "evil.lua", "print(\""+payloadMarker+"\")\n")
	writeFile(t, dir, "SKILL.md", "# evil\n\n```lua\nprint(\""+payloadMarker+"\")\n```\n")
	writeFile(t, dir, "mine.lua", "print(\"signed job ran\")\n")
	return dir
}

// writeModelJobs edits jobs.json as the model would (it lives in the
// workspace): every job gets its own device so the gateway runs them at
// once, and runOnStartup.
func writeModelJobs(t *testing.T, jobsPath string, edit func(jobs []map[string]any) []map[string]any) {
	raw, err := os.ReadFile(jobsPath)
	require.NoError(t, err)
	var f map[string]any
	require.NoError(t, json.Unmarshal(raw, &f))
	var jobs []map[string]any
	for _, j := range f["jobs"].([]any) {
		jobs = append(jobs, j.(map[string]any))
	}
	jobs = edit(jobs)
	for _, j := range jobs {
		j["runOnStartup"], j["enabled"], j["device"] = true, true, "dev-"+j["id"].(string)
	}
	f["jobs"] = jobs
	out, err := json.MarshalIndent(f, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(jobsPath, out, 0o644))
}

func modelJob(id, kind, path string) map[string]any {
	return map[string]any{"id": id, "name": id, "enabled": true, "schedule": map[string]any{"kind": "every", "everyMs": 3600000},
		"payload": map[string]any{"kind": kind, "path": path}}
}

// TestModelWrittenJobsNeverReadFilesOutside: the model wrote jobs into
// jobs.json naming files outside the workspace — a playbook (absolute,
// through "..", through a link in the workspace, included by a workspace
// playbook), a Lua script, a skill file, and a job `cron add` signed whose
// path it changed. Neither `cron run` nor the gateway reads any of them:
// each job fails with the reason in its state, and no output, state,
// session or run file holds the outside file's contents. A job the user
// added with `cron add` naming a file outside still runs.
func TestModelWrittenJobsNeverReadFilesOutside(t *testing.T) {
	home := initHome(t)
	ws := filepath.Join(home, "workspace")
	out := outsidePayloads(t)
	for _, id := range []string{"mine", "stolen"} {
		res := runQuick(t, home, "cron", "add", "--id", id, "--every", "1h", "--lua", filepath.Join(out, "mine.lua"))
		require.Equal(t, 0, res.code, res.stderr)
	}
	rel, err := filepath.Rel(ws, filepath.Join(out, "passwd.yaml"))
	require.NoError(t, err)
	writeFile(t, ws, "inc.yaml", "name: inc\nsteps:\n  - run: "+filepath.Join(out, "passwd.yaml")+"\n")
	require.NoError(t, os.Symlink(filepath.Join(out, "passwd.yaml"), filepath.Join(ws, "link.yaml")))
	jobsPath := filepath.Join(ws, "cron", "jobs.json")
	refused := map[string]string{
		"pb-abs":   "is outside the workspace",
		"pb-up":    "is outside the workspace",
		"lua-abs":  "is outside the workspace",
		"skill-md": "is outside the workspace",
		"stolen":   "is outside the workspace",
		"pb-inc":   "outside",
		"pb-link":  "symbolic link",
	}
	writeModelJobs(t, jobsPath, func(jobs []map[string]any) []map[string]any {
		var kept []map[string]any
		for _, j := range jobs {
			switch j["id"] {
			case "stolen": // keeps its signature, names another file
				j["payload"].(map[string]any)["path"] = filepath.Join(out, "evil.lua")
			case "mine":
			default:
				continue
			}
			kept = append(kept, j)
		}
		return append(kept,
			modelJob("pb-abs", "playbook", filepath.Join(out, "passwd.yaml")),
			modelJob("pb-up", "playbook", rel),
			modelJob("lua-abs", "lua", filepath.Join(out, "evil.lua")),
			modelJob("skill-md", "lua", filepath.Join(out, "SKILL.md")),
			modelJob("pb-inc", "playbook", "inc.yaml"),
			modelJob("pb-link", "playbook", "link.yaml"))
	})

	for id, why := range refused {
		res := runQuick(t, home, "cron", "run", id)
		assert.NotEqual(t, 0, res.code, "%s ran: %s", id, res.stdout)
		assert.Contains(t, res.stderr, why, id)
		assert.NotContains(t, res.stdout+res.stderr, "MARKER-5ec7e7", id)
	}
	res := runQuick(t, home, "cron", "run", "mine")
	assert.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout+res.stderr, "signed job ran", "a job cron add signed runs its file outside the workspace")

	// The gateway: every job runs at startup, on its own device.
	require.NoError(t, os.Remove(filepath.Join(home, "state", "cron-state.json")))
	cmd := exec.Command(binary, "--home", home, "gateway")
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", "ANDROID_SERIAL=")
	errPipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var log strings.Builder
	finished := map[string]bool{}
	lines := bufio.NewScanner(errPipe)
	deadline := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
	defer deadline.Stop()
	for len(finished) < len(refused)+1 && lines.Scan() {
		log.WriteString(lines.Text() + "\n")
		for id := range refused {
			if strings.Contains(lines.Text(), "job "+id+" failed") {
				finished[id] = true
			}
		}
		if strings.Contains(lines.Text(), "job mine ok") {
			finished["mine"] = true
		}
	}
	go io.Copy(io.Discard, errPipe)
	require.Len(t, finished, len(refused)+1, "every job ended:\n%s", log.String())
	assert.NotContains(t, log.String(), "MARKER-5ec7e7")

	var st struct {
		Jobs map[string]struct {
			LastStatus  string `json:"lastStatus"`
			LastMessage string `json:"lastMessage"`
		} `json:"jobs"`
	}
	waitFor(t, "the jobs' state", func() bool {
		raw, err := os.ReadFile(filepath.Join(home, "state", "cron-state.json"))
		return err == nil && json.Unmarshal(raw, &st) == nil && len(st.Jobs) >= len(refused)+1
	})
	for id, why := range refused {
		assert.Equal(t, "fail", st.Jobs[id].LastStatus, id)
		assert.Contains(t, st.Jobs[id].LastMessage, why, id)
	}
	assert.Contains(t, st.Jobs["lua-abs"].LastMessage, "not added with `openpocket cron add`")
	assert.Equal(t, "ok", st.Jobs["mine"].LastStatus)
	_ = cmd.Process.Signal(os.Interrupt)
	_ = cmd.Wait()

	// Nothing the runs wrote anywhere in the home holds the outside file.
	require.NoError(t, filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil {
			assert.NotContains(t, string(b), "MARKER-5ec7e7", p)
		}
		return nil
	}))
}
