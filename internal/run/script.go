package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
	"github.com/openpocket/openpocket/stdlib/aistep"
	"github.com/openpocket/openpocket/stdlib/skillsmod"
)

// ScriptOptions name one Lua script run.
type ScriptOptions struct {
	Target
	// Name is the chunk name in errors (the script's path).
	Name   string
	Source []byte
	// Args are arg[1]..arg[n] and the chunk's varargs.
	Args    []string
	Timeout time.Duration
	// Print receives print output (nil: the runtime log).
	Print  func(string)
	Events func(Event)
}

// ScriptResult is a script run's verdict. Err of Script is the script's
// error (a *lua.ScriptError with file and line) when it failed.
type ScriptResult struct {
	engine.RunResult
	RunID string
}

// Script runs Lua source in a sandboxed VM bound to a fresh, unpersisted
// session. The device is opened on first use, and woken and unlocked then
// like every run's, so a script that never touches it runs without one.
// Registered modules resolve as globals on first use (a script may still
// require them).
func (s *Service) Script(ctx context.Context, o ScriptOptions) (ScriptResult, error) {
	lc := s.begin(RunScript, filepath.Base(o.Name), o.Target, o.Events)
	res, err := s.script(ctx, lc, o)
	lc.end(res.Success, orText(res.Message, errText(err)), "")
	return ScriptResult{RunResult: res, RunID: lc.id}, err
}

func (s *Service) script(ctx context.Context, lc *lifecycle, o ScriptOptions) (engine.RunResult, error) {
	eng, err := lc.engine(engineOptions{})
	if err != nil {
		return engine.RunResult{}, err
	}
	// A script that touches the device gets it awake and unlocked, like
	// every other run; one that never does runs without a device.
	eng.PhoneReady = lc.makeReady
	sess, err := lc.session(ctx, eng, engine.SessionOptions{Task: "run " + filepath.Base(o.Name)})
	if err != nil {
		return engine.RunResult{}, err
	}
	vm, err := stdlib.NewVMWith(sess.Context(), lc.registry(), sess, lua.Options{
		Timeout:     o.Timeout,
		Args:        o.Args,
		AutoRequire: true, // ui.tap(...) works without require, as in the REPL
		Print:       o.Print,
	})
	if err != nil {
		return sess.Finish(false, err.Error()), err
	}
	defer vm.Close()
	if err := vm.Run(o.Name, o.Source); err != nil {
		return sess.Finish(false, err.Error()), err
	}
	return sess.Finish(true, "script finished"), nil
}

// ReplayOptions name one skill replay.
type ReplayOptions struct {
	Target
	// Skill is a skill's name or the path of its .md or .lua file; Source,
	// when set, is the script itself (Skill then only names it).
	Skill  string
	Source []byte
	// Name names the skill in events and the session ("" = derived from
	// Skill).
	Name   string
	Params map[string]string
	// Task is the session's task ("" = "skill NAME").
	Task string
	// Persist records the session in the workspace (skills run does; a
	// scheduled replay does not). A persisted replay's verdict names the
	// skill and its steps.
	Persist bool
	// Timeout bounds the whole replay (0: only ctx).
	Timeout time.Duration
	Print   func(string)
	Events  func(Event)
}

// StepResult is one replay step; StepError a replay stopped by a failed
// check (the step, what was expected, what the screen showed).
type (
	StepResult = skillsmod.StepResult
	StepError  = skillsmod.StepError
)

// CheckSkill compiles a skill's script without running it and returns its
// syntax error (file:line: message).
func CheckSkill(name string, src []byte) error { return skillsmod.Check(name, src) }

// ReplayResult is what a replay did: the verdict and its steps.
type ReplayResult struct {
	engine.RunResult
	RunID string
	Steps []StepResult
	// Passed counts the steps that passed.
	Passed int
	// Repaired says which steps found nothing by their recorded selectors
	// and were repaired by one model call each (written back into the
	// skill); empty when none.
	Repaired string
}

