package skills_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/android"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/stdlib/skillsmod"
)

// flow is a task recorded like an agent run, then replayed.
type flow struct {
	name   string
	task   string
	record func(r *recorder)
	params map[string]string
	// check verifies the replay's effect on the phone.
	check func(p *android.Phone) error
	// coordResizedPasses marks flows whose recorded points happen to land
	// on the same elements after the resize (the layout scales almost
	// proportionally there), so the coordinate-only replay is not
	// expected to fail resized.
	coordResizedPasses bool
	// recorded verifies the recording itself did the task.
	recorded func(p *android.Phone) error
	// dialogAt is the step at whose start the unexpected dialog pops up (2).
	dialogAt int
}

func flows() []flow {
	return []flow{
		{
			name: "wifi", task: "Turn off Wi-Fi",
			record: func(r *recorder) {
				r.launch(android.PkgSettings)
				r.tap("Tap the Wi-Fi switch", byID("wifi_switch"))
				r.finish("Wi-Fi is off")
			},
			check: func(p *android.Phone) error {
				if p.WifiOn() {
					return errors.New("Wi-Fi is still on")
				}
				return nil
			},
			coordResizedPasses: true,
		},
		{
			name: "note", task: "Save a note saying buy milk",
			record: func(r *recorder) {
				r.launch(android.PkgNotes)
				r.tap("Allow the notification prompt", byText("Allow"))
				r.tap("Focus the note field", byID("note_input"))
				r.typeText("buy milk")
				r.tap("Save the note", byText("Save"))
				r.finish("Saved the note")
			},
			params:             map[string]string{"text_1": "call mom"},
			dialogAt:           3,
			coordResizedPasses: true,
			recorded: func(p *android.Phone) error {
				if !slices.Contains(p.Notes(), "buy milk") {
					return fmt.Errorf("recording: notes are %q", p.Notes())
				}
				return nil
			},
			check: func(p *android.Phone) error {
				if !slices.Contains(p.Notes(), "call mom") {
					return fmt.Errorf("notes are %q, want the parameter value \"call mom\"", p.Notes())
				}
				return nil
			},
		},
		{
			name: "login", task: "Log in as alice with the one-time code",
			record: func(r *recorder) {
				r.launch(android.PkgLogin)
				r.tap("Focus the user name", byID("username"))
				r.typeText("alice")
				r.tap("Focus the password", byID("password"))
				r.typeText(android.LoginPassword)
				r.tap("Log in", byText("Log in"))
				r.humanAuth("2fa")
				r.tap("Focus the code field", byID("otp"))
				r.typeText(android.DefaultOTP)
				r.tap("Verify", byText("Verify"))
				r.finish("Logged in")
			},
			params: map[string]string{"text_2": android.LoginPassword, "text_3": android.DefaultOTP},
			check: func(p *android.Phone) error {
				if !p.LoggedIn() || p.LoggedInUser() != "alice" {
					return fmt.Errorf("logged in=%t user=%q", p.LoggedIn(), p.LoggedInUser())
				}
				return nil
			},
		},
		{
			name: "contact", task: "Open the contact Mason Miller",
			record: func(r *recorder) {
				r.launch(android.PkgContacts)
				r.swipeUntil(byText("Mason Miller"))
				r.tap("Open Mason Miller", byText("Mason Miller"))
				r.finish("Opened Mason Miller")
			},
			check: func(p *android.Phone) error {
				root, err := screen.ParseHierarchy(p.UIDumpXML())
				if err != nil {
					return err
				}
				if (screen.Selector{ID: "contact_name", Text: "Mason Miller"}).MustCompile().Find(root) == nil {
					return fmt.Errorf("not on Mason Miller's page (activity %s)", p.CurrentActivity())
				}
				return nil
			},
		},
	}
}

