package cron

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLegacyJobsMigrateOnWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.json")
	writeFile(t, path, `{"jobs": [
  {"id": "news", "name": "News", "enabled": true, "everySec": 60, "task": "Read the news", "chatId": 12345, "model": "fast", "runOnStartup": true},
  {"id": "slow", "name": "Slow", "everySec": 300, "task": "Check mail", "chatId": null, "model": null, "runOnStartup": false}
]}`)
	f, probs, err := LoadJobs(path)
	if err != nil || len(probs) != 0 {
		t.Fatalf("LoadJobs: %v %v", err, probs)
	}
	if !f.Legacy || len(f.Jobs) != 2 {
		t.Fatalf("legacy=%v jobs=%d", f.Legacy, len(f.Jobs))
	}
	j := f.Jobs[0]
	if j.Schedule.Kind != KindEvery || j.Schedule.EveryMs != 60000 || j.Payload.Kind != PayloadAgentTurn ||
		j.Payload.Task != "Read the news" || j.Model == nil || *j.Model != "fast" || !j.RunOnStartup || !j.Enabled {
		t.Fatalf("migrated job = %+v", j)
	}
	if !f.Jobs[1].Enabled {
		t.Fatalf("enabled should default to true in legacy entries")
	}
	f.Jobs[0].CreatedAt, f.Jobs[0].UpdatedAt = "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"
	f.Jobs[1].CreatedAt, f.Jobs[1].UpdatedAt = "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"
	if err := SaveJobs(path, f); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	want := `{
  "version": 2,
  "jobs": [
    {
      "id": "news",
      "name": "News",
      "enabled": true,
      "schedule": {
        "kind": "every",
        "everyMs": 60000
      },
      "payload": {
        "kind": "agent_turn",
        "task": "Read the news"
      },
      "delivery": null,
      "model": "fast",
      "promptMode": null,
      "createdAt": "2026-01-01T00:00:00.000Z",
      "updatedAt": "2026-01-01T00:00:00.000Z",
      "runOnStartup": true,
      "chatId": 12345
    },
    {
      "id": "slow",
      "name": "Slow",
      "enabled": true,
      "schedule": {
        "kind": "every",
        "everyMs": 300000
      },
      "payload": {
        "kind": "agent_turn",
        "task": "Check mail"
      },
      "delivery": null,
      "model": null,
      "promptMode": null,
      "createdAt": "2026-01-01T00:00:00.000Z",
      "updatedAt": "2026-01-01T00:00:00.000Z",
      "runOnStartup": false
    }
  ]
}
`
	if string(data) != want {
		t.Fatalf("migrated file:\n%s\nwant:\n%s", data, want)
	}
	f2, probs, err := LoadJobs(path)
	if err != nil || len(probs) != 0 || f2.Legacy || len(f2.Jobs) != 2 {
		t.Fatalf("reload migrated: %v %v legacy=%v", err, probs, f2.Legacy)
	}
}

func TestJobsUnknownFieldsPreserved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.json")
	writeFile(t, path, `{"version": 2, "owner": "me", "jobs": [
 {"id": "a", "name": "A", "enabled": true, "color": "blue",
  "schedule": {"kind": "every", "everyMs": 60000, "jitterMs": 5},
  "payload": {"kind": "lua", "path": "scripts/a.lua", "args": ["x"], "note": {"k": 1}},
  "delivery": {"channel": "telegram", "to": 1}, "model": null, "promptMode": "minimal",
  "createdAt": "c", "updatedAt": "u", "runOnStartup": false},
 {"id": "broken", "schedule": "every minute"}
]}`)
	f, probs, err := LoadJobs(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 1 || probs[0].Error() != path+`: job "broken": schedule: expected an object, got string` {
		t.Fatalf("problems = %v", probs)
	}
	if err := SaveJobs(path, f); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	jobs := back["jobs"].([]any)
	a := jobs[0].(map[string]any)
	if back["owner"] != "me" || a["color"] != "blue" || a["schedule"].(map[string]any)["jitterMs"] != 5.0 ||
		a["payload"].(map[string]any)["note"].(map[string]any)["k"] != 1.0 ||
		a["delivery"].(map[string]any)["channel"] != "telegram" || a["promptMode"] != "minimal" {
		t.Fatalf("unknown fields lost:\n%s", data)
	}
	if b := jobs[1].(map[string]any); b["schedule"] != "every minute" {
		t.Fatalf("malformed entry not kept verbatim:\n%s", data)
	}
}

