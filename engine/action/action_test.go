package action

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSpecsOrderAndLookup(t *testing.T) {
	want := []string{"tap", "tap_element", "swipe", "drag", "long_press_drag", "type", "keyevent", "launch_app",
		"shell", "run_script", "read", "write", "edit", "apply_patch", "exec", "process", "memory_search",
		"memory_get", "request_human_auth", "request_user_input", "cron_add", "cron_update", "cron_list", "cron_remove", "wait", "finish"}
	var got []string
	for _, s := range Specs() {
		got = append(got, s.Name)
		wantTool := s.Name
		if s.Name == "type" {
			wantTool = "type_text"
		}
		assert.Equal(t, wantTool, s.ToolName, s.Name)
		assert.NotEmpty(t, s.Doc, s.Name)
		assert.NotEmpty(t, s.Category, s.Name)
		_, hasReason := s.Param("reason")
		assert.Equal(t, s.Name != "finish", hasReason, "%s: reason param", s.Name)
		for _, p := range s.Params {
			assert.NotEmpty(t, p.Doc, "%s.%s doc", s.Name, p.Name)
			if p.Default != nil {
				assert.Equal(t, p.Default, mustCoerce(t, &p, p.Default), "%s.%s default has the Go kind", s.Name, p.Name)
			}
			if p.Kind == KindEnum && p.Default != nil {
				assert.Contains(t, p.Enum, p.Default, "%s.%s enum default", s.Name, p.Name)
			}
		}
	}
	assert.Equal(t, want, got)

	s, ok := Lookup("type_text")
	require.True(t, ok)
	assert.Equal(t, "type", s.Name)
	s, ok = Lookup("type")
	require.True(t, ok)
	assert.Equal(t, "type_text", s.ToolName)
	_, ok = Lookup("fly")
	assert.False(t, ok)

	// Specs returns copies.
	Specs()[0].Params[0].Name = "mutated"
	s, _ = Lookup("tap")
	assert.Equal(t, "x", s.Params[0].Name)

	cat := map[string]Category{}
	for _, s := range Specs() {
		cat[s.Name] = s.Category
	}
	assert.Equal(t, CategoryDevice, cat["tap_element"])
	assert.Equal(t, CategoryScript, cat["run_script"])
	assert.Equal(t, CategoryCoding, cat["apply_patch"])
	assert.Equal(t, CategoryMemory, cat["memory_get"])
	assert.Equal(t, CategoryHumanAuth, cat["request_human_auth"])
	assert.Equal(t, CategoryControl, cat["wait"])
	assert.Equal(t, CategoryControl, cat["finish"])
}

func mustCoerce(t *testing.T, p *Param, v any) any {
	t.Helper()
	out, ok, _ := coerce(p, v, nil, "")
	require.True(t, ok, "%s: %v", p.Name, v)
	return out
}

func TestMinBounds(t *testing.T) {
	for _, c := range []struct {
		action, param string
		min           float64
	}{
		{"wait", "durationMs", 100}, {"swipe", "durationMs", 100}, {"drag", "durationMs", 100},
		{"long_press_drag", "holdMs", 120}, {"long_press_drag", "durationMs", 100},
	} {
		s, _ := Lookup(c.action)
		p, ok := s.Param(c.param)
		require.True(t, ok)
		require.NotNil(t, p.Min, "%s.%s", c.action, c.param)
		assert.Equal(t, c.min, *p.Min, "%s.%s", c.action, c.param)
	}
	// Normalize does not clamp to the bounds; the device layer does.
	a, notes := Normalize(map[string]any{"type": "wait", "durationMs": 5}, nil)
	assert.Equal(t, 5, a.Int("durationMs"))
	assert.Empty(t, notes)
}

