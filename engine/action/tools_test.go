package action

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite docs/actions.md from Markdown()")

func TestTools(t *testing.T) {
	tools := Tools(nil)
	require.Len(t, tools, len(Specs()))
	byName := map[string]Tool{}
	for _, tool := range tools {
		byName[tool.Name] = tool
		data, err := json.Marshal(tool.Parameters)
		require.NoError(t, err, tool.Name)
		var schema struct {
			Type                 string                     `json:"type"`
			Properties           map[string]json.RawMessage `json:"properties"`
			Required             []string                   `json:"required"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		}
		require.NoError(t, json.Unmarshal(data, &schema), tool.Name)
		assert.Equal(t, "object", schema.Type)
		require.NotNil(t, schema.AdditionalProperties)
		assert.False(t, *schema.AdditionalProperties)
		assert.NotNil(t, schema.Required, "%s: required is always a list", tool.Name)
		assert.NotContains(t, schema.Properties, "type", tool.Name)
		assert.NotContains(t, schema.Properties, "thought", tool.Name)
		_, hasReason := schema.Properties["reason"]
		assert.Equal(t, tool.Name != "finish", hasReason, tool.Name)
		assert.NotEmpty(t, tool.Description)

		s, _ := Lookup(tool.Name)
		var wantReq []string
		for _, p := range s.Params {
			if p.Required {
				wantReq = append(wantReq, p.Name)
			}
			var prop map[string]any
			require.NoError(t, json.Unmarshal(schema.Properties[p.Name], &prop), "%s.%s", tool.Name, p.Name)
			assert.Equal(t, p.Kind.jsonType(), prop["type"], "%s.%s", tool.Name, p.Name)
			assert.NotEmpty(t, prop["description"], "%s.%s", tool.Name, p.Name)
			if p.Enum != nil {
				assert.Equal(t, toAnySlice(p.Enum), prop["enum"], "%s.%s", tool.Name, p.Name)
			}
		}
		if wantReq == nil {
			wantReq = []string{}
		}
		assert.Equal(t, wantReq, schema.Required, tool.Name)
	}

	assert.Contains(t, byName, "type_text")
	assert.NotContains(t, byName, "type")
	assert.Equal(t, []any{"x", "y"}, byName["tap"].Parameters["required"])
	assert.Equal(t, []any{"elementId"}, byName["tap_element"].Parameters["required"])
	assert.Equal(t, []any{}, byName["wait"].Parameters["required"])
	props := byName["swipe"].Parameters["properties"].(map[string]any)
	assert.Equal(t, 100.0, props["durationMs"].(map[string]any)["minimum"])
	assert.Equal(t, "Gesture duration in milliseconds. Default: 300.", props["durationMs"].(map[string]any)["description"])

	auth := byName["request_human_auth"].Parameters["properties"].(map[string]any)
	assert.Contains(t, auth["capability"].(map[string]any)["enum"], "2fa")
	ui := auth["uiTemplate"].(map[string]any)
	assert.Equal(t, "object", ui["type"])
	assert.Equal(t, false, ui["additionalProperties"])
	fields := ui["properties"].(map[string]any)["fields"].(map[string]any)
	item := fields["items"].(map[string]any)
	assert.Equal(t, []any{"id", "label", "type"}, item["required"])
	assert.Contains(t, item["properties"].(map[string]any)["type"].(map[string]any)["enum"], "card-number")
	assert.Contains(t, auth, "templatePath")

	// Fresh maps per call.
	byName["tap"].Parameters["required"] = nil
	assert.Equal(t, []any{"x", "y"}, Tools(nil)[0].Parameters["required"])

	device := Tools(func(s Spec) bool { return s.Category == CategoryDevice })
	var names []string
	for _, tl := range device {
		names = append(names, tl.Name)
	}
	assert.Equal(t, []string{"tap", "tap_element", "swipe", "drag", "long_press_drag", "type_text", "keyevent", "launch_app", "shell"}, names)
}

func TestMarkdownUpToDate(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "actions.md")
	got := Markdown()
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run: go test ./engine/action -run TestMarkdownUpToDate -update")
	assert.Equal(t, string(want), got, "docs/actions.md is stale; run: go test ./engine/action -run TestMarkdownUpToDate -update")
	for _, s := range Specs() {
		assert.Contains(t, got, "\n## "+s.Name+"\n")
	}
	assert.Contains(t, got, "`uiTemplate.fields[].type`")
}

// FuzzNormalize: Parse never panics; a returned Action has a known type,
// only spec params, every required param, values of the spec's Go kind, and
// is a fixed point (Marshal → Parse gives it back without notes).
func FuzzNormalize(f *testing.F) {
	for _, raw := range fullExamples() {
		data, _ := json.Marshal(raw)
		f.Add(data)
	}
	for _, s := range []string{
		`{}`, `null`, `[]`, `{"type":"tap","coordinate":[1,2]}`, `{"type":"tap","x":"1e400"}`,
		`{"type":"keyevent","keycode":"volume-up"}`, `{"type":"keyevent","keycode":3.7}`,
		`{"type":"process","action":"POLL","timeoutMs":"12"}`, `{"type":"type_text","text":null}`,
		`{"type":"request_human_auth","uiTemplate":"{\"fields\":[{\"id\":1,\"label\":2,\"type\":\"otp\"}]}"}`,
		`{"type":"swipe","start":"1,2","end":[3]}`, `{"type":"finish","message":""}`, `{"type":"wait","durationMs":-1}`,
		`{"type":"tap_element","elementId":" 7 "}`, `{"type":7}`, `{"type":"memory_search","minScore":"NaN"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, notes, err := Parse(data, nil)
		if err != nil {
			if notes != nil {
				t.Fatalf("notes with error: %q", notes)
			}
			return
		}
		checkKinds(t, a)
		out, err := json.Marshal(a)
		if err != nil {
			t.Fatalf("marshal %#v: %v", a, err)
		}
		b, notes2, err := Parse(out, nil)
		if err != nil {
			t.Fatalf("reparse %s: %v", out, err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("not a fixed point:\n%#v\n%#v\n%s", a, b, out)
		}
		if len(notes2) != 0 {
			t.Fatalf("normalized action %s still needs repairs: %q", out, notes2)
		}
		_ = a.String()
	})
}

func checkKinds(t *testing.T, a Action) {
	t.Helper()
	s, ok := Lookup(a.Type)
	if !ok || s.Name != a.Type {
		t.Fatalf("type %q is not a spec name", a.Type)
	}
	for k, v := range a.Params {
		p, ok := s.Param(k)
		if !ok {
			t.Fatalf("%s: param %q not in spec", a.Type, k)
		}
		var kindOK bool
		switch p.Kind {
		case KindInt:
			_, kindOK = v.(int)
		case KindNumber:
			_, kindOK = v.(float64)
		case KindString:
			_, kindOK = v.(string)
		case KindBool:
			_, kindOK = v.(bool)
		case KindEnum:
			var e string
			e, kindOK = v.(string)
			kindOK = kindOK && contains(p.Enum, e)
		case KindObject:
			_, kindOK = v.(map[string]any)
		}
		if !kindOK {
			t.Fatalf("%s.%s = %#v is not of kind %s", a.Type, k, v, p.Kind)
		}
	}
	for _, p := range s.Params {
		if _, ok := a.Params[p.Name]; !ok && (p.Required || p.Default != nil) {
			t.Fatalf("%s: %s missing", a.Type, p.Name)
		}
	}
}

func TestKindString(t *testing.T) {
	assert.Equal(t, "integer", KindInt.String())
	assert.Equal(t, "number", KindNumber.String())
	assert.Equal(t, "string", KindString.String())
	assert.Equal(t, "boolean", KindBool.String())
	assert.Equal(t, "enum", KindEnum.String())
	assert.Equal(t, "object", KindObject.String())
	assert.Equal(t, "unknown", Kind(99).String())
}

func BenchmarkNormalizeToolTap(b *testing.B) {
	args := map[string]any{"x": 540.0, "y": 1200.0, "reason": "open the settings app"}
	b.ReportAllocs()
	for b.Loop() {
		NormalizeTool("tap", args, nil)
	}
}

func BenchmarkNormalizeToolSwipeWithDefaults(b *testing.B) {
	args := map[string]any{"x1": 500.0, "y1": 1500.0, "x2": 500.0, "y2": 400.0, "reason": "scroll down"}
	d := Defaults{"swipe": {"durationMs": 250}}
	b.ReportAllocs()
	for b.Loop() {
		NormalizeTool("swipe", args, d)
	}
}

func BenchmarkParseTap(b *testing.B) {
	data := []byte(`{"type":"tap","x":540,"y":1200,"reason":"open the settings app"}`)
	b.ReportAllocs()
	for b.Loop() {
		_, _, _ = Parse(data, nil)
	}
}
