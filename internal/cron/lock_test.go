package cron

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// editorEnv makes the test binary a jobs.json editor process (see
// TestMain): it adds jobs and removes every other one it added.
const editorEnv = "OPENPOCKET_TEST_JOBS_EDITOR"

func TestMain(m *testing.M) {
	if spec := os.Getenv(editorEnv); spec != "" {
		os.Exit(runJobsEditor(spec))
	}
	os.Exit(m.Run())
}

// runJobsEditor parses "PATH|PREFIX|N" and does N adds and N/2 removes,
// each its own UpdateJobs (one load-modify-save, like one `cron add`).
func runJobsEditor(spec string) int {
	var path, prefix string
	var n int
	parts := strings.Split(spec, "|")
	if len(parts) != 3 {
		fmt.Fprintln(os.Stderr, "bad editor spec", spec)
		return 2
	}
	path, prefix = parts[0], parts[1]
	n, _ = strconv.Atoi(parts[2])
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%s-%03d", prefix, i)
		err := UpdateJobs(path, func(f *JobsFile) error {
			_, err := f.AddJob(Job{ID: id, Name: id, Enabled: true,
				Schedule: Schedule{Kind: KindEvery, EveryMs: 60000}, Payload: Payload{Kind: PayloadAgentTurn, Task: "t"}})
			return err
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "add:", err)
			return 1
		}
		if i%2 == 1 {
			if err := UpdateJobs(path, func(f *JobsFile) error { return f.RemoveJob(id) }); err != nil {
				fmt.Fprintln(os.Stderr, "remove:", err)
				return 1
			}
		}
	}
	return 0
}

// TestUpdateJobsAcrossProcessesLosesNothing: two processes racing 200
// adds and 100 removes each on one jobs.json end with exactly the jobs
// each left behind; without the file lock, saves overwrite each other.
func TestUpdateJobsAcrossProcessesLosesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cron", "jobs.json")
	const perProcess = 200
	var wg sync.WaitGroup
	errs := make([]error, 2)
	outs := make([][]byte, 2)
	for p := 0; p < 2; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|p%d|%d", editorEnv, path, p, perProcess))
			outs[p], errs[p] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for p := range errs {
		if errs[p] != nil {
			t.Fatalf("editor %d: %v: %s", p, errs[p], outs[p])
		}
	}
	f, probs, err := LoadJobs(path)
	if err != nil || len(probs) > 0 {
		t.Fatalf("load: %v %v", err, probs)
	}
	want := map[string]bool{}
	for p := 0; p < 2; p++ {
		for i := 0; i < perProcess; i += 2 {
			want[fmt.Sprintf("p%d-%03d", p, i)] = true
		}
	}
	got := map[string]bool{}
	for _, j := range f.Jobs {
		if got[j.ID] {
			t.Errorf("job %s saved twice", j.ID)
		}
		got[j.ID] = true
		if !want[j.ID] {
			t.Errorf("job %s should have been removed", j.ID)
		}
	}
	for id := range want {
		if !got[id] {
			t.Errorf("job %s lost", id)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d jobs in %s, want %d", len(got), path, len(want))
	}
}
