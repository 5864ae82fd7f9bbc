package llm

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseArguments(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    map[string]any
		problem string // substring of the first problem; "" = none
	}{
		{``, map[string]any{}, ""},
		{`null`, map[string]any{}, ""},
		{`{"x":1}`, map[string]any{"x": 1.0}, ""},
		{`"{\"x\":1}"`, map[string]any{"x": 1.0}, "JSON string holding the object"},
		{`[1,2]`, map[string]any{}, "expected an object, got an array"},
		{`{"x":1,}`, map[string]any{"x": 1.0}, "removing trailing commas"},
		{`{"a":[1,2,],}`, map[string]any{"a": []any{1.0, 2.0}}, "removing trailing commas"},
		{"```json\n{\"x\":1}\n```", map[string]any{"x": 1.0}, "removing code fences"},
		{`Sure! {"x":1} hope this helps`, map[string]any{"x": 1.0}, "dropping text"},
		{`{"text":"a, }"`, map[string]any{"text": "a, }"}, "closing unterminated"},
		{`{"text":"hel`, map[string]any{"text": "hel"}, "closing unterminated"},
		{`{"a":{"b":1`, map[string]any{"a": map[string]any{"b": 1.0}}, "closing unterminated"},
		{`{"ok": True, "v": None}`, map[string]any{"ok": true, "v": nil}, "Python literals"},
		{`{'x': 1}`, map[string]any{"x": 1.0}, "single quotes"},
		{`{"Trueish": "None"}`, map[string]any{"Trueish": "None"}, ""},
		{`tap please`, map[string]any{}, "used the defaults"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, problems := parseArguments(tc.in)
			t.Log(problems)
			assert.Equal(t, tc.want, got)
			if tc.problem == "" {
				assert.Empty(t, problems)
				return
			}
			require.NotEmpty(t, problems)
			assert.Contains(t, problems[0], tc.problem)
		})
	}
}

func TestParseTextActionRejects(t *testing.T) {
	for _, text := range []string{
		"",
		"I cannot see the screen.",
		`Here is some data: {"foo": 1}`,
		"print(x=1)",
		"tap(x=1, y=2", // unclosed
		`{"type": "object", "properties": {}}`,
	} {
		_, ok := parseTextAction(text, nil)
		assert.False(t, ok, "%q", text)
	}
}

func TestParseTextActionForms(t *testing.T) {
	for _, tc := range []struct {
		text, typ, form, thought string
		params                   map[string]any
	}{
		{`{"action":"tap","x":3,"y":4}`, "tap", "JSON", "", map[string]any{"x": 3, "y": 4}},
		{`{"type":"process","action":"poll","sessionId":"s1"}`, "process", "JSON", "", map[string]any{"action": "poll", "sessionId": "s1"}},
		{`{"function":{"name":"keyevent","arguments":"{\"keycode\":\"KEYCODE_BACK\"}"}}`, "keyevent", "JSON", "", map[string]any{"keycode": "KEYCODE_BACK"}},
		{"Go back.\nkeyevent(keycode=\"KEYCODE_BACK\")", "keyevent", "call syntax", "Go back.", map[string]any{"keycode": "KEYCODE_BACK"}},
		{`launch_app("com.android.settings")`, "launch_app", "call syntax", "", map[string]any{"packageName": "com.android.settings"}},
		{`wait(durationMs=2000, reason="loading")`, "wait", "call syntax", "loading", map[string]any{"durationMs": 2000}},
		{`{"type":"scroll","direction":"down"}`, "wait", "JSON", "", nil},
	} {
		t.Run(tc.text, func(t *testing.T) {
			ta, ok := parseTextAction(tc.text, nil)
			require.True(t, ok)
			assert.Equal(t, tc.typ, ta.action.Type)
			assert.Equal(t, tc.form, ta.form)
			for k, v := range tc.params {
				assert.Equal(t, v, ta.action.Params[k], k)
			}
			if tc.thought != "" {
				assert.Equal(t, tc.thought, firstNonEmpty(ta.thought, ta.rest))
			}
		})
	}
}

func TestInterpretReplyUsesFirstCallAndKeepsReason(t *testing.T) {
	rep, err := interpretReply(reply{
		calls: []toolCall{{name: "tap", arguments: `{"x":1,"y":2,"reason":"open it"}`}},
		text:  "ignored for the thought",
	}, nil)
	require.NoError(t, err)
	assert.Equal(t, "open it", rep.Thought)
	assert.Equal(t, "open it", rep.Action.Str("reason"), "reason stays an action parameter")
}

func TestEndpointUnsupportedMessages(t *testing.T) {
	assert.False(t, endpointUnsupported(assert.AnError))
}

// FuzzParseArguments checks that repairing never panics and always yields
// a usable map.
func FuzzParseArguments(f *testing.F) {
	for _, s := range []string{`{"x":1}`, `{"x":1,`, `{'a': True}`, "```json\n{}\n```", `"{\"a\":1}"`, `{"a":"\`, `}}]]{{[[`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, _ := parseArguments(s)
		if m == nil {
			t.Fatal("nil map")
		}
		_, _ = parseTextAction(s, nil)
		_ = strings.TrimSpace(s)
	})
}