// TestNormalizeMissing checks the defaults of docs/formats.md#actions for each action when
// every field is missing.
func TestNormalizeMissing(t *testing.T) {
	cases := []struct {
		typ   string
		want  map[string]any
		notes int // repairs reported (missing required fields)
	}{
		{"tap", map[string]any{"x": 0, "y": 0}, 2},
		{"tap_element", map[string]any{"elementId": ""}, 1},
		{"swipe", map[string]any{"x1": 0, "y1": 0, "x2": 0, "y2": 0, "durationMs": 300}, 4},
		{"drag", map[string]any{"x1": 0, "y1": 0, "x2": 0, "y2": 0, "durationMs": 360}, 4},
		{"long_press_drag", map[string]any{"x1": 0, "y1": 0, "x2": 0, "y2": 0, "holdMs": 450, "durationMs": 300}, 4},
		{"type", map[string]any{"text": ""}, 1},
		{"keyevent", map[string]any{"keycode": "KEYCODE_ENTER"}, 1},
		{"launch_app", map[string]any{"packageName": ""}, 1},
		{"shell", map[string]any{"command": ""}, 1},
		{"run_script", map[string]any{"script": "", "timeoutSec": 60}, 1},
		{"read", map[string]any{"path": "", "from": 1, "lines": 200}, 1},
		{"write", map[string]any{"path": "", "content": "", "append": false}, 2},
		{"edit", map[string]any{"path": "", "find": "", "replace": "", "replaceAll": false}, 3},
		{"apply_patch", map[string]any{"input": ""}, 1},
		{"exec", map[string]any{"command": "", "yieldMs": 0, "background": false, "timeoutSec": 1800}, 1},
		{"process", map[string]any{"action": "list", "offset": 0, "limit": 200, "timeoutMs": 0}, 1},
		{"memory_search", map[string]any{"query": "", "maxResults": 6, "minScore": 0.2}, 1},
		{"memory_get", map[string]any{"path": "", "from": 1, "lines": 120}, 1},
		{"request_human_auth", map[string]any{"capability": "unknown",
			"instruction": "Human authorization is required to continue.", "timeoutSec": 300}, 2},
		{"request_user_input", map[string]any{"secret": true, "timeoutSec": 300}, 0}, // question or instruction: the executor says when both are missing
		{"cron_add", map[string]any{"task": "", "kind": "cron"}, 1},
		{"cron_update", map[string]any{"id": ""}, 1},
		{"cron_list", map[string]any{}, 0},
		{"cron_remove", map[string]any{"id": ""}, 1},
		{"wait", map[string]any{"durationMs": 1000}, 0},
		{"finish", map[string]any{"message": "Task finished."}, 1},
	}
	require.Len(t, cases, len(Specs()), "one case per action")
	for _, c := range cases {
		t.Run(c.typ, func(t *testing.T) {
			a, notes := Normalize(map[string]any{"type": c.typ}, nil)
			assert.Equal(t, c.typ, a.Type)
			assert.Equal(t, c.want, a.Params)
			assert.Len(t, notes, c.notes, "%q", notes)
			for _, n := range notes {
				assert.True(t, strings.HasPrefix(n, c.typ+": "), n)
			}
			// The tool path gives the same action.
			b, _ := NormalizeTool(toolOf(c.typ), map[string]any{}, nil)
			assert.Equal(t, a, b)
		})
	}
	a, notes := Normalize(map[string]any{"type": "tap"}, nil)
	assert.Equal(t, []string{"tap: x missing, using 0", "tap: y missing, using 0"}, notes)
	assert.Equal(t, 0, a.Int("x"))
}

func toolOf(name string) string {
	s, _ := Lookup(name)
	return s.ToolName
}

// TestNormalizeValues checks that valid seed-shaped input passes unchanged
// (and without notes) for each action.
func TestNormalizeValues(t *testing.T) {
	for _, raw := range fullExamples() {
		t.Run(raw["type"].(string), func(t *testing.T) {
			a, notes := Normalize(raw, nil)
			assert.Empty(t, notes)
			assert.Equal(t, raw["type"], a.Type)
			want := map[string]any{}
			for k, v := range raw {
				if k != "type" {
					want[k] = v
				}
			}
			assert.Equal(t, normalizeNumbers(want), a.Params)
		})
	}
}

// normalizeNumbers turns the float64 JSON numbers of integer params into ints
// so the example maps compare with normalized actions.
func normalizeNumbers(m map[string]any) map[string]any {
	for k, v := range m {
		if f, ok := v.(float64); ok && f == math.Trunc(f) && k != "minScore" {
			m[k] = int(f)
		}
	}
	return m
}

