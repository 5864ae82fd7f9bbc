package skillsmod

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
)

// RunOptions configure [Run].
type RunOptions struct {
	// Name is the chunk name in error messages (the script's path).
	Name string
	// Params become the Lua global table params (params.text_1 …).
	Params map[string]string
	// Registry is the module registry (stdlib.Registry() when nil); its
	// events module is wrapped to observe step events.
	Registry *lua.Registry
	// Timeout bounds the whole replay (0: only ctx and the session).
	Timeout time.Duration
	// Print receives print output (the session logger when nil).
	Print func(string)
}

// StepResult is one step of a replay as its events reported it.
type StepResult struct {
	ID         int    `json:"id"`
	Label      string `json:"label"`
	Status     string `json:"status"`
	DurationMs int64  `json:"durationMs"`
	Error      string `json:"error,omitempty"`
}

// Result is what a replay did.
type Result struct {
	Steps []StepResult `json:"steps"`
	// Passed counts the steps that passed.
	Passed int `json:"passed"`
}

// StepError is a replay stopped by a failed check: the step, what was
// expected and what the screen showed.
type StepError struct {
	Step     int
	Label    string
	Expected string
	Saw      string
	// Message is the script's error message; Err the underlying error.
	Message string
	Err     error
}

func (e *StepError) Error() string {
	if e.Expected != "" {
		return fmt.Sprintf("replay stopped at step %d (%s): expected %s; %s", e.Step, e.Label, e.Expected, e.Saw)
	}
	return fmt.Sprintf("replay stopped at step %d (%s): %s", e.Step, e.Label, e.Message)
}

func (e *StepError) Unwrap() error { return e.Err }

// Check compiles src without running it and returns the syntax error
// (file:line: message, like every Lua error).
func Check(name string, src []byte) error {
	return lua.CheckSyntax(name, src, nil)
}

// Run executes a replay (or any skill script) in a fresh sandboxed VM bound
// to sess, with o.Params as the global params. Step events go to the
// session (sess.Emit) and into the result; a failed step becomes a
// *StepError. It never calls a model.
func Run(ctx context.Context, sess *engine.Session, src []byte, o RunOptions) (Result, error) {
	var res Result
	if o.Name == "" {
		o.Name = "skill.lua"
	}
	reg := o.Registry
	if reg == nil {
		reg = stdlib.Registry()
	}
	var failed *StepError
	observe := func(kind string, f map[string]any) {
		if kind != "step_end" {
			return
		}
		sr := StepResult{ID: intOf(f["id"]), Label: strOf(f["label"]), Status: strOf(f["status"]),
			DurationMs: int64(intOf(f["duration_ms"])), Error: strOf(f["error"])}
		res.Steps = append(res.Steps, sr)
		if sr.Status == "passed" {
			res.Passed++
		}
		if sr.Status == "failed" && failed == nil {
			failed = &StepError{Step: sr.ID, Label: sr.Label, Expected: strOf(f["expected"]), Saw: strOf(f["saw"]), Message: sr.Error}
		}
	}
	reg = reg.With(stdlib.EventsModule(observe))
	params := map[string]any{}
	for k, v := range o.Params {
		params[k] = v
	}
	vm, err := stdlib.NewVMWith(ctx, reg, sess, lua.Options{Timeout: o.Timeout, Print: o.Print, Globals: map[string]any{"params": params}})
	if err != nil {
		return res, err
	}
	defer vm.Close()
	err = vm.Run(o.Name, src)
	if err == nil {
		return res, nil
	}
	if failed != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		failed.Err = err
		return res, failed
	}
	return res, err
}

func intOf(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case int64:
		return int(x)
	case float64:
		return int(x)
	}
	return 0
}

func strOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if v == nil {
		return ""
	}
	return strings.TrimSpace(fmt.Sprint(v))
}
