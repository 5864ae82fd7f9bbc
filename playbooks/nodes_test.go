package playbooks

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/action"
)

// nodeSamples are minimal valid steps for the kinds whose Example (shown
// in errors) is not a whole step on its own, or that have none.
var nodeSamples = map[string]string{
	"if":                "if: {visible: Allow, then: [back]}",
	"repeat":            "repeat: {times: 3, steps: [back]}",
	"for_each":          "for_each: {in: [a, b], steps: [back]}",
	"retry":             "retry: {max: 3, steps: [back]}",
	"erase":             "erase: 5",
	"screenshot":        "screenshot: home",
	"open_link":         "open_link: notes://note/1",
	"set_permissions":   "set_permissions: {permissions: {camera: allow}}",
	"install_apk":       "install_apk: /data/local/tmp/a.apk",
	"set_location":      "set_location: {latitude: 52.52, longitude: 13.4}",
	"airplane_mode":     "airplane_mode: true",
	"set_clipboard":     "set_clipboard: hello",
	"paste_text":        "paste_text: greeting",
	"input_random":      "input_random: email",
	"assert_screenshot": "assert_screenshot: refs/home",
	"set_orientation":   "set_orientation: portrait",
	"keyevent":          "keyevent: {keycode: HOME}",
}

// sampleStep returns a minimal valid step of a kind: a listed sample, the
// def's Example, the bare name, or an action with its required parameters.
func sampleStep(t *testing.T, d *stepDef) string {
	t.Helper()
	switch {
	case nodeSamples[d.Name] != "":
		return nodeSamples[d.Name]
	case d.Example != "":
		return d.Example
	case d.Bare:
		return d.Name
	case d.Action:
		spec, _ := action.Lookup(d.Name)
		var parts []string
		for _, prm := range spec.Params {
			if !prm.Required {
				continue
			}
			v := "x"
			switch prm.Kind {
			case action.KindInt, action.KindNumber:
				v = "1"
			case action.KindBool:
				v = "true"
			case action.KindEnum:
				v = prm.Enum[0]
			case action.KindObject:
				v = "{}"
			}
			parts = append(parts, prm.Name+": "+v)
		}
		return fmt.Sprintf("%s: {%s}", d.Name, strings.Join(parts, ", "))
	}
	t.Fatalf("no sample of step %s: give its def an Example or add one to nodeSamples", d.Name)
	return ""
}

// stepBody returns the generated lines inside the first step's function.
func stepBody(lua string) []string {
	lines := strings.Split(lua, "\n")
	for i, ln := range lines {
		if strings.TrimSpace(ln) != "flow.step(__steps[1], function()" {
			continue
		}
		indent := ln[:len(ln)-len(strings.TrimLeft(ln, " "))]
		var body []string
		for _, b := range lines[i+1:] {
			if strings.HasPrefix(b, indent+"end") {
				return body
			}
			body = append(body, b)
		}
	}
	return nil
}

// TestEveryStepKindParsesToItsNodeAndGenerates: for every registered step
// kind, a minimal valid step parses to a node of the type its def declares
// and its generator turns that node into code. define makes a parser and a
// generator of different node types a compile error; this catches a def
// built without define, a parser that leaves another node behind and a
// generator that writes nothing.
func TestEveryStepKindParsesToItsNodeAndGenerates(t *testing.T) {
	require.NotEmpty(t, StepKinds())
	sub := func(string) ([]byte, string, error) { return []byte("name: sub\nsteps: [back]\n"), "sub.yaml", nil }
	for _, name := range StepKinds() {
		d := stepDefs[name]
		t.Run(name, func(t *testing.T) {
			require.NotNil(t, d.node, "the def declares no node type: build it with define")
			require.NotNil(t, d.parse, "no parser")
			require.NotNil(t, d.gen, "no generator")
			src := "name: t\napp: com.x\nsteps:\n  - " + sampleStep(t, d) + "\n"
			pb, err := Parse([]byte(src), "t.yaml")
			require.NoError(t, err, src)
			require.Len(t, pb.Steps, 1, src)
			s := pb.Steps[0]
			require.Equal(t, name, s.Kind)
			require.NotNil(t, s.Node, "the parser left no node")
			assert.Equal(t, d.node, reflect.TypeOf(s.Node), "the parser left a node of another type")

			res, err := CompileWithMap([]byte(src), Options{File: "t.yaml", ResolveInclude: sub})
			require.NoError(t, err, src)
			assert.NotEmpty(t, stepBody(string(res.Lua)), "the generator wrote no code:\n%s", res.Lua)
		})
	}
}

// TestNodeFieldsAreExported: nodeValues reads a node's exported fields, so
// an unexported field would hide its ${expr}s from generated labels.
func TestNodeFieldsAreExported(t *testing.T) {
	seen := map[reflect.Type]bool{}
	for _, name := range StepKinds() {
		typ := stepDefs[name].node
		if typ == nil || seen[typ] {
			continue
		}
		seen[typ] = true
		st := typ.Elem()
		for i := range st.NumField() {
			assert.True(t, st.Field(i).IsExported(), "%s.%s is unexported", st.Name(), st.Field(i).Name)
		}
	}
	assert.Greater(t, len(seen), 20, "node types found")
}

// TestNodeValuesFeedGeneratedLabels: a generated label interpolates the
// ${expr}s of the step's node fields (here input's text), found through
// nodeValues.
func TestNodeValuesFeedGeneratedLabels(t *testing.T) {
	src := "name: t\nparams:\n  who: {type: string, default: ann}\nsteps:\n  - input: \"hi ${who}\"\n"
	res, err := CompileWithMap([]byte(src), Options{File: "t.yaml"})
	require.NoError(t, err)
	assert.Contains(t, string(res.Lua), `end, function() return "input \"hi " .. flow.label_value(who, "${who}") .. "\"" end)`)
	var got []string
	nodeValues(&swipeNode{Direction: &Str{Raw: "up"}, From: &Value{Kind: VList}, Action: &actionNode{Params: []ActionParam{{Name: "x", Value: &Value{Kind: VInt}}}}},
		func(v *Value) { got = append(got, fmt.Sprint(v.Kind)) })
	assert.Equal(t, []string{fmt.Sprint(VString), fmt.Sprint(VList), fmt.Sprint(VInt)}, got)
}