// fullExamples has every action with every parameter set to a non-default value.
func fullExamples() []map[string]any {
	return []map[string]any{
		{"type": "tap", "x": 540.0, "y": 1200.0, "reason": "open settings"},
		{"type": "tap_element", "elementId": "12", "reason": "OK button"},
		{"type": "swipe", "x1": 500.0, "y1": 1500.0, "x2": 500.0, "y2": 400.0, "durationMs": 250.0, "reason": "scroll"},
		{"type": "drag", "x1": 1.0, "y1": 2.0, "x2": 3.0, "y2": 4.0, "durationMs": 800.0, "reason": "slider"},
		{"type": "long_press_drag", "x1": 1.0, "y1": 2.0, "x2": 3.0, "y2": 4.0, "holdMs": 600.0, "durationMs": 500.0, "reason": "reorder"},
		{"type": "type", "text": "héllo wörld <&>", "reason": "search"},
		{"type": "keyevent", "keycode": "KEYCODE_BACK", "reason": "close"},
		{"type": "launch_app", "packageName": "com.android.settings", "reason": "settings"},
		{"type": "shell", "command": "getprop ro.build.version.sdk", "reason": "sdk"},
		{"type": "run_script", "script": "echo hi", "timeoutSec": 10.0, "reason": "check"},
		{"type": "read", "path": "notes.md", "from": 5.0, "lines": 10.0, "reason": "look"},
		{"type": "write", "path": "notes.md", "content": "x\ny", "append": true, "reason": "save"},
		{"type": "edit", "path": "a.go", "find": "foo", "replace": "bar", "replaceAll": true, "reason": "rename"},
		{"type": "apply_patch", "input": "*** Begin Patch\n*** End Patch", "reason": "patch"},
		{"type": "exec", "command": "go test ./...", "workdir": "src", "yieldMs": 500.0, "background": true, "timeoutSec": 60.0, "reason": "test"},
		{"type": "process", "action": "log", "sessionId": "s1", "input": "y\n", "offset": 10.0, "limit": 50.0, "timeoutMs": 2000.0, "reason": "tail"},
		{"type": "memory_search", "query": "wifi password", "maxResults": 3.0, "minScore": 0.5, "reason": "recall"},
		{"type": "memory_get", "path": "MEMORY.md", "from": 2.0, "lines": 20.0, "reason": "recall"},
		{"type": "request_human_auth", "capability": "2fa", "instruction": "Enter the code", "timeoutSec": 120.0,
			"reason": "login", "templatePath": "templates/otp.json",
			"uiTemplate": map[string]any{
				"title": "Code", "artifactKind": "form", "requireArtifactOnApprove": true,
				"fields": []any{map[string]any{"id": "otp", "label": "Code", "type": "otp", "required": true,
					"options": []any{map[string]any{"label": "A", "value": "a"}}}},
				"style": map[string]any{"brandColor": "#00E5FF"},
			}},
		{"type": "wait", "durationMs": 2500.0, "reason": "loading"},
		{"type": "finish", "message": "Done: wifi on."},
	}
}

