package skills

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/hostfs"
)

// Workspace-relative directories of auto artifacts (docs/formats.md).
const (
	AutoSkillsDir  = "skills/auto"
	AutoScriptsDir = "scripts/auto"
)

// ArtifactOptions describe one artifact write.
type ArtifactOptions struct {
	// Workspace is the workspace directory (OPENPOCKET_HOME/workspace).
	Workspace   string
	Task        string
	SessionPath string
	Steps       []engine.TraceStep
	Now         time.Time
	// ScreenWidth and ScreenHeight are the recorded device size; 0 infers
	// it from the steps' screenshots (PNG header) when they exist.
	ScreenWidth, ScreenHeight int
	// CoordinatesOnly writes the upstream-style replay (see ReplayOptions).
	CoordinatesOnly bool
}

// Artifacts are the files one write produced.
type Artifacts struct {
	Name        string
	SkillPath   string
	ScriptPath  string
	Fingerprint string
	Params      []Param
	// Removed lists earlier auto artifacts deleted as duplicates.
	Removed []string
}

// WriteArtifacts writes the auto skill and replay script of a successful run
// into the workspace ws and returns their paths. It is the hook the agent
// loop calls after a successful run (when agent.autoArtifactsEnabled).
func WriteArtifacts(ws string, task, sessionPath string, steps []engine.TraceStep, now time.Time) (skillPath, scriptPath string, err error) {
	a, err := Write(ArtifactOptions{Workspace: ws, Task: task, SessionPath: sessionPath, Steps: steps, Now: now})
	if err != nil {
		return "", "", err
	}
	return a.SkillPath, a.ScriptPath, nil
}

