package skills_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/llm"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/android"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/stdlib/agent"
	"github.com/openpocket/openpocket/stdlib/skillsmod"
)

// learnCase is a task an agent run learns on the virtual phone, with a
// model that reacts to the screen, and the checks of its replays.
type learnCase struct {
	name, task string
	// before sets the phone up for the recorded run (after a reset).
	before func(t *testing.T, r *rigPhone)
	policy policy
	// done checks the task's effect on the phone.
	done func(p *android.Phone, text string) error
	// text is the recorded text parameter ("" when the task types none).
	text string
	// deeper puts the phone on a deeper screen of the start app.
	deeper func(t *testing.T, r *rigPhone)
	// wantDetours and wantNoEffect count the recorded steps the skill must
	// leave out.
	wantDetours, wantNoEffect int
	// wantHandler is the dialog answer the skill keeps as a handler.
	wantHandler string
	// sameLook marks a task acting on one of several same-looking
	// elements: its replay must pick it by the recorded neighbouring label.
	sameLook bool
}

// rigPhone is the shared virtual phone with a device.Phone on it.
type rigPhone struct {
	sim   *sim.Sim
	phone *device.Phone
}

func (r *rigPhone) shell(t *testing.T, cmd string) {
	t.Helper()
	if _, err := r.phone.Shell(context.Background(), cmd); err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
}