// TestReplayRobustness records four tasks the way the agent loop runs them
// and replays them unchanged, on a shifted layout, on another screen size,
// with a permission dialog the recording never saw popping up and with an
// "isn't responding" dialog popping up. The selector replay passes the
// first three, stops cleanly naming the unknown dialog and answers the ANR
// dialog with Wait; the coordinate-only replay fails on the moved layouts.
func TestReplayRobustness(t *testing.T) {
	s := takePhone(t)
	for _, f := range flows() {
		t.Run(f.name, func(t *testing.T) {
			s.Phone().Reset()
			phone, _ := openPhone(t, s)
			r := newRecorder(t, phone)
			f.record(r)
			rec := f.check
			if f.recorded != nil {
				rec = f.recorded
			}
			if err := rec(s.Phone()); err != nil {
				t.Fatalf("the recorded run did not do the task: %v", err)
			}

			ws := t.TempDir()
			art, err := skills.Write(skills.ArtifactOptions{Workspace: ws, Task: f.task, SessionPath: "sessions/session-test.md", Steps: r.steps, Now: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			src, err := os.ReadFile(art.ScriptPath)
			if err != nil {
				t.Fatal(err)
			}
			if err := skillsmod.Check(art.ScriptPath, src); err != nil {
				t.Fatalf("generated script does not compile: %v\n%s", err, src)
			}
			coord, _ := skills.GenerateReplay(r.steps, skills.ReplayOptions{Name: f.name, ScreenWidth: 1080, ScreenHeight: 2400, CoordinatesOnly: true})

			variants := []struct {
				name        string
				perturb     func(p *android.Phone)
				coordPasses bool
			}{
				{"unchanged", func(*android.Phone) {}, true},
				{"shifted", func(p *android.Phone) { p.SetLayoutOffset(0, 120) }, false},
				{"resized", func(p *android.Phone) { p.Resize(720, 1600, 320) }, f.coordResizedPasses},
			}
			for _, v := range variants {
				t.Run(v.name, func(t *testing.T) {
					s.Phone().Reset()
					v.perturb(s.Phone())
					phone, _ := openPhone(t, s)
					res, err := replay(t, phone, string(src), f.params, nil)
					if err != nil {
						t.Fatalf("selector replay failed: %v\n%s", err, src)
					}
					if err := f.check(s.Phone()); err != nil {
						t.Fatalf("selector replay passed but: %v", err)
					}
					if res.Passed == 0 {
						t.Fatal("no step reported passed")
					}

					s.Phone().Reset()
					v.perturb(s.Phone())
					phone, _ = openPhone(t, s)
					_, cerr := replay(t, phone, coord, f.params, nil)
					ok := cerr == nil && f.check(s.Phone()) == nil
					if ok != v.coordPasses {
						t.Fatalf("coordinate-only replay: passed=%t, want %t (err: %v)", ok, v.coordPasses, cerr)
					}
					if cerr != nil {
						var se *skillsmod.StepError
						if !errors.As(cerr, &se) || se.Expected == "" || se.Saw == "" {
							t.Fatalf("coordinate-only failure is not a clear step error: %v", cerr)
						}
						t.Logf("coordinate-only replay %s: %v", v.name, cerr)
					}
				})
			}

			dialogVariants(t, s, f, string(src))
		})
	}
}

// dialogVariants replays src with dialogs popping up mid-replay: one the
// recording never saw (the replay stops naming it), the one it answered
// (answered again), the keyboard picker (closed with BACK) and an "isn't
// responding" one (answered with Wait).
func dialogVariants(t *testing.T, s *sim.Sim, f flow, src string) {
	t.Run("permission dialog", func(t *testing.T) {
		s.Phone().Reset()
		phone, _ := openPhone(t, s)
		seen, at := 0, max(f.dialogAt, 2)
		_, err := replay(t, phone, src, f.params, func(e engine.Event) {
			if e.Kind == "step_start" {
				if seen++; seen == at {
					s.Phone().ShowPermissionDialog("Settings")
				}
			}
		})
		var se *skillsmod.StepError
		if !errors.As(err, &se) {
			t.Fatalf("replay with a dialog: want a *StepError, got %v", err)
		}
		if !strings.Contains(se.Saw, "Allow") || se.Expected == "" || se.Step == 0 {
			t.Fatalf("step error does not say what the screen showed: %+v", se)
		}
		t.Logf("dialog: %v", err)
	})

	if f.name == "note" {
		// The dialog the run answered pops up again in the middle
		// of the replay: its handler answers it there too.
		t.Run("recorded dialog again mid-replay", func(t *testing.T) {
			s.Phone().Reset()
			phone, _ := openPhone(t, s)
			seen := 0
			res, err := replay(t, phone, src, f.params, func(e engine.Event) {
				if e.Kind == "step_start" {
					if seen++; seen == 3 {
						s.Phone().ShowPermissionDialog("Notes")
					}
				}
			})
			if err != nil {
				t.Fatalf("the recorded answer was not given mid-replay: %v", err)
			}
			if err := f.check(s.Phone()); err != nil {
				t.Fatalf("replay passed but: %v (%+v)", err, res.Steps)
			}
		})
	}

	t.Run("keyboard picker", func(t *testing.T) {
		s.Phone().Reset()
		phone, _ := openPhone(t, s)
		seen, at := 0, max(f.dialogAt, 2)
		_, err := replay(t, phone, src, f.params, func(e engine.Event) {
			if e.Kind == "step_start" {
				if seen++; seen == at {
					s.Phone().ShowInputMethodPicker()
				}
			}
		})
		if err != nil {
			t.Fatalf("the keyboard picker is closed with BACK, yet: %v", err)
		}
		if err := f.check(s.Phone()); err != nil {
			t.Fatalf("replay over the keyboard picker passed but: %v", err)
		}
	})

	t.Run("app not responding", func(t *testing.T) {
		s.Phone().Reset()
		phone, _ := openPhone(t, s)
		seen, at := 0, max(f.dialogAt, 2)
		_, err := replay(t, phone, src, f.params, func(e engine.Event) {
			if e.Kind == "step_start" {
				if seen++; seen == at {
					s.Phone().ShowANRDialog("Settings")
				}
			}
		})
		if err != nil {
			t.Fatalf("an \"isn't responding\" dialog is answered with Wait, yet: %v", err)
		}
		if err := f.check(s.Phone()); err != nil {
			t.Fatalf("replay over an ANR dialog passed but: %v", err)
		}
		if s.Phone().CurrentPackage() == android.PkgAndroid {
			t.Fatal("the ANR dialog is still up")
		}
	})
}

// TestReplayRequiresHumanParam: a value the human gave (after
// request_human_auth) has no default; the replay refuses to start without it.
func TestReplayRequiresHumanParam(t *testing.T) {
	s := takePhone(t)
	f := flows()[2]
	phone, _ := openPhone(t, s)
	r := newRecorder(t, phone)
	f.record(r)
	src, params := skills.GenerateReplay(r.steps, skills.ReplayOptions{Name: "login"})
	if len(params) != 3 || !params[2].Required || params[2].Default != "" || params[0].Default != "alice" {
		t.Fatalf("params = %+v", params)
	}
	// The password is a secret: a required parameter, never in the script.
	if !params[1].Required || params[1].Default != "" || strings.Contains(src, android.LoginPassword) {
		t.Fatalf("the password leaks into the skill: params %+v", params)
	}
	md := skills.RenderSkill(r.steps, skills.SkillDoc{Name: "login", Task: "log in"})
	if strings.Contains(md, android.LoginPassword) || !strings.Contains(md, "Type a secret into the password field (not recorded)") {
		t.Fatalf("the password leaks into the skill markdown:\n%s", md)
	}
	s.Phone().Reset()
	phone, _ = openPhone(t, s)
	_, err := replay(t, phone, src, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "parameter text_2 is required") {
		t.Fatalf("err = %v", err)
	}
	if s.Phone().CurrentPackage() != android.PkgLauncher {
		t.Fatalf("the replay acted before checking its parameters: %s in front", s.Phone().CurrentPackage())
	}
}

var _ = context.Background
