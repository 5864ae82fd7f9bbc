package gateway

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/openpocket/openpocket/internal/cron"
)

// A job's playbook, Lua script or skill file is named in jobs.json, which
// lives in the workspace: the model can write any path there. The gateway
// reads such a file only where the model could read it anyway (the
// workspace, through an os.Root, includes too), unless the user named it
// with `openpocket cron add`, which signs the path with the state
// directory's key (cron.SignPayload).

// payloadFile is a job's payload file and where it may be read.
type payloadFile struct {
	// Path is the file (absolute when it was resolved), or a skill's name.
	Path string
	// Root, when set, confines the file and every playbook it includes
	// to that directory (engine/hostfs: no "..", absolute path or link
	// out, no FIFO).
	Root string
}

// payloadFile decides where job's payload file is read: inside the
// workspace through a root whether signed or not (the model can edit
// files there), outside it only when `cron add` signed the path. An
// unsigned path outside is refused before anything reads it.
func (r *jobRunner) payloadFile(job cron.Job) (payloadFile, error) {
	p := job.Payload
	if r.base == "" || (p.Kind == cron.PayloadLua && skillName(p.Path)) {
		// No workspace to confine to (a bare runner), or a skill by
		// name: the skills loader reads it where skills live.
		return payloadFile{Path: r.resolve(p.Path)}, nil
	}
	if r.trusted(job) {
		path := r.resolve(p.Path)
		if in, base, real := underReal(r.base, path); in {
			return payloadFile{Path: real, Root: base}, nil
		}
		return payloadFile{Path: path}, nil
	}
	path := p.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.base, path)
	}
	if under(r.base, path) {
		return payloadFile{Path: path, Root: r.base}, nil
	}
	flag := "--playbook"
	if p.Kind == cron.PayloadLua {
		flag = "--lua"
	}
	return payloadFile{}, fmt.Errorf("job %s: payload.path %s is outside the workspace %s and was not added with `openpocket cron add` (jobs.json was written by hand or by the model), so it is not read; move the file into the workspace, or add the job again with `openpocket cron add %s FILE`",
		job.ID, p.Path, r.base, flag)
}

// trusted reports whether `openpocket cron add` signed job's payload path.
func (r *jobRunner) trusted(job cron.Job) bool {
	if r.stateDir == "" {
		return false
	}
	key, err := cron.DeliveryKey(r.stateDir)
	return err == nil && cron.PayloadTrusted(job, key)
}

// skillName reports whether a lua payload names a skill rather than a
// file (neither .lua nor .md).
func skillName(p string) bool {
	return !strings.HasSuffix(p, ".lua") && !strings.HasSuffix(p, ".md")
}

// under reports whether path lies lexically inside dir.
func under(dir, path string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// underReal reports whether path lies inside dir, lexically or once the
// links of its directories are resolved (the file's own name is kept: a
// link there is refused by the root). A signed path inside the workspace
// names a file the model can edit, so it is read through a root there too.
func underReal(dir, path string) (in bool, root, file string) {
	p, err := filepath.Abs(path)
	if err != nil {
		return false, "", ""
	}
	if under(dir, p) {
		return true, dir, p
	}
	d, err1 := filepath.EvalSymlinks(dir)
	pd, err2 := filepath.EvalSymlinks(filepath.Dir(p))
	if err1 != nil || err2 != nil || !under(d, pd) {
		return false, "", ""
	}
	return true, d, filepath.Join(pd, filepath.Base(p))
}

// resolve makes a relative payload path absolute: relative to the
// workspace when the file is there, else left to the working directory.
// cron add stores absolute paths; this is for hand-written jobs.json.
func (r *jobRunner) resolve(p string) string {
	if p == "" || filepath.IsAbs(p) || r.base == "" {
		return p
	}
	if cand := filepath.Join(r.base, p); fileExists(cand) {
		return cand
	}
	return p
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