func TestNormalizeExtras(t *testing.T) {
	cases := []struct {
		name  string
		raw   map[string]any
		want  Action
		notes []string
	}{
		{"coordinate array", map[string]any{"type": "tap", "coordinate": []any{10.0, 20.0}},
			Action{"tap", map[string]any{"x": 10, "y": 20}}, nil},
		{"position array", map[string]any{"type": "tap", "position": []any{"10", 20.4}},
			Action{"tap", map[string]any{"x": 10, "y": 20}}, []string{"tap: y 20.4 rounded to 20"}},
		{"coordinate string", map[string]any{"type": "tap", "coordinate": "(5, 6)"},
			Action{"tap", map[string]any{"x": 5, "y": 6}}, nil},
		{"x wins over coordinate", map[string]any{"type": "tap", "x": 1.0, "y": 2.0, "coordinate": []any{10.0, 20.0}},
			Action{"tap", map[string]any{"x": 1, "y": 2}}, nil},
		{"bad coordinate", map[string]any{"type": "tap", "coordinate": []any{1.0}},
			Action{"tap", map[string]any{"x": 0, "y": 0}},
			[]string{"tap: coordinate an array is not an [x, y] pair, ignored", "tap: x missing, using 0", "tap: y missing, using 0"}},
		{"swipe start/end", map[string]any{"type": "swipe", "start": []any{1.0, 2.0}, "end": []any{3.0, 4.0}},
			Action{"swipe", map[string]any{"x1": 1, "y1": 2, "x2": 3, "y2": 4, "durationMs": 300}}, nil},
		{"numeric strings", map[string]any{"type": "swipe", "x1": "120", "y1": " 7 ", "x2": "1e2", "y2": 3.0, "durationMs": "500"},
			Action{"swipe", map[string]any{"x1": 120, "y1": 7, "x2": 100, "y2": 3, "durationMs": 500}}, nil},
		{"float rounding", map[string]any{"type": "tap", "x": 10.5, "y": -3.4},
			Action{"tap", map[string]any{"x": 11, "y": -3}}, []string{"tap: x 10.5 rounded to 11", "tap: y -3.4 rounded to -3"}},
		{"negative kept", map[string]any{"type": "tap", "x": -50.0, "y": 99999.0},
			Action{"tap", map[string]any{"x": -50, "y": 99999}}, nil},
		{"NaN and Inf become 0", map[string]any{"type": "tap", "x": math.NaN(), "y": "Inf"},
			Action{"tap", map[string]any{"x": 0, "y": 0}}, []string{"tap: x NaN is not an integer, using 0", `tap: y "Inf" is not an integer, using 0`}},
		{"bool strings", map[string]any{"type": "write", "path": "a", "content": "b", "append": "true"},
			Action{"write", map[string]any{"path": "a", "content": "b", "append": true}}, nil},
		{"bool FALSE", map[string]any{"type": "exec", "command": "ls", "background": "FALSE"},
			Action{"exec", map[string]any{"command": "ls", "yieldMs": 0, "background": false, "timeoutSec": 1800}}, nil},
		{"bad bool", map[string]any{"type": "edit", "path": "a", "find": "b", "replace": "c", "replaceAll": "maybe"},
			Action{"edit", map[string]any{"path": "a", "find": "b", "replace": "c", "replaceAll": false}},
			[]string{`edit: replaceAll "maybe" is not a boolean, using false`}},
		{"keycode home", map[string]any{"type": "keyevent", "keycode": "home"},
			Action{"keyevent", map[string]any{"keycode": "KEYCODE_HOME"}}, nil},
		{"keycode HOME", map[string]any{"type": "keyevent", "keycode": "HOME"},
			Action{"keyevent", map[string]any{"keycode": "KEYCODE_HOME"}}, nil},
		{"keycode volume up", map[string]any{"type": "keyevent", "keycode": "volume up"},
			Action{"keyevent", map[string]any{"keycode": "KEYCODE_VOLUME_UP"}}, nil},
		{"keycode number", map[string]any{"type": "keyevent", "keycode": 3.0},
			Action{"keyevent", map[string]any{"keycode": "3"}}, nil},
		{"keycode numeric string", map[string]any{"type": "keyevent", "keycode": "4"},
			Action{"keyevent", map[string]any{"keycode": "4"}}, nil},
		{"keycode invalid", map[string]any{"type": "keyevent", "keycode": "ctrl+c"},
			Action{"keyevent", map[string]any{"keycode": "KEYCODE_ENTER"}},
			[]string{`keyevent: keycode "ctrl+c" is not an Android key code (KEYCODE_HOME, home or a number), using "KEYCODE_ENTER"`}},
		{"elementId number", map[string]any{"type": "tap_element", "elementId": 12.0},
			Action{"tap_element", map[string]any{"elementId": "12"}}, nil},
		{"process invalid action", map[string]any{"type": "process", "action": "stop"},
			Action{"process", map[string]any{"action": "list", "offset": 0, "limit": 200, "timeoutMs": 0}},
			[]string{`process: action "stop" is not one of list|poll|log|write|kill, using "list"`}},
		{"enum case", map[string]any{"type": "process", "action": "KILL", "sessionId": "s"},
			Action{"process", map[string]any{"action": "kill", "sessionId": "s", "offset": 0, "limit": 200, "timeoutMs": 0}}, nil},
		{"capability invalid", map[string]any{"type": "request_human_auth", "capability": "telepathy", "instruction": "x"},
			Action{"request_human_auth", map[string]any{"capability": "unknown", "instruction": "x", "timeoutSec": 300}},
			[]string{`request_human_auth: capability "telepathy" is not one of camera|qr|microphone|voice|nfc|sms|2fa|location|biometric|notification|contacts|calendar|files|oauth|payment|permission|unknown, using "unknown"`}},
		{"empty instruction", map[string]any{"type": "request_human_auth", "capability": "qr", "instruction": ""},
			Action{"request_human_auth", map[string]any{"capability": "qr", "instruction": "Human authorization is required to continue.", "timeoutSec": 300}},
			[]string{`request_human_auth: instruction is empty, using "Human authorization is required to continue."`}},
		{"uiTemplate as JSON text, cleaned", map[string]any{"type": "request_human_auth", "capability": "payment", "instruction": "pay",
			"uiTemplate": `{"title":"Pay","bogus":1,"allowPhotoAttachment":"yes","fields":[{"id":"c","label":"Card","type":"CARD-NUMBER"},{"label":"no id","type":"text"}]}`},
			Action{"request_human_auth", map[string]any{"capability": "payment", "instruction": "pay", "timeoutSec": 300,
				"uiTemplate": map[string]any{"title": "Pay", "allowPhotoAttachment": true,
					"fields": []any{map[string]any{"id": "c", "label": "Card", "type": "card-number"}}}}},
			[]string{"request_human_auth: uiTemplate.bogus unknown field, dropped",
				`request_human_auth: uiTemplate.fields[1] is missing required field "id", dropped`}},
		{"bad uiTemplate", map[string]any{"type": "request_human_auth", "instruction": "x", "capability": "sms", "uiTemplate": []any{}},
			Action{"request_human_auth", map[string]any{"capability": "sms", "instruction": "x", "timeoutSec": 300}},
			[]string{"request_human_auth: uiTemplate an array is not an object, dropped"}},
		{"unknown params dropped, reason kept", map[string]any{"type": "tap", "x": 1.0, "y": 2.0, "reason": "go", "thought": "hmm", "speed": 3.0},
			Action{"tap", map[string]any{"x": 1, "y": 2, "reason": "go"}},
			[]string{`tap: dropped unknown parameter "speed"`, `tap: dropped unknown parameter "thought"`}},
		{"reason number", map[string]any{"type": "wait", "reason": 42.0},
			Action{"wait", map[string]any{"durationMs": 1000, "reason": "42"}}, nil},
		{"text number", map[string]any{"type": "type", "text": 2024.0},
			Action{"type", map[string]any{"text": "2024"}}, nil},
		{"text object", map[string]any{"type": "type", "text": map[string]any{}},
			Action{"type", map[string]any{"text": ""}}, []string{`type: text an object is not a string, using ""`}},
		{"optional invalid without default", map[string]any{"type": "exec", "command": "ls", "workdir": []any{}},
			Action{"exec", map[string]any{"command": "ls", "yieldMs": 0, "background": false, "timeoutSec": 1800}},
			[]string{"exec: workdir an array is not a string, dropped"}},
		{"null is missing", map[string]any{"type": "wait", "durationMs": nil},
			Action{"wait", map[string]any{"durationMs": 1000}}, nil},
		{"type case", map[string]any{"type": " TAP ", "x": 1.0, "y": 1.0},
			Action{"tap", map[string]any{"x": 1, "y": 1}}, nil},
		{"type_text as type", map[string]any{"type": "type_text", "text": "hi"},
			Action{"type", map[string]any{"text": "hi"}}, nil},
		{"unknown type", map[string]any{"type": "fly", "x": 1.0, "reason": "why not"},
			Action{"wait", map[string]any{"durationMs": 1000, "reason": "why not"}}, []string{`unknown type "fly": waiting 1000 ms`}},
		{"missing type", map[string]any{"x": 1.0},
			Action{"wait", map[string]any{"durationMs": 1000}}, []string{"missing type: waiting 1000 ms"}},
		{"non-string type", map[string]any{"type": 7.0},
			Action{"wait", map[string]any{"durationMs": 1000}}, []string{"type 7 is not a string: waiting 1000 ms"}},
		{"nil map", nil,
			Action{"wait", map[string]any{"durationMs": 1000}}, []string{"missing type: waiting 1000 ms"}},
		{"huge number", map[string]any{"type": "wait", "durationMs": 1e300},
			Action{"wait", map[string]any{"durationMs": 1000}}, []string{"wait: durationMs 1e+300 is not an integer, using 1000"}},
		{"minScore string", map[string]any{"type": "memory_search", "query": "q", "minScore": "0.7"},
			Action{"memory_search", map[string]any{"query": "q", "maxResults": 6, "minScore": 0.7}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, notes := Normalize(c.raw, nil)
			assert.Equal(t, c.want, a)
			assert.Equal(t, c.notes, notes)
		})
	}
}

