package playbooks

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/openpocket/openpocket/lua"
)

// Fake modules, in Lua, sharing state through the "fake" module: a screen
// (a list of elements), a clock, recorded calls, events and logs.
const fakeState = `
local fake = {screen = {}, calls = {}, events = {}, logs = {}, now = 0, poll = nil}
function fake.call(s) fake.calls[#fake.calls + 1] = s end
local function matches(el, sel)
  if type(sel) == "string" then return el.text == sel or el.desc == sel end
  for k, v in pairs(sel) do
    if k == "text_contains" then
      if not (el.text and string.find(el.text, v, 1, true)) then return false end
    elseif el[k] ~= v then return false end
  end
  return true
end
function fake.find(sel)
  for _, el in ipairs(fake.screen) do
    if matches(el, sel) then return el end
  end
end
function fake.remove(text)
  for i, el in ipairs(fake.screen) do
    if el.text == text then table.remove(fake.screen, i) return end
  end
end
return fake
`

const fakeUI = `
local fake = require("fake")
local ui = {}
local function wait_for(pred, opts)
  local ms = (opts and opts.timeout_ms) or 5000
  local t = 0
  while true do
    if fake.poll then fake.poll() end
    local v = pred()
    if v then return v end
    if t >= ms then return nil end
    t = t + 100
    fake.now = fake.now + 100
  end
end
function ui.on_poll(fn) fake.poll = fn end
function ui.exists(sel) return fake.find(sel) ~= nil end
function ui.find(sel, opts)
  local el = wait_for(function() return fake.find(sel) end, opts)
  if not el then return nil, "not found: " .. tostring(sel) end
  return el
end
ui.wait = ui.find
function ui.wait_gone(sel, opts)
  local ok = wait_for(function() return fake.find(sel) == nil end, opts)
  if not ok then return nil, "still visible: " .. tostring(sel) end
  return true
end
function ui.tap(sel, opts)
  local el, err = ui.find(sel, opts)
  if not el then return nil, err end
  fake.call("tap " .. (el.text or el.id or "?"))
  if el.on_tap then el.on_tap(el) end
  return el
end
function ui.text(sel, opts)
  local el, err = ui.find(sel, opts)
  if not el then return nil, err end
  return el.text
end
function ui.set_text(sel, text, opts)
  local el, err = ui.find(sel, opts)
  if not el then return nil, err end
  el.text = text
  fake.call("set_text " .. (el.id or "?") .. " " .. text)
  return true
end
return ui
`

const fakeDevice = `
local fake = require("fake")
local device = {}
function device.type(t) fake.call("type " .. t) return "typed" end
function device.back() fake.call("back") return "ok" end
function device.home() fake.call("home") return "ok" end
function device.key(k) fake.call("key " .. tostring(k)) return "ok" end
function device.tap(x, y) fake.call("tap " .. x .. "," .. y) return "ok" end
function device.size() return 1080, 2400 end
function device.act(a) fake.call("act " .. a.type) return "ok" end
function device.shell(cmd)
  fake.call("shell " .. cmd)
  if cmd == "false" then return "", 1 end
  return "out:" .. cmd, 0
end
return device
`

const fakeMisc = `
local fake = require("fake")
return {
  app = {
    launch = function(pkg, o) fake.call("launch " .. pkg) return true end,
    stop = function(pkg) fake.call("stop " .. pkg) end,
    clear = function(pkg) fake.call("clear " .. pkg) end,
  },
  wait = {
    ms = function(n) fake.now = fake.now + n end,
    idle = function() return true end,
    ["until"] = function(fn, o)
      local t = 0
      while t <= (o and o.timeout_ms or 5000) do
        local v = fn()
        if v then return v end
        t = t + 100
      end
      return nil, "timeout"
    end,
  },
  events = {emit = function(kind, f)
    local e = {kind = kind}
    for k, v in pairs(f) do e[k] = v end
    fake.events[#fake.events + 1] = e
  end},
  log = {
    info = function(m) fake.logs[#fake.logs + 1] = "info " .. tostring(m) end,
    warn = function(m) fake.logs[#fake.logs + 1] = "warn " .. tostring(m) end,
  },
  time = {now_ms = function() return fake.now end},
}
`

