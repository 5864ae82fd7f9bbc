package cli

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/openpocket/openpocket/playbooks"
)

// play --watch: after a run, wait until a playbook or one of the files it
// includes (run: sub-flows, assert_screenshot references stay out) changes,
// then run again, until Ctrl-C. Polling the modification times keeps it
// free of platform-specific notification APIs.

const watchInterval = 300 * time.Millisecond

// watchedFiles lists the playbooks and every sub-flow they include.
func watchedFiles(files []string) []string {
	seen := map[string]bool{}
	var out []string
	var add func(string)
	add = func(f string) {
		abs, err := filepath.Abs(f)
		if err != nil || seen[abs] {
			return
		}
		seen[abs] = true
		out = append(out, abs)
		src, err := os.ReadFile(abs)
		if err != nil {
			return
		}
		pb, err := playbooks.Parse(src, abs)
		if err != nil {
			return
		}
		for _, sub := range playbooks.SubFiles(pb) {
			add(filepath.Join(filepath.Dir(abs), sub))
		}
	}
	for _, f := range files {
		add(f)
	}
	sort.Strings(out)
	return out
}

// stamp is the files' modification times (missing files count as zero).
func stamp(files []string) map[string]time.Time {
	m := make(map[string]time.Time, len(files))
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			m[f] = st.ModTime()
		} else {
			m[f] = time.Time{}
		}
	}
	return m
}

// waitForChange blocks until one of files changes (or a new sub-flow is
// added); it returns false when ctx ends.
func waitForChange(ctx context.Context, files []string) bool {
	watched := watchedFiles(files)
	before := stamp(watched)
	t := time.NewTicker(watchInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
		now := watchedFiles(files)
		after := stamp(now)
		if len(after) != len(before) {
			return true
		}
		for f, mt := range after {
			if old, ok := before[f]; !ok || !old.Equal(mt) {
				return true
			}
		}
	}
}