func TestNormalizeDoesNotMutateInput(t *testing.T) {
	raw := map[string]any{"type": "tap", "coordinate": []any{1.0, 2.0}, "junk": true}
	Normalize(raw, nil)
	assert.Equal(t, map[string]any{"type": "tap", "coordinate": []any{1.0, 2.0}, "junk": true}, raw)
}

func TestNormalizeTool(t *testing.T) {
	a, notes := NormalizeTool("type_text", map[string]any{"text": "hello"}, nil)
	assert.Equal(t, Action{"type", map[string]any{"text": "hello"}}, a)
	assert.Empty(t, notes)

	// The action name works as tool name too; a redundant matching "type" is fine.
	a, notes = NormalizeTool("tap", map[string]any{"type": "tap", "x": 1.0, "y": 2.0}, nil)
	assert.Equal(t, Action{"tap", map[string]any{"x": 1, "y": 2}}, a)
	assert.Empty(t, notes)

	_, notes = NormalizeTool("tap", map[string]any{"type": "swipe", "x": 1.0, "y": 2.0}, nil)
	assert.Equal(t, []string{`tap: dropped unknown parameter "type"`}, notes)

	a, notes = NormalizeTool("teleport", map[string]any{"reason": "r"}, nil)
	assert.Equal(t, Action{"wait", map[string]any{"durationMs": 1000, "reason": "r"}}, a)
	assert.Equal(t, []string{`unknown tool "teleport": waiting 1000 ms`}, notes)

	// The schema's tool names all map back.
	for _, tool := range Tools(nil) {
		a, _ := NormalizeTool(tool.Name, nil, nil)
		s, _ := Lookup(tool.Name)
		assert.Equal(t, s.Name, a.Type)
	}
}