func TestJobsProblemsReported(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.json")
	writeFile(t, path, `{"version": 2, "jobs": [
 {"id": "ok", "schedule": {"kind": "every", "everyMs": 60000}, "payload": {"kind": "agent_turn", "task": "t"}},
 {"id": "badexpr", "schedule": {"kind": "cron", "expr": "61 * * * *"}, "payload": {"kind": "agent_turn", "task": "t"}},
 {"id": "badtz", "schedule": {"kind": "cron", "expr": "0 8 * * *", "tz": "Mars/Olympus"}, "payload": {"kind": "agent_turn", "task": "t"}},
 {"id": "notask", "schedule": {"kind": "every", "everyMs": 60000}, "payload": {"kind": "agent_turn"}},
 {"id": "fast", "schedule": {"kind": "every", "everyMs": 1000}, "payload": {"kind": "agent_turn", "task": "t"}},
 {"id": "weird", "schedule": {"kind": "hourly"}, "payload": {"kind": "agent_turn", "task": "t"}},
 {"id": "nokind", "schedule": {"kind": "every", "everyMs": 60000}, "payload": {"kind": "shell", "task": "t"}},
 {"id": "badat", "schedule": {"kind": "at", "at": "tomorrow"}, "payload": {"kind": "playbook", "path": "p.yaml"}},
 {"schedule": {"kind": "every", "everyMs": 60000}, "payload": {"task": "t"}},
 {"id": "ok", "schedule": {"kind": "every", "everyMs": 60000}, "payload": {"kind": "agent_turn", "task": "t"}}
]}`)
	_, probs, err := LoadJobs(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range probs {
		got = append(got, strings.TrimPrefix(p.Error(), filepath.Dir(path)+"/"))
	}
	want := []string{
		`jobs.json: job "badexpr": schedule.expr: invalid cron expression "61 * * * *": end of range (61) above maximum (59): 61 (expected 5 fields: minute hour day-of-month month day-of-week)`,
		`jobs.json: job "badtz": schedule.tz: unknown time zone "Mars/Olympus" (expected an IANA name such as Europe/Berlin)`,
		`jobs.json: job "notask": payload.task: missing; an agent_turn job needs a task`,
		`jobs.json: job "fast": schedule.everyMs: must be at least 5000 (5 seconds), got 1000`,
		`jobs.json: job "weird": schedule.kind: unknown kind "hourly"; expected cron, at or every`,
		`jobs.json: job "nokind": payload.kind: unknown kind "shell"; expected agent_turn, playbook or lua`,
		`jobs.json: job "badat": schedule.at: expected an ISO 8601 time such as 2026-03-01T08:00:00Z or 2026-03-01T08:00, got "tomorrow"`,
		`jobs.json: job #9: id: missing; every job needs a unique id`,
		`jobs.json: job "ok": id: duplicate id (entry #10); only the first is used`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestLoadJobsSyntaxErrorHasLineAndColumn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.json")
	writeFile(t, path, "{\"version\": 2,\n \"jobs\": [\n  {\"id\": \"a\",}\n ]}")
	_, _, err := LoadJobs(path)
	if err == nil || !strings.Contains(err.Error(), "jobs.json:3:14: malformed JSON") {
		t.Fatalf("error = %v", err)
	}
}

func TestJobsEditingAPI(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cron", "jobs.json")
	f, _, err := LoadJobs(path)
	if err != nil {
		t.Fatal(err)
	}
	j, err := f.AddJob(Job{Name: "n", Enabled: true, Schedule: Schedule{Kind: KindCron, Expr: "0 8 * * *", TZ: "Europe/Berlin"}, Payload: Payload{Task: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(j.ID, "job-") || len(j.ID) != 16 || j.CreatedAt == "" || j.Payload.Kind != PayloadAgentTurn {
		t.Fatalf("added job = %+v", j)
	}
	if _, err := f.AddJob(Job{ID: j.ID, Schedule: Schedule{Kind: KindEvery, EveryMs: 60000}, Payload: Payload{Task: "t"}}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("duplicate add: %v", err)
	}
	if _, err := f.AddJob(Job{ID: "bad", Schedule: Schedule{Kind: KindEvery, EveryMs: 10}, Payload: Payload{Task: "t"}}); err == nil || !strings.Contains(err.Error(), "schedule.everyMs") {
		t.Fatalf("invalid add: %v", err)
	}
	if err := f.SetEnabled(j.ID, false); err != nil {
		t.Fatal(err)
	}
	if err := SaveJobs(path, f); err != nil {
		t.Fatal(err)
	}
	f2, probs, err := LoadJobs(path)
	if err != nil || len(probs) != 0 || len(f2.Jobs) != 1 || f2.Jobs[0].Enabled {
		t.Fatalf("reloaded: %+v %v %v", f2.Jobs, probs, err)
	}
	if err := f2.RemoveJob(j.ID); err != nil || len(f2.Jobs) != 0 {
		t.Fatalf("remove: %v", err)
	}
	if err := f2.RemoveJob("nope"); err == nil {
		t.Fatal("removing a missing job succeeded")
	}
	if NewID() == NewID() {
		t.Fatal("NewID repeats")
	}
}

func TestTZCronDaylightSaving(t *testing.T) {
	ber, _ := time.LoadLocation("Europe/Berlin")
	c := &tzCron{expr: "30 2 * * *", loc: ber}
	if err := c.IsValid(c.expr, time.UTC, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	walk := func(from time.Time, n int) []string {
		var out []string
		last := from
		for range n {
			last = c.Next(last)
			out = append(out, last.In(ber).Format("01-02 15:04 MST"))
		}
		return out
	}
	// Spring forward (29 March 2026): 02:30 does not exist; it runs once
	// at 03:30 CEST, the same instant as 02:30 in the old offset.
	got := walk(time.Date(2026, 3, 27, 12, 0, 0, 0, time.UTC), 4)
	want := []string{"03-28 02:30 CET", "03-29 03:30 CEST", "03-30 02:30 CEST", "03-31 02:30 CEST"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("spring forward: %v, want %v", got, want)
	}
	// Fall back (25 October 2026): 02:30 happens twice; run only once.
	got = walk(time.Date(2026, 10, 23, 12, 0, 0, 0, time.UTC), 3)
	want = []string{"10-24 02:30 CEST", "10-25 02:30 CEST", "10-26 02:30 CET"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("fall back: %v, want %v", got, want)
	}
}

// Concurrent UpdateJobs calls in one process must not lose each other's
// changes (each loads, edits and saves the whole file).
func TestUpdateJobsConcurrentUpdatesAllKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cron", "jobs.json")
	const n = 16
	errs := make(chan error, n)
	for i := range n {
		go func() {
			errs <- UpdateJobs(path, func(f *JobsFile) error {
				_, err := f.AddJob(Job{ID: fmt.Sprintf("job-%02d", i), Enabled: true,
					Schedule: Schedule{Kind: KindEvery, EveryMs: 60000}, Payload: Payload{Task: "t"}})
				return err
			})
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	f, problems, err := LoadJobs(path)
	if err != nil || len(problems) > 0 {
		t.Fatalf("LoadJobs: %v %v", err, problems)
	}
	if len(f.Jobs) != n {
		t.Fatalf("jobs after %d concurrent adds = %d, want %d", n, len(f.Jobs), n)
	}
}