const fakeAssert = `
local fake = require("fake")
local ui = require("ui")
local A = {}
function A.visible(sel, o)
  if not ui.find(sel, o) then error((o and o.message) or ("not visible: " .. tostring(sel)), 0) end
end
function A.not_visible(sel, o)
  if fake.find(sel) then error((o and o.message) or ("visible: " .. tostring(sel)), 0) end
end
return setmetatable(A, {__call = function(_, v, msg) if not v then error(msg or "assertion failed", 0) end return v end})
`

func fakeRegistry(t testing.TB) *lua.Registry {
	t.Helper()
	reg := lua.NewRegistry()
	misc := func(name string) string {
		return "return (function() " + fakeMisc + " end)()." + name
	}
	for name, src := range map[string]string{
		"fake": fakeState, "ui": fakeUI, "device": fakeDevice, "assert": fakeAssert,
		"app": misc("app"), "wait": misc("wait"), "events": misc("events"), "log": misc("log"), "time": misc("time"),
		RuntimeModule: RuntimeSource,
	} {
		if err := reg.RegisterSource(name, src); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return reg
}

type runResult struct {
	err    error
	calls  []string
	events []map[string]any
	logs   []string
}

// run compiles files["main.yaml"] and runs it against the fakes after the
// setup Lua (which arranges fake.screen).
func run(t *testing.T, files map[string]string, setup string, params map[string]string) runResult {
	t.Helper()
	opts := Options{File: "main.yaml", Params: params, ResolveInclude: func(p string) ([]byte, string, error) {
		src, ok := files[p]
		if !ok {
			return nil, p, errors.New("no such file")
		}
		return []byte(src), p, nil
	}}
	res, err := CompileWithMap([]byte(files["main.yaml"]), opts)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	vm, err := lua.New(context.Background(), fakeRegistry(t), lua.Options{SourceMap: res.Map.VMFunc(res.Chunk), Globals: res.Globals()})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	if err := vm.Run("setup", []byte("local fake = require('fake')\n"+setup)); err != nil {
		t.Fatalf("setup: %v", err)
	}
	var out runResult
	out.err = vm.Run(res.Chunk, res.Lua)
	vals, err := vm.Eval("require('fake')")
	if err != nil {
		t.Fatal(err)
	}
	fake, _ := vals[0].(map[string]any)
	for _, c := range asList(fake["calls"]) {
		out.calls = append(out.calls, c.(string))
	}
	for _, c := range asList(fake["logs"]) {
		out.logs = append(out.logs, c.(string))
	}
	for _, e := range asList(fake["events"]) {
		out.events = append(out.events, e.(map[string]any))
	}
	return out
}

func asList(v any) []any {
	switch l := v.(type) {
	case []any:
		return l
	case map[string]any:
		if len(l) == 0 {
			return nil
		}
	}
	return nil
}

func stepEnds(r runResult) map[string]string {
	out := map[string]string{}
	for _, e := range r.events {
		if e["kind"] == "step_end" {
			out[e["id"].(string)] = e["status"].(string)
		}
	}
	return out
}

func TestRunPasses(t *testing.T) {
	r := run(t, map[string]string{"main.yaml": `
name: notes
app: com.openpocket.notes
params:
  note: milk
steps:
  - launch
  - input: {text: "${note}", into: {id: note_input}}
  - tap: Save
  - assert_visible: Saved
  - assert_text: {id: note_input, expected: milk}
`}, `
fake.screen = {
  {id = "note_input", text = ""},
  {text = "Save", on_tap = function() table.insert(fake.screen, {text = "Saved"}) end},
}`, nil)
	if r.err != nil {
		t.Fatalf("run failed: %v", r.err)
	}
	want := []string{"launch com.openpocket.notes", "set_text note_input milk", "tap Save"}
	if strings.Join(r.calls, "|") != strings.Join(want, "|") {
		t.Errorf("calls = %q, want %q", r.calls, want)
	}
	ends := stepEnds(r)
	for _, id := range []string{"1", "2", "3", "4", "5"} {
		if ends[id] != "passed" {
			t.Errorf("step %s: %q", id, ends[id])
		}
	}
	if r.events[0]["kind"] != "flow_start" || r.events[len(r.events)-1]["status"] != "passed" {
		t.Errorf("flow events: first %v last %v", r.events[0], r.events[len(r.events)-1])
	}
}

func TestRunFailureNamesYAMLLine(t *testing.T) {
	r := run(t, map[string]string{"main.yaml": `steps:
  - back
  - assert_visible: {text: Saved, timeout: 300ms}
  - home
`}, "", nil)
	var se *lua.ScriptError
	if !errors.As(r.err, &se) {
		t.Fatalf("want *lua.ScriptError, got %v", r.err)
	}
	if se.Chunk != "main.yaml" || se.Line != 3 {
		t.Errorf("error at %s:%d, want main.yaml:3 (%v)", se.Chunk, se.Line, r.err)
	}
	if !strings.Contains(se.Message, `assert text="Saved" is visible`) || !strings.Contains(se.Message, "not visible") {
		t.Errorf("message %q", se.Message)
	}
	if strings.Contains(strings.Join(r.calls, "|"), "home") {
		t.Error("steps after the failure ran")
	}
	if ends := stepEnds(r); ends["2"] != "failed" {
		t.Errorf("step 2 = %q", ends["2"])
	}
}

func TestRunLuaErrorMapsToYAML(t *testing.T) {
	r := run(t, map[string]string{"main.yaml": `steps:
  - back
  - lua: |
      local x = 1
      local y = nil + x
`}, "", nil)
	var se *lua.ScriptError
	if !errors.As(r.err, &se) || se.Chunk != "main.yaml" || se.Line != 3 {
		t.Fatalf("want main.yaml:3, got %v", r.err)
	}
}

func TestOptionalStepWarns(t *testing.T) {
	r := run(t, map[string]string{"main.yaml": `steps:
  - tap: {text: Missing, timeout: 200ms}
    optional: true
  - back
`}, "", nil)
	if r.err != nil {
		t.Fatalf("optional failure failed the run: %v", r.err)
	}
	if ends := stepEnds(r); ends["1"] != "warned" || ends["2"] != "passed" {
		t.Errorf("statuses %v", ends)
	}
	if len(r.logs) == 0 || !strings.HasPrefix(r.logs[0], "warn ") || !strings.Contains(r.logs[0], "main.yaml:2") {
		t.Errorf("logs %q", r.logs)
	}
}

func TestWatcherFiresDuringWait(t *testing.T) {
	// The dialog appears; the flow waits for "Welcome", which only shows
	// once the watcher has tapped Allow while ui.wait polls.
	r := run(t, map[string]string{"main.yaml": `watchers:
  - when: Allow Notes to send you notifications?
    do:
      - tap: Allow
steps:
  - wait_for: {text: Welcome, timeout: 2s}
  - tap: Welcome
`}, `
fake.screen = {{text = "Allow Notes to send you notifications?"}}
local ticks = 0
local first = true
fake.screen[2] = {text = "Allow", on_tap = function()
  fake.remove("Allow Notes to send you notifications?")
  fake.remove("Allow")
  table.insert(fake.screen, {text = "Welcome"})
end}`, nil)
	if r.err != nil {
		t.Fatalf("run failed: %v", r.err)
	}
	if strings.Join(r.calls, "|") != "tap Allow|tap Welcome" {
		t.Errorf("calls %q", r.calls)
	}
	if ends := stepEnds(r); ends["watcher1.1"] != "passed" {
		t.Errorf("watcher step: %v", ends)
	}
}

func TestWatcherMaxHits(t *testing.T) {
	r := run(t, map[string]string{"main.yaml": `watchers:
  - when: Popup
    max_hits: 2
    do: [back]
steps:
  - home
  - home
  - home
  - home
`}, `fake.screen = {{text = "Popup"}}`, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got := strings.Count(strings.Join(r.calls, "|"), "back"); got != 2 {
		t.Errorf("watcher ran %d times, want 2: %q", got, r.calls)
	}
}

func TestForEachAndSubflow(t *testing.T) {
	r := run(t, map[string]string{
		"main.yaml": `params:
  notes: [milk, "日本語 ✓ café"]
steps:
  - for_each: notes
    as: note
    steps:
      - run: {file: flows/add.yaml, params: {text: "${note}"}}
  - set: {n: 0}
  - repeat: 3
    steps:
      - set: {n: "${n + 1}"}
  - assert: n == 3
  - if: {visible: Nope}
    then: [back]
    elif:
      - expr: n == 3
        then: [home]
`,
		"flows/add.yaml": `params:
  text: {type: string, required: true}
steps:
  - input: "${text}"
`}, "", nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got := strings.Join(r.calls, "|"); got != "type milk|type 日本語 ✓ café|home" {
		t.Errorf("calls %q", got)
	}
	ends := stepEnds(r)
	if ends["1.1.1"] != "passed" || ends["1"] != "passed" {
		t.Errorf("subflow step ids: %v", ends)
	}
}

func TestHooksRun(t *testing.T) {
	files := map[string]string{"main.yaml": `on_start: [home]
on_complete: [{key: ENTER}]
on_failure: [back]
steps:
  - assert: fail_now ~= true
`}
	r := run(t, files, "", nil)
	if r.err != nil || strings.Join(r.calls, "|") != "home|key KEYCODE_ENTER" {
		t.Errorf("success: err %v calls %q", r.err, r.calls)
	}
	r = run(t, files, "fail_now = true", nil)
	if r.err == nil || strings.Join(r.calls, "|") != "home|back" {
		t.Errorf("failure: err %v calls %q", r.err, r.calls)
	}
	if ends := stepEnds(r); ends["on_start.1"] != "passed" || ends["on_failure.1"] != "passed" {
		t.Errorf("hook ids %v", ends)
	}
}

func TestRetryAndSecret(t *testing.T) {
	r := run(t, map[string]string{"main.yaml": `params:
  password: {type: string, default: hunter2, secret: true}
steps:
  - retry: 3
    steps:
      - tap: {text: Flaky, timeout: 100ms}
  - assert: {expr: "false", message: "bad password ${password}"}
`}, `
-- "Flaky" appears only on the second attempt.
local ui = require("ui")
local tap = ui.tap
local attempts = 0
ui.tap = function(sel, o)
  attempts = attempts + 1
  if attempts == 2 then table.insert(fake.screen, {text = "Flaky"}) end
  return tap(sel, o)
end`, nil)
	if r.err == nil {
		t.Fatal("want failure")
	}
	if strings.Contains(r.err.Error(), "hunter2") || !strings.Contains(r.err.Error(), "bad password •••") {
		t.Errorf("secret not masked: %v", r.err)
	}
	if !strings.Contains(strings.Join(r.calls, "|"), "tap Flaky") {
		t.Errorf("retry did not reach the tap: %q", r.calls)
	}
}

// TestSecretParamNotInGeneratedLua: a secret value given with -e reaches
// the run but not the Lua text (which the run saves as playbook.lua).
func TestSecretParamNotInGeneratedLua(t *testing.T) {
	src := `params:
  user: {type: string}
  pin: {type: string, secret: true, required: true}
steps:
  - input: {text: "${pin}", into: {text: PIN}, secret: true}
  - assert: {expr: "false", message: "user ${user} pin ${pin}"}
`
	res, err := CompileWithMap([]byte(src), Options{File: "main.yaml", Params: map[string]string{"user": "ann", "pin": "8642-SECRET"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(res.Lua), "8642-SECRET") {
		t.Fatalf("the secret is in the generated Lua:\n%s", res.Lua)
	}
	if !strings.Contains(string(res.Lua), `pin = flow.runtime_secret("pin")`) || !strings.Contains(string(res.Lua), `user = "ann"`) {
		t.Errorf("overrides: want the secret looked up at run time and the plain value inline:\n%s", res.Lua)
	}
	r := run(t, map[string]string{"main.yaml": src}, `table.insert(fake.screen, {text = "PIN"})`, map[string]string{"user": "ann", "pin": "8642-SECRET"})
	if r.err == nil || !strings.Contains(r.err.Error(), "user ann pin •••") || strings.Contains(r.err.Error(), "8642") {
		t.Errorf("want the failure with the secret masked, got %v", r.err)
	}
	if !strings.Contains(strings.Join(r.calls, "|"), "8642-SECRET") {
		t.Errorf("the secret did not reach the input step: %q", r.calls)
	}
}

func TestShellExpectExit(t *testing.T) {
	r := run(t, map[string]string{"main.yaml": `steps:
  - shell: {command: "echo hi", as: out}
  - assert: out == "out:echo hi"
  - shell: "false"
`}, "", nil)
	var se *lua.ScriptError
	if !errors.As(r.err, &se) || se.Line != 4 || !strings.Contains(se.Message, "exit code 1, expected 0") {
		t.Fatalf("got %v", r.err)
	}
}

func TestRunLabelsShowInterpolatedValues(t *testing.T) {
	r := run(t, map[string]string{"main.yaml": `
params:
  notes: [milk, eggs]
  pin: {type: string, default: "4711", secret: true}
steps:
  - for_each: notes
    as: note
    steps:
      - input: {text: "${note}", into: {id: note_input}}
  - tap: {text: "${pin}"}
    optional: true
    timeout: 100ms
  - label: "check ${notes[1]} and ${missing}"
    assert_visible: {text: "${notes[1]}", timeout: 100ms}
`}, `fake.screen = {{id = "note_input", text = ""}}`, nil)
	labels := map[string]string{}
	var endErr map[string]any
	for _, e := range r.events {
		if e["kind"] == "step_start" {
			id := e["id"].(string)
			if labels[id] != "" {
				id += "'" // the for_each body's second iteration
			}
			labels[id] = e["label"].(string)
		}
		if e["kind"] == "step_end" && e["id"] == "2" {
			endErr = e
		}
	}
	want := map[string]string{
		"1.1":  `input "milk" into id=note_input`,
		"1.1'": `input "eggs" into id=note_input`,
		"2":    `tap text="•••"`,
		"3":    `check milk and ${missing}`,
	}
	for id, l := range want {
		if labels[id] != l {
			t.Errorf("label of step %s = %q, want %q", id, labels[id], l)
		}
	}
	if endErr == nil || !strings.Contains(endErr["error"].(string), `tap text="•••"`) || strings.Contains(endErr["error"].(string), "4711") {
		t.Errorf("step 2 end = %v, want its error under the masked label", endErr)
	}
	if r.err == nil || !strings.Contains(r.err.Error(), "check milk and ${missing}: ") {
		t.Errorf("err = %v, want the interpolated label", r.err)
	}
	for _, e := range r.events {
		if e["kind"] == "step_end" && e["id"] == "1.1" && e["error"] != nil {
			t.Errorf("passed step carries an error: %v", e)
		}
	}
}

// The runtime reuses event tables per depth; a step after a failed
// optional one must not inherit its error.
func TestRunEventsDoNotLeakBetweenSteps(t *testing.T) {
	r := run(t, map[string]string{"main.yaml": `steps:
  - tap: {text: Nope, timeout: 100ms}
    optional: true
  - back
`}, "", nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	for _, e := range r.events {
		if e["kind"] != "step_end" {
			continue
		}
		switch e["id"] {
		case "1":
			if e["status"] != "warned" || e["error"] == nil {
				t.Errorf("step 1 end = %v", e)
			}
		case "2":
			if e["status"] != "passed" || e["error"] != nil || e["label"] != "back" {
				t.Errorf("step 2 end = %v", e)
			}
		}
	}
}