func TestDefaultsOverride(t *testing.T) {
	d := Defaults{
		"run_script": {"timeoutSec": 30},
		"type_text":  {"text": "fallback"},
		"wait":       {"durationMs": "1500"},
		"exec":       {"timeoutSec": "soon"},
	}
	a, notes := Normalize(map[string]any{"type": "run_script", "script": "ls"}, d)
	assert.Equal(t, 30, a.Int("timeoutSec"))
	assert.Empty(t, notes)

	// An explicit value still wins over config.
	a, _ = Normalize(map[string]any{"type": "run_script", "script": "ls", "timeoutSec": 5.0}, d)
	assert.Equal(t, 5, a.Int("timeoutSec"))

	// Keyed by tool name.
	a, _ = Normalize(map[string]any{"type": "type"}, d)
	assert.Equal(t, "fallback", a.Str("text"))

	// Unknown types wait for the configured default.
	a, notes = Normalize(map[string]any{"type": "fly"}, d)
	assert.Equal(t, 1500, a.Int("durationMs"))
	assert.Equal(t, []string{`unknown type "fly": waiting 1500 ms`}, notes)

	// Invalid overrides fall back to the seed default with a note.
	a, notes = Normalize(map[string]any{"type": "exec", "command": "ls"}, d)
	assert.Equal(t, 1800, a.Int("timeoutSec"))
	assert.Equal(t, []string{`config default exec.timeoutSec "soon" is not an integer, using 1800`}, notes)

	// New honours them too.
	a, err := NewWithDefaults("run_script", map[string]any{"script": "ls"}, d)
	require.NoError(t, err)
	assert.Equal(t, 30, a.Int("timeoutSec"))

	assert.NoError(t, Defaults{"run_script": {"timeoutSec": 30}, "type_text": {"text": "x"}}.Check())
	assert.EqualError(t, d.Check(), `action defaults: action exec: parameter "timeoutSec" must be an integer, got string "soon"`)
	assert.EqualError(t, Defaults{"fly": {}}.Check(), `action defaults: unknown action "fly"`)
	assert.EqualError(t, Defaults{"wait": {"ms": 1}}.Check(), `action defaults: wait has no parameter "ms" (parameters: durationMs, reason)`)
}

