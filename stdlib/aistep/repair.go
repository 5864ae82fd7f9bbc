package aistep

import (
	"fmt"
	"github.com/openpocket/openpocket/stdlib"
	"strings"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/airesolve"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/lua"
)

// RepairModule is the name of the skill-repair module replays use.
const RepairModule = "skill_repair"

// Repair is one replay step repaired by a model call: the step found
// nothing by its recorded selectors, the model chose the element on the
// screen, the replay tapped it and went on.
type Repair struct {
	Step  int
	Label string
	// Old is the recorded selector that found nothing.
	Old string
	// Target is the element the model chose, as learned skills record
	// targets (the run service writes it back into the skill).
	Target  *engine.Target
	Locator airesolve.Locator
	Model   string
	At      time.Time
}

// Repairer is the module `skill_repair` of one replay: a step that finds
// nothing asks the model once (the ai_tap protocol) and the repairs are
// collected for the run service to write back into the skill.
//
//	local r, err = require("skill_repair").tap({id = 3, label = "Tap \"Wi-Fi\""}, {target = "{id=wifi_switch}", near = "Wi-Fi"})
//	-- r = {x =, y =, target = "{id=wlan_switch}"} after tapping the element
type Repairer struct {
	mu      sync.Mutex
	repairs []Repair
}

var _ lua.Module = (*Repairer)(nil)

// Name implements lua.Module.
func (r *Repairer) Name() string { return RepairModule }

// Repairs are the steps repaired so far, in order.
func (r *Repairer) Repairs() []Repair {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Repair(nil), r.repairs...)
}

// Open implements lua.Module.
func (r *Repairer) Open(vm *lua.VM) (lua.LValue, error) {
	return vm.NewModule(map[string]lua.LGFunction{
		"tap": func(L *lua.LState) int {
			sess := stdlib.HostOf(vm).Session()
			if sess == nil {
				return lua.Raisef(L, "skill_repair: no session")
			}
			step, tt := L.CheckTable(1), L.CheckTable(2)
			id, _ := step.RawGetString("id").(lua.LNumber)
			label := lstr(step.RawGetString("label"))
			old := lstr(tt.RawGetString("target"))
			near := lstr(tt.RawGetString("near"))
			rep, err := r.tap(L, sess, int(id), label, old, near)
			if err != nil {
				return lua.ReturnErr(L, err)
			}
			t := L.CreateTable(0, 3)
			c := rep.Target.Bounds.Center()
			t.RawSetString("x", lua.LNumber(c.X))
			t.RawSetString("y", lua.LNumber(c.Y))
			t.RawSetString("target", lua.LString(rep.Locator.String()))
			L.Push(t)
			return 1
		},
	}), nil
}

// describe is what the model is asked to find: the recorded step as a
// person would say it.
func describe(label, old, near string) string {
	d := "the element the recorded step \"" + label + "\" acted on (recorded as " + old
	if near != "" {
		d += ", beside \"" + near + "\""
	}
	return d + "; the app may have renamed it)"
}

func (r *Repairer) tap(L *lua.LState, sess *engine.Session, step int, label, old, near string) (Repair, error) {
	model := sess.Engine().Model
	if model == nil {
		return Repair{}, fmt.Errorf("no repair: %w", engine.ErrNoModel)
	}
	snap, err := capture(sess)
	if err != nil {
		return Repair{}, err
	}
	res, err := airesolve.Element(lua.Context(L), model, snap, describe(label, old, near))
	if err != nil {
		return Repair{}, fmt.Errorf("repair of step %d: %w", step, err)
	}
	a, err := action.New("tap_element", map[string]any{"elementId": res.Element.ID})
	if err != nil {
		return Repair{}, err
	}
	if _, err := sess.Act(a, device.ActOptions{Snapshot: snap, Scaled: true}); err != nil {
		return Repair{}, err
	}
	rep := Repair{Step: step, Label: label, Old: old, Target: res.Target, Locator: res.Locator, Model: res.Model, At: time.Now().UTC()}
	r.mu.Lock()
	r.repairs = append(r.repairs, rep)
	r.mu.Unlock()
	msg := fmt.Sprintf("step %d (%s) repaired: %s found nothing; the model chose %s", step, label, old, res.Locator.String())
	sess.Emit("skill_repaired", map[string]any{"step": step, "label": label, "old": old, "new": res.Locator.String(), "model": res.Model,
		"message": msg})
	sess.Logger().Warn(msg)
	return rep, nil
}

// Summary is one line per repair, for run output and the session.
func Summary(reps []Repair) string {
	var parts []string
	for _, r := range reps {
		parts = append(parts, fmt.Sprintf("step %d (%s) repaired by one model call: %s found nothing, now %s", r.Step, r.Label, r.Old, r.Locator.String()))
	}
	return strings.Join(parts, "; ")
}

func lstr(v lua.LValue) string {
	if s, ok := v.(lua.LString); ok {
		return string(s)
	}
	return ""
}