// Write is [WriteArtifacts] with options.
func Write(o ArtifactOptions) (Artifacts, error) {
	if o.Workspace == "" {
		return Artifacts{}, errors.New("skills: write artifacts: no workspace directory")
	}
	if !replayable(o.Steps) {
		return Artifacts{}, ErrNothingToLearn
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.ScreenWidth <= 0 || o.ScreenHeight <= 0 {
		o.ScreenWidth, o.ScreenHeight = screenFromScreenshots(o.Steps)
	}
	slug := Slug(o.Task)
	base := o.Now.Format("20060102-150405") + "-" + slug
	fp := Fingerprint(o.Steps)
	a := Artifacts{
		Name:        slug,
		SkillPath:   filepath.Join(o.Workspace, filepath.FromSlash(AutoSkillsDir), base+".md"),
		ScriptPath:  filepath.Join(o.Workspace, filepath.FromSlash(AutoScriptsDir), base+".lua"),
		Fingerprint: fp,
	}
	removed, err := removeDuplicates(o.Workspace, slug, fp)
	a.Removed = removed
	if err != nil {
		return a, err
	}
	src, params := GenerateReplay(o.Steps, ReplayOptions{
		Name: slug, Task: o.Task, SessionPath: o.SessionPath, Fingerprint: fp,
		ScreenWidth: o.ScreenWidth, ScreenHeight: o.ScreenHeight, CoordinatesOnly: o.CoordinatesOnly,
	})
	a.Params = params
	md := RenderSkill(o.Steps, SkillDoc{
		Name: slug, Task: o.Task, SessionPath: o.SessionPath, Fingerprint: fp,
		ScriptPath: AutoScriptsDir + "/" + base + ".lua", GeneratedAt: o.Now, Params: params,
	})
	// Both go into the workspace the model writes: through hostfs, so a
	// link planted at skills/auto or scripts/auto leads nowhere.
	if err := hostfs.WriteFile(o.Workspace, a.ScriptPath, []byte(src), 0o644); err != nil {
		return a, fmt.Errorf("skills: %w", err)
	}
	if err := hostfs.WriteFile(o.Workspace, a.SkillPath, []byte(md), 0o644); err != nil {
		return a, fmt.Errorf("skills: %w", err)
	}
	return a, nil
}

func replayable(steps []engine.TraceStep) bool {
	for _, st := range steps {
		switch st.Action.Type {
		case "tap", "tap_element", "type", "swipe", "drag", "long_press_drag", "keyevent", "launch_app", "shell":
			return true
		}
	}
	return false
}

// autoName matches <YYYYMMDD-HHMMSS>-<slug>.<ext>.
var autoName = regexp.MustCompile(`^\d{8}-\d{6}-(.+)\.(md|lua|sh)$`)

// removeDuplicates deletes earlier auto skills and scripts with the same
// slug or fingerprint (a skill and its script go together).
func removeDuplicates(ws, slug, fp string) ([]string, error) {
	var removed []string
	var errs []error
	bases := map[string]bool{}
	for _, dir := range []string{AutoSkillsDir, AutoScriptsDir} {
		d := filepath.Join(ws, filepath.FromSlash(dir))
		entries, err := hostfs.ReadDir(ws, d)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		for _, e := range entries {
			m := autoName.FindStringSubmatch(e.Name())
			if m == nil || e.IsDir() {
				continue
			}
			base := strings.TrimSuffix(e.Name(), "."+m[2])
			if m[1] == slug || fileHasFingerprint(ws, filepath.Join(d, e.Name()), fp) {
				bases[base] = true
			}
		}
	}
	for base := range bases {
		for _, p := range []string{
			filepath.Join(ws, filepath.FromSlash(AutoSkillsDir), base+".md"),
			filepath.Join(ws, filepath.FromSlash(AutoScriptsDir), base+".lua"),
			filepath.Join(ws, filepath.FromSlash(AutoScriptsDir), base+".sh"),
		} {
			if err := hostfs.Remove(ws, p); err == nil {
				removed = append(removed, p)
			} else if !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return removed, fmt.Errorf("skills: remove earlier auto artifacts: %w", errors.Join(errs...))
	}
	return removed, nil
}

// fileHasFingerprint reports whether an artifact names fingerprint fp (the
// skill's "behavior_fingerprint: fp" line or the script's header).
func fileHasFingerprint(ws, path, fp string) bool {
	f, err := hostfs.Open(ws, path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, _ := f.Read(buf)
	head := string(buf[:n])
	return strings.Contains(head, "behavior_fingerprint: "+fp) || strings.Contains(head, "behavior_fingerprint "+fp)
}

// ErrNothingToLearn reports a run without device steps: there is no
// procedure to write down, which is not a failure of the run.
var ErrNothingToLearn = errors.New("skills: the run has no device steps to learn from")

// screenFromScreenshots returns the recorded screen size: from the trace
// when it carries one, else from the first step screenshot that exists
// (its PNG header; traces from before sizes were recorded).
func screenFromScreenshots(steps []engine.TraceStep) (int, int) {
	for _, st := range steps {
		if st.ScreenWidth > 0 && st.ScreenHeight > 0 {
			return st.ScreenWidth, st.ScreenHeight
		}
	}
	for _, st := range steps {
		if st.Screenshot == "" {
			continue
		}
		// The trace names the file and sits in the workspace: open it as
		// a regular file only (a FIFO must not block learning).
		f, err := hostfs.Open(filepath.Dir(st.Screenshot), st.Screenshot)
		if err != nil {
			continue
		}
		var hdr [24]byte
		_, err = f.Read(hdr[:])
		f.Close()
		if err != nil || string(hdr[1:4]) != "PNG" || string(hdr[12:16]) != "IHDR" {
			continue
		}
		w := int(hdr[16])<<24 | int(hdr[17])<<16 | int(hdr[18])<<8 | int(hdr[19])
		h := int(hdr[20])<<24 | int(hdr[21])<<16 | int(hdr[22])<<8 | int(hdr[23])
		if w > 0 && h > 0 {
			return w, h
		}
	}
	return 0, 0
}