func TestJSONRoundTrip(t *testing.T) {
	for _, raw := range fullExamples() {
		a, notes := Normalize(raw, nil)
		require.Empty(t, notes)
		data, err := json.Marshal(a)
		require.NoError(t, err)
		b, notes, err := Parse(data, nil)
		require.NoError(t, err)
		assert.Empty(t, notes)
		assert.Equal(t, a, b, string(data))

		var c Action
		require.NoError(t, json.Unmarshal(data, &c))
		assert.Equal(t, a, c)
	}
	a, _ := Normalize(map[string]any{"type": "swipe", "reason": "r", "y2": 4.0, "x1": 1.0}, nil)
	data, err := json.Marshal(a)
	require.NoError(t, err)
	assert.Equal(t, `{"type":"swipe","x1":1,"y1":0,"x2":0,"y2":4,"durationMs":300,"reason":"r"}`, string(data))

	a, _ = Normalize(map[string]any{"type": "type", "text": "<a&b>"}, nil)
	data, _ = a.MarshalJSON() // json.Marshal itself re-escapes HTML characters
	assert.Equal(t, `{"type":"type","text":"<a&b>"}`, string(data))

	// Within a larger document.
	var step struct {
		Actions []Action `json:"actions"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"actions":[{"type":"tap","x":1,"y":2},{"type":"nope"}]}`), &step))
	assert.Equal(t, []Action{{"tap", map[string]any{"x": 1, "y": 2}}, {"wait", map[string]any{"durationMs": 1000}}}, step.Actions)
	assert.Error(t, json.Unmarshal([]byte(`{"actions":[[1]]}`), &step))

	var opt struct{ A *Action }
	require.NoError(t, json.Unmarshal([]byte(`{"A":null}`), &opt))
	assert.Nil(t, opt.A)
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{`{"type": "tap",}`, "action: invalid JSON at line 1, column 16: invalid character '}' looking for beginning of object key string"},
		{"{\n  \"type\": tap\n}", "action: invalid JSON at line 2, column 12: invalid character 'a' in literal true (expecting 'r')"},
		{`  [1, 2]`, "action: expected a JSON object at line 1, column 3, got an array"},
		{`null`, "action: expected a JSON object at line 1, column 1, got null"},
		{`"tap"`, "action: expected a JSON object at line 1, column 1, got a string"},
		{``, "action: invalid JSON at line 1, column 1: unexpected end of JSON input"},
		{`{"type":"tap"} x`, "action: invalid JSON at line 1, column 16: invalid character 'x' after top-level value"},
	} {
		_, _, err := Parse([]byte(c.in), nil)
		assert.EqualError(t, err, c.err, c.in)
	}
	a, notes, err := Parse([]byte(`{"type":"keyevent","keycode":"back"}`), nil)
	require.NoError(t, err)
	assert.Empty(t, notes)
	assert.Equal(t, "KEYCODE_BACK", a.Str("keycode"))
}

