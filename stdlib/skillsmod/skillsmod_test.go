package skillsmod_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/skills"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
	"github.com/openpocket/openpocket/stdlib/skillsmod"
)

const hello = "# Hello\n\nSays hello.\n\n```lua\nlocal events = require(\"events\")\n" +
	"assert(params.who, \"who is required\")\n" +
	"events.emit(\"step_end\", {id = 1, label = \"greet \" .. params.who, status = \"passed\", duration_ms = 0})\n```\n"

func newVM(t *testing.T, ws string) (*lua.VM, *[]engine.Event) {
	t.Helper()
	var evs []engine.Event
	eng := &engine.Engine{OpenDevice: func(context.Context) (engine.Device, error) { return nil, errors.New("no device") }}
	sess, err := eng.NewSession(t.Context(), engine.SessionOptions{Task: "t", OnEvent: func(e engine.Event) { evs = append(evs, e) }})
	if err != nil {
		t.Fatal(err)
	}
	reg := stdlib.Registry(skillsmod.New(run.SkillLibrary(&skills.Loader{WorkspaceDir: ws})))
	vm, err := stdlib.NewVMWith(t.Context(), reg, sess, lua.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(vm.Close)
	return vm, &evs
}

func TestRunAndList(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "skills", "hello.md"), []byte(hello), 0o644); err != nil {
		t.Fatal(err)
	}
	vm, evs := newVM(t, ws)
	out, err := vm.Eval(`(function()
		local skills = require("skills")
		local names = {}
		for _, s in ipairs(skills.list()) do names[#names + 1] = s.name .. "@" .. s.source end
		local r = assert(skills.run("Hello", {who = "ana"}))
		local ok, err = skills.run("Hello")
		local _, missing = skills.run("nope")
		return table.concat(names, ","), r.passed, tostring(ok), err, missing
	end)()`)
	if err != nil {
		t.Fatal(err)
	}
	if list := out[0].(string); !strings.Contains(list, "Hello@workspace") || !strings.Contains(list, "toggle-wifi@bundled") {
		t.Fatalf("list = %s", list)
	}
	if out[1].(float64) != 1 || out[2] != "nil" || !strings.Contains(out[3].(string), "who is required") {
		t.Fatalf("run results = %v", out)
	}
	if !strings.Contains(out[4].(string), "skill not found") {
		t.Fatalf("missing skill error = %v", out[4])
	}
	if len(*evs) == 0 || (*evs)[0].Fields["label"] != "greet ana" {
		t.Fatalf("events = %+v", *evs)
	}
}
