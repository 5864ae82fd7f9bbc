package cron

import (
	"path/filepath"
)

// maxJobsBytes caps the jobs and state files the host reads: the jobs file
// sits in the workspace, where the model may plant a huge file or a FIFO.
const maxJobsBytes = 16 << 20

// confine is the directory a cron file at path is confined to: its
// directory's parent (for the default workspace/cron/jobs.json, the
// workspace). The file and its directory are resolved through an os.Root
// there (engine/hostfs), so the model replacing cron/ or jobs.json with a
// link cannot make the host read or write outside, and a FIFO is refused
// at once instead of hanging `cron list` and the gateway.
func confine(path string) string { return filepath.Dir(filepath.Dir(path)) }