func TestNew(t *testing.T) {
	a, err := New("tap", map[string]any{"x": 540.0, "y": 1200, "reason": "ok"})
	require.NoError(t, err)
	assert.Equal(t, Action{"tap", map[string]any{"x": 540, "y": 1200, "reason": "ok"}}, a)

	a, err = New("type_text", map[string]any{"text": "hi"})
	require.NoError(t, err)
	assert.Equal(t, "type", a.Type)

	a, err = New("swipe", map[string]any{"x1": 1, "y1": 2, "x2": 3, "y2": 4})
	require.NoError(t, err)
	assert.Equal(t, 300, a.Int("durationMs"))

	a, err = New("keyevent", map[string]any{"keycode": "home"})
	require.NoError(t, err)
	assert.Equal(t, "KEYCODE_HOME", a.Str("keycode"))
	a, err = New("tap_element", map[string]any{"elementId": 7.0})
	require.NoError(t, err)
	assert.Equal(t, "7", a.Str("elementId"))

	a, err = New("request_human_auth", map[string]any{"capability": "camera", "instruction": "scan",
		"uiTemplate": map[string]any{"fields": []map[string]any{{"id": "a", "label": "A", "type": "text"}}}})
	require.NoError(t, err)
	assert.Equal(t, []any{map[string]any{"id": "a", "label": "A", "type": "text"}}, a.Obj("uiTemplate")["fields"])

	for _, c := range []struct {
		typ    string
		params map[string]any
		err    string
	}{
		{"fly", nil, `action: unknown action type "fly" (known: tap, tap_element, swipe, drag, long_press_drag, type, keyevent, launch_app, shell, run_script, read, write, edit, apply_patch, exec, process, memory_search, memory_get, request_human_auth, request_user_input, cron_add, cron_update, cron_list, cron_remove, wait, finish)`},
		{"tap", map[string]any{"x": 1, "y": 2, "z": 3}, `action tap: unknown parameter "z" (parameters: x, y, reason)`},
		{"tap", map[string]any{"x": "1", "y": 2}, `action tap: parameter "x" must be an integer, got string "1"`},
		{"tap", map[string]any{"x": 1.5, "y": 2}, `action tap: parameter "x" must be an integer, got number 1.5`},
		{"tap", map[string]any{"x": 1}, `action tap: missing required parameter "y" (an integer)`},
		{"write", map[string]any{"path": "a", "content": "b", "append": "yes"}, `action write: parameter "append" must be a boolean, got string "yes"`},
		{"process", map[string]any{"action": "stop"}, `action process: parameter "action" must be one of list|poll|log|write|kill, got string "stop"`},
		{"memory_search", map[string]any{"query": "q", "minScore": math.Inf(1)}, `action memory_search: parameter "minScore" must be a number, got number +Inf`},
		{"keyevent", map[string]any{"keycode": "ctrl+c"}, `action keyevent: parameter "keycode" must be an Android key code (KEYCODE_HOME, home or a number), got string "ctrl+c"`},
		{"request_human_auth", map[string]any{"capability": "qr", "instruction": "x", "uiTemplate": map[string]any{"fields": []any{map[string]any{"id": "a", "label": "A", "type": "radio"}}}},
			`action request_human_auth: parameter uiTemplate.fields[0].type must be one of text|textarea|password|email|number|date|select|otp|card-number|expiry|cvc, got "radio"`},
		{"request_human_auth", map[string]any{"capability": "qr", "instruction": "x", "uiTemplate": map[string]any{"colour": "red"}},
			`action request_human_auth: parameter uiTemplate.colour is not a known field`},
		{"request_human_auth", map[string]any{"capability": "qr", "instruction": "x", "uiTemplate": "{}"},
			`action request_human_auth: parameter "uiTemplate" must be an object, got string "{}"`},
	} {
		_, err := New(c.typ, c.params)
		assert.EqualError(t, err, c.err)
	}
}

func TestString(t *testing.T) {
	for _, c := range []struct {
		raw  map[string]any
		want string
	}{
		{map[string]any{"type": "tap", "x": 540.0, "y": 1200.0, "reason": "x"}, "tap(540,1200)"},
		{map[string]any{"type": "tap_element", "elementId": "12"}, "tap_element(12)"},
		{map[string]any{"type": "swipe", "x1": 1.0, "y1": 2.0, "x2": 3.0, "y2": 4.0}, "swipe(1,2->3,4 300ms)"},
		{map[string]any{"type": "long_press_drag"}, "long_press_drag(0,0->0,0 hold 450ms, 300ms)"},
		{map[string]any{"type": "type", "text": "hi\n"}, `type("hi\n")`},
		{map[string]any{"type": "keyevent", "keycode": "back"}, "keyevent(KEYCODE_BACK)"},
		{map[string]any{"type": "launch_app", "packageName": "com.x"}, "launch_app(com.x)"},
		{map[string]any{"type": "wait"}, "wait(1000ms)"},
		{map[string]any{"type": "finish"}, `finish("Task finished.")`},
		{map[string]any{"type": "read", "path": "a.md", "reason": "r"}, `read(path="a.md", from=1, lines=200)`},
		{map[string]any{"type": "request_human_auth", "capability": "qr", "instruction": "scan", "uiTemplate": map[string]any{}},
			`request_human_auth(capability="qr", instruction="scan", timeoutSec=300, uiTemplate={…})`},
		{map[string]any{"type": "type", "text": strings.Repeat("é", 100)}, `type("` + strings.Repeat("é", 60) + `…")`},
	} {
		a, _ := Normalize(c.raw, nil)
		assert.Equal(t, c.want, a.String())
	}
	assert.Equal(t, "custom(a=1)", Action{Type: "custom", Params: map[string]any{"a": 1}}.String())
}