// tapText taps the element labelled text, as a person would.
func (r *rigPhone) tapText(t *testing.T, text string) {
	t.Helper()
	root, _, err := r.phone.Hierarchy(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := screen.Selector{Text: text}.MustCompile().Find(root)
	if n == nil {
		t.Fatalf("no %q on screen", text)
	}
	c := screen.ActionTarget(n).Center()
	r.shell(t, fmt.Sprintf("input tap %d %d", c.X, c.Y))
}

func (r *rigPhone) launch(t *testing.T, pkg string) {
	t.Helper()
	if _, err := r.phone.LaunchApp(context.Background(), pkg); err != nil {
		t.Fatal(err)
	}
}

// notesDialogUp leaves Notes' first-launch permission dialog up, unanswered.
func notesDialogUp(t *testing.T, r *rigPhone) {
	r.launch(t, android.PkgNotes)
	if got := r.sim.Phone().CurrentPackage(); got != android.PkgPermissionControl {
		t.Fatalf("no permission dialog after launching Notes: %s in front", got)
	}
}

// notesGranted answers Notes' permission dialog and goes home.
func notesGranted(t *testing.T, r *rigPhone) {
	notesDialogUp(t, r)
	r.tapText(t, "Allow")
	r.shell(t, "input keyevent KEYCODE_HOME")
}

const (
	pkgNotes    = android.PkgNotes
	pkgContacts = android.PkgContacts
)

func learnCases() []learnCase {
	wifiOff := func(p *android.Phone, _ string) error {
		if p.WifiOn() {
			return errors.New("Wi-Fi is still on")
		}
		return nil
	}
	aboutPhone := func(t *testing.T, r *rigPhone) {
		r.launch(t, settings)
		r.tapText(t, "About phone")
	}
	return []learnCase{
		{
			name: "wifi over an unanswered dialog", task: "Turn off Wi-Fi",
			before: notesDialogUp,
			policy: func(v view, memo map[string]bool) (string, map[string]any) {
				switch {
				case memo["toggled"]:
					return finishWith("Wi-Fi is off")
				case v.App != settings:
					return launchApp(settings) // over the dialog, without answering it
				}
				if e := v.find("Switch", "wifi_switch", "Wi-Fi"); e != nil {
					memo["toggled"] = true
					return tapElement(e)
				}
				return waitABit()
			},
			done: wifiOff, deeper: aboutPhone,
		},
		{
			name: "note with the permission answered mid-run", task: "Save a note saying buy milk", text: "buy milk",
			policy: func(v view, memo map[string]bool) (string, map[string]any) {
				if v.App == permctl {
					if e := v.find("", "Allow"); e != nil {
						return tapElement(e)
					}
				}
				switch {
				case memo["saved"]:
					return finishWith("Saved the note")
				case v.App != pkgNotes:
					return launchApp(pkgNotes)
				case !memo["focused"]:
					if e := v.find("EditText", "note_input", "Write a note"); e != nil {
						memo["focused"] = true
						return tapElement(e)
					}
				case !memo["typed"]:
					memo["typed"] = true
					return "type_text", map[string]any{"text": "buy milk"}
				default:
					if e := v.find("Button", "Save"); e != nil {
						memo["saved"] = true
						return tapElement(e)
					}
				}
				return waitABit()
			},
			done: func(p *android.Phone, text string) error {
				if !slices.Contains(p.Notes(), text) {
					return fmt.Errorf("notes are %q, want %q saved", p.Notes(), text)
				}
				return nil
			},
			deeper: func(t *testing.T, r *rigPhone) {
				notesGranted(t, r)
				r.launch(t, pkgNotes)
				r.tapText(t, "Write a note")
				r.shell(t, "input text draft")
				keyboardUp(t, r) // over the start app
			},
			wantHandler: "Allow",
		},
		{
			name: "contact after scrolling", task: "Open the contact Mason Miller",
			policy: func(v view, memo map[string]bool) (string, map[string]any) {
				switch {
				case memo["opened"]:
					return finishWith("Opened Mason Miller")
				case v.App != pkgContacts:
					return launchApp(pkgContacts)
				}
				if e := v.find("", "Mason Miller"); e != nil {
					memo["opened"] = true
					return tapElement(e)
				}
				return "swipe", map[string]any{"x1": v.W / 2, "y1": v.H * 3 / 4, "x2": v.W / 2, "y2": v.H * 2 / 5, "durationMs": 300}
			},
			done: func(p *android.Phone, _ string) error {
				root, err := screen.ParseHierarchy(p.UIDumpXML())
				if err != nil {
					return err
				}
				if (screen.Selector{ID: "contact_name", Text: "Mason Miller"}).MustCompile().Find(root) == nil {
					return fmt.Errorf("not on Mason Miller's page (activity %s)", p.CurrentActivity())
				}
				return nil
			},
			deeper: func(t *testing.T, r *rigPhone) {
				r.launch(t, pkgContacts)
				r.tapText(t, "Aaron Abbott")
			},
		},
		{
			name: "bluetooth after a detour", task: "Turn on Bluetooth",
			policy: func(v view, memo map[string]bool) (string, map[string]any) {
				switch {
				case memo["toggled"]:
					return finishWith("Bluetooth is on")
				case v.App == launcher && !memo["wrong"]:
					if e := v.find("", "Contacts"); e != nil { // the wrong app
						memo["wrong"] = true
						return tapElement(e)
					}
				case v.App == pkgContacts:
					return "keyevent", map[string]any{"keycode": "KEYCODE_BACK"}
				case v.App == launcher:
					if e := v.find("", "Settings"); e != nil {
						return tapElement(e)
					}
				case v.App == settings && !memo["missed"]:
					memo["missed"] = true
					if e := v.find("TextView", "Settings"); e != nil { // the title: a tap that does nothing
						return tapElement(e)
					}
				case v.App == settings:
					if e := v.find("Switch", "bluetooth_switch", "Bluetooth"); e != nil {
						memo["toggled"] = true
						return tapElement(e)
					}
				}
				return waitABit()
			},
			done: func(p *android.Phone, _ string) error {
				if !p.BluetoothOn() {
					return errors.New("Bluetooth is still off")
				}
				return nil
			},
			deeper:      aboutPhone,
			wantDetours: 2, wantNoEffect: 1,
		},
		{
			name: "notes notifications among same-looking toggles", task: "Turn off notifications for Notes",
			policy: func(v view, memo map[string]bool) (string, map[string]any) {
				switch {
				case memo["toggled"]:
					return finishWith("Notes notifications are off")
				case v.App != settings:
					return launchApp(settings)
				case !memo["opened"]:
					if e := v.find("", "Notifications"); e != nil {
						memo["opened"] = true
						return tapElement(e)
					}
				default:
					if e := v.beside("Switch", "Notes"); e != nil {
						memo["toggled"] = true
						return tapElement(e)
					}
				}
				return waitABit()
			},
			done: func(p *android.Phone, _ string) error {
				if p.NotificationsOn(pkgNotes) || !p.NotificationsOn(android.PkgLogin) || !p.NotificationsOn(pkgContacts) {
					return fmt.Errorf("notifications on: Notes %t, Login %t, Contacts %t; want only Notes off",
						p.NotificationsOn(pkgNotes), p.NotificationsOn(android.PkgLogin), p.NotificationsOn(pkgContacts))
				}
				return nil
			},
			deeper:   aboutPhone,
			sameLook: true,
		},
	}
}

// keyboardUp checks that the soft keyboard is on screen.
func keyboardUp(t *testing.T, r *rigPhone) {
	t.Helper()
	root, _, err := r.phone.Hierarchy(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if (screen.Selector{Package: android.PkgKeyboard}).MustCompile().Find(root) == nil {
		t.Fatal("no soft keyboard on screen")
	}
}

// startState is where a replay begins.
type startState struct {
	name    string
	prepare func(t *testing.T, r *rigPhone, c learnCase)
	// param replaces the recorded text parameter.
	param string
}

func startStates() []startState {
	return []startState{
		{name: "home", prepare: func(*testing.T, *rigPhone, learnCase) {}},
		{name: "another app", prepare: func(t *testing.T, r *rigPhone, _ learnCase) { r.launch(t, android.PkgLogin) }},
		{name: "deeper screen", prepare: func(t *testing.T, r *rigPhone, c learnCase) { c.deeper(t, r) }},
		{name: "dialog present", prepare: func(t *testing.T, r *rigPhone, _ learnCase) { notesDialogUp(t, r) }},
		{name: "dialog absent", prepare: func(t *testing.T, r *rigPhone, _ learnCase) { notesGranted(t, r) }},
		{name: "720x1600", prepare: func(t *testing.T, r *rigPhone, _ learnCase) { r.shell(t, "wm size 720x1600") }},
		{name: "new text", param: "call mom", prepare: func(*testing.T, *rigPhone, learnCase) {}},
		{name: "keyboard up", prepare: func(t *testing.T, r *rigPhone, _ learnCase) {
			r.launch(t, android.PkgLogin)
			r.tapText(t, "Username")
			keyboardUp(t, r)
		}},
		{name: "all at once", param: "pay rent", prepare: func(t *testing.T, r *rigPhone, _ learnCase) {
			// 720x1600, another app in front with a dialog of its own up.
			r.shell(t, "wm size 720x1600")
			r.launch(t, android.PkgLogin)
			r.sim.Phone().ShowPermissionDialog("Login")
		}},
	}
}

// TestLearnedSkillsReplayFromAnywhere learns five tasks from agent runs —
// the real agent loop, the real openai-go client, a fake model that reads
// the element list it is sent — and replays each skill from every start
// state: the home screen, another app, a deeper screen of the start app,
// with the dialog present and absent, with the keyboard up (over another
// app; over the start app on the note's deeper screen), on 720x1600, with
// a new text parameter and all at once (720x1600, another app with its own
// dialog up, new text). The coordinate-only replay of the same run fails from the
// deeper screen, where the recorded points land on other elements; picking
// same-looking toggles by index instead of their row title fails too.
func TestLearnedSkillsReplayFromAnywhere(t *testing.T) {
	s := takePhone(t)
	srv := llmtest.NewServer(t)
	model := &screenModel{}
	srv.Respond(model.reply)
	t.Setenv("OPENAI_API_KEY", "")
	client, err := llm.New(llm.Profile{Name: "test", BaseURL: srv.BaseURL(), Model: "gpt-test"}, llm.Options{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range learnCases() {
		t.Run(c.name, func(t *testing.T) {
			s.Phone().Reset()
			phone, _ := openPhone(t, s)
			r := &rigPhone{sim: s, phone: phone}
			if c.before != nil {
				c.before(t, r)
			}
			model.use(c.policy)
			steps := runAgent(t, phone, client, c.task)
			if err := c.done(s.Phone(), c.text); err != nil {
				t.Fatalf("the agent run did not do the task: %v", err)
			}
			src, coord := learnSkill(t, c, steps)
			calls := model.Calls()

			for _, st := range startStates() {
				if st.param != "" && c.text == "" && st.name == "new text" {
					continue // the task types no text
				}
				t.Run(st.name, func(t *testing.T) {
					s.Phone().Reset()
					phone, _ := openPhone(t, s)
					r := &rigPhone{sim: s, phone: phone}
					st.prepare(t, r, c)
					params, want := map[string]string{}, c.text
					if st.param != "" && c.text != "" {
						params["text_1"], want = st.param, st.param
					}
					res, err := replay(t, phone, src, params, nil)
					t.Logf("replay from %s: %+v", st.name, res.Steps)
					if err != nil {
						t.Fatalf("replay from %s: %v", st.name, err)
					}
					if err := c.done(s.Phone(), want); err != nil {
						t.Fatalf("replay from %s passed but: %v", st.name, err)
					}
					if st.name != "deeper screen" {
						return
					}
					s.Phone().Reset()
					phone, _ = openPhone(t, s)
					st.prepare(t, &rigPhone{sim: s, phone: phone}, c)
					_, cerr := replay(t, phone, coord, map[string]string{"timeout_ms": "2000"}, nil)
					if cerr == nil && c.done(s.Phone(), want) == nil {
						t.Fatal("the coordinate-only replay passed from a deeper screen; it taps recorded points blindly")
					}
					t.Logf("coordinate-only replay from the deeper screen fails as it should: %v", cerr)
				})
			}
			if c.sameLook {
				indexOnly(t, s, c, steps)
			}
			if model.Calls() != calls {
				t.Fatalf("replays called the model %d times", model.Calls()-calls)
			}
		})
	}
}

// runAgent runs the agent loop with the model and returns its trace.
func runAgent(t testing.TB, phone *device.Phone, m engine.Model, task string) []engine.TraceStep {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	eng := &engine.Engine{Model: m, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	sess, err := eng.NewSession(ctx, engine.SessionOptions{Task: task, Phone: phone})
	if err != nil {
		t.Fatal(err)
	}
	res, err := agent.Run(ctx, sess, agent.Options{MaxSteps: 25})
	if err != nil || !res.Success {
		t.Fatalf("agent run %q: success=%t %s (%v)", task, res.Success, res.Message, err)
	}
	return sess.Trace()
}

// learnSkill writes the skill of a run and checks what it learned: the
// detours left out, the dialog answer kept as a handler, the markdown
// describing the same path.
func learnSkill(t *testing.T, c learnCase, steps []engine.TraceStep) (src, coord string) {
	t.Helper()
	ws := t.TempDir()
	art, err := skills.Write(skills.ArtifactOptions{Workspace: ws, Task: c.task, SessionPath: "sessions/session-test.md", Steps: steps})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(art.ScriptPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := skillsmod.Check(art.ScriptPath, b); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	plan := skills.Learn(steps)
	detours, noEffect := 0, 0
	for _, d := range plan.Dropped {
		switch {
		case strings.HasPrefix(d.Why, "detour"):
			detours++
		case strings.Contains(d.Why, "no effect") && steps[d.Index].Action.Type != "wait":
			// (a wait the model chose while the screen settled is no
			// mistake of the task; it is dropped too, not counted here)
			noEffect++
		}
		if !strings.Contains(string(b), fmt.Sprintf("-- Step %d dropped:", d.Step)) {
			t.Errorf("dropped step %d is not shown as a comment in the Lua", d.Step)
		}
	}
	if detours != c.wantDetours || noEffect != c.wantNoEffect {
		t.Errorf("dropped %d detour and %d no-effect steps, want %d and %d (plan %+v)", detours, noEffect, c.wantDetours, c.wantNoEffect, plan)
	}
	if c.wantHandler != "" && (len(plan.Handlers) != 1 || plan.Handlers[0].Label != c.wantHandler) {
		t.Errorf("handlers %+v, want one answering %q", plan.Handlers, c.wantHandler)
	}
	md, err := os.ReadFile(art.SkillPath)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Start == "" || !strings.Contains(string(md), "- Start app: "+plan.Start) {
		t.Errorf("markdown preconditions do not name the start app %q:\n%s", plan.Start, md)
	}
	coord, _ = skills.GenerateReplay(steps, skills.ReplayOptions{Name: "coord", CoordinatesOnly: true, ScreenWidth: 1080, ScreenHeight: 2400})
	return string(b), coord
}

// indexOnly shows why same-looking elements are picked by their neighbouring
// label: the same skill generated without it (by index among the matches)
// turns off the wrong app's notifications once the list's order changed
// (Notes used recently moves to the top); the real skill does not.
func indexOnly(t *testing.T, s *sim.Sim, c learnCase, steps []engine.TraceStep) {
	t.Helper()
	var stripped []engine.TraceStep
	near := 0
	for _, st := range steps {
		if st.Target != nil && st.Target.Near != "" {
			tg := *st.Target
			tg.Near = ""
			st.Target = &tg
			near++
		}
		stripped = append(stripped, st)
	}
	if near == 0 {
		t.Fatal("no recorded target has a neighbouring label")
	}
	byIndex, _ := skills.GenerateReplay(stripped, skills.ReplayOptions{Name: "by-index"})
	s.Phone().Reset()
	phone, _ := openPhone(t, s)
	notesGranted(t, &rigPhone{sim: s, phone: phone})
	_, err := replay(t, phone, byIndex, nil, nil)
	if err == nil && c.done(s.Phone(), "") == nil {
		t.Fatal("the index-only replay picked the right toggle after the list reordered; the test shows nothing")
	}
	t.Logf("by index, after the list reordered: %v / %v", err, c.done(s.Phone(), ""))
}