// Replay runs a skill's script without a model, after waking and
// unlocking the device. A failed check is a *StepError naming the
// step, what was expected and what the screen showed.
func (s *Service) Replay(ctx context.Context, o ReplayOptions) (ReplayResult, error) {
	name, src, from, err := s.resolveSkill(o)
	if err != nil {
		return ReplayResult{RunResult: engine.RunResult{Message: err.Error()}}, err
	}
	lc := s.begin(RunReplay, name, o.Target, o.Events)
	res, err := s.replay(ctx, lc, name, from, src, o)
	lc.end(res.Success, orText(res.Message, errText(err)), "")
	res.RunID = lc.id
	return res, err
}

func (s *Service) replay(ctx context.Context, lc *lifecycle, name, from string, src []byte, o ReplayOptions) (ReplayResult, error) {
	// With a model configured, a step that finds nothing is repaired by
	// one model call (skill_repair) instead of failing.
	eng, err := lc.engine(engineOptions{persist: o.Persist, modelIfAny: true})
	if err != nil {
		return ReplayResult{}, err
	}
	task := orText(o.Task, "skill "+name)
	sess, err := lc.session(ctx, eng, engine.SessionOptions{Task: task, Persist: o.Persist})
	if err != nil {
		return ReplayResult{}, err
	}
	if err := lc.ready(sess); err != nil {
		return ReplayResult{RunResult: sess.Finish(false, err.Error())}, err
	}
	repairer := &aistep.Repairer{}
	reg := lc.registry()
	if eng.Model != nil {
		reg = reg.With(repairer)
	}
	r, err := skillsmod.Run(sess.Context(), sess, src, skillsmod.RunOptions{Name: from, Params: o.Params, Registry: reg,
		Timeout: o.Timeout, Print: o.Print})
	out := ReplayResult{Steps: r.Steps, Passed: r.Passed}
	failMsg, okMsg := err, "skill replayed"
	if reps := repairer.Repairs(); len(reps) > 0 {
		out.Repaired = aistep.Summary(reps)
		if werr := s.writeRepairs(name, from, reps); werr != nil {
			out.Repaired += " (not written back: " + werr.Error() + ")"
		}
		okMsg = "skill replayed; " + out.Repaired
	}
	if o.Persist {
		okMsg = fmt.Sprintf("Replayed skill %s: %d step(s) passed, no model calls.", name, r.Passed)
		if out.Repaired != "" {
			okMsg = fmt.Sprintf("Replayed skill %s: %d step(s) passed; %s.", name, r.Passed, out.Repaired)
		}
		if err != nil {
			// The final block says why in full (a dialog's name, what the
			// screen showed).
			failMsg = fmt.Errorf("Replay of skill %s stopped: %w", name, err)
		}
	}
	if err != nil {
		msg := failMsg.Error()
		if out.Repaired != "" {
			msg += " (before that, " + out.Repaired + ")"
		}
		out.RunResult = sess.Finish(false, msg)
		return out, err
	}
	out.RunResult = sess.Finish(true, okMsg)
	return out, nil
}

// resolveSkill finds the script to replay: given source, a .lua path, a
// .md path or a skill name.
func (s *Service) resolveSkill(o ReplayOptions) (name string, src []byte, from string, err error) {
	name = orText(o.Name, strings.TrimSuffix(filepath.Base(o.Skill), filepath.Ext(o.Skill)))
	if o.Source != nil {
		return name, o.Source, o.Skill, nil
	}
	if strings.HasSuffix(o.Skill, ".lua") {
		b, err := os.ReadFile(o.Skill)
		if err != nil {
			return "", nil, "", fmt.Errorf("replay script: %w", err)
		}
		return name, b, o.Skill, nil
	}
	sk, err := s.cfg.Skills.Find(o.Skill)
	if err != nil {
		return "", nil, "", err
	}
	src, from, err = s.cfg.Skills.Script(sk)
	if err != nil {
		return "", nil, "", fmt.Errorf("skill %s: %w", sk.Name, err)
	}
	return sk.Name, src, from, nil
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
