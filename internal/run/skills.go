package run

import (
	"context"
	"fmt"
	"strings"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/hostfs"
	"github.com/openpocket/openpocket/internal/atomicfile"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/stdlib/aistep"
	"github.com/openpocket/openpocket/stdlib/skillsmod"
)

// SkillLibrary adapts a skills loader to the Lua skills module's library
// port (stdlib never imports internal/...).
func SkillLibrary(l *skills.Loader) skillsmod.Library { return skillLibrary{l} }

type skillLibrary struct{ l *skills.Loader }

func (s skillLibrary) List() []skillsmod.Entry {
	all, _ := s.l.Load()
	out := make([]skillsmod.Entry, 0, len(all))
	for _, sk := range all {
		out = append(out, skillsmod.Entry{Name: sk.Name, Description: sk.Description, Location: sk.Location, Source: sk.Source.String(), Auto: sk.Auto})
	}
	return out
}

func (s skillLibrary) Script(name string) (string, []byte, string, error) {
	sk, err := s.l.Find(name)
	if err != nil {
		return "", nil, "", err
	}
	src, from, err := s.l.Script(sk)
	if err != nil {
		return "", nil, "", err
	}
	return sk.Name, src, from, nil
}

// writeRepairs writes the repaired steps back into the skill's script
// and notes them, dated, in its markdown (when there is one).
func (s *Service) writeRepairs(name, from string, reps []aistep.Repair) error {
	if !strings.HasSuffix(from, ".lua") {
		return fmt.Errorf("the script is not a file (%s)", from)
	}
	src, err := hostfs.ReadRegular(from, maxPlaybookBytes)
	if err != nil {
		return err
	}
	for _, r := range reps {
		if src, err = skills.RepairScript(src, r.Step, r.Target); err != nil {
			return err
		}
	}
	if err := atomicfile.WriteFile(from, src, 0o644); err != nil {
		return err
	}
	md := strings.TrimSuffix(from, ".lua") + ".md"
	if s.cfg.Skills != nil {
		if sk, err := s.cfg.Skills.Find(name); err == nil && sk.Path != "" {
			md = sk.Path
		}
	}
	b, err := hostfs.ReadRegular(md, maxPlaybookBytes)
	if err != nil {
		return nil // a script without its markdown: the script is repaired
	}
	for _, r := range reps {
		b = skills.NoteRepair(b, fmt.Sprintf("%s: step %d (%s) found nothing by %s; repaired by one model call (%s) to %s.",
			r.At.Format("2006-01-02"), r.Step, r.Label, r.Old, r.Model, r.Locator.String()))
	}
	return atomicfile.WriteFile(md, b, 0o644)
}

// SkillRun names a skill to replay without a model.
type SkillRun struct {
	Target Target
	// Name is a skill name, a skill file (.md) or a replay script (.lua);
	// with Root those files are read inside Root only (a chat, a client or
	// a model named them).
	Name, Root string
	Params     map[string]string
	Events     func(Event)
}

// SkillError is a skill ReplaySkill could not find or read: bad input
// (a name or path), not a failed run.
type SkillError struct{ Err error }

func (e *SkillError) Error() string { return e.Err.Error() }
func (e *SkillError) Unwrap() error { return e.Err }

// ReplaySkill resolves o.Name through the service's skills and replays it
// on o.Target. An error with an empty Message means nothing ran; a
// *SkillError means the skill was not found or not readable.
func (s *Service) ReplaySkill(ctx context.Context, o SkillRun) (engine.RunResult, error) {
	r, err := s.cfg.Skills.Replayable(o.Root, o.Name)
	if err != nil {
		return engine.RunResult{Message: err.Error()}, &SkillError{err}
	}
	res, err := s.Replay(ctx, ReplayOptions{Target: o.Target, Name: r.Name, Skill: r.From, Source: r.Source, Params: o.Params, Events: o.Events})
	if err != nil && res.Message == "" {
		return engine.RunResult{Message: err.Error()}, err // nothing ran
	}
	return res.RunResult, nil
}

// SkillParams reads a skill's KEY=VALUE parameters (a job's or a chat's
// arguments).
func SkillParams(args []string) (map[string]string, error) {
	params := map[string]string{}
	for _, kv := range args {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("skill parameter %q: expected KEY=VALUE", kv)
		}
		params[k] = v
	}
	return params, nil
}
