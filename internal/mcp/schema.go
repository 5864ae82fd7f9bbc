package mcp

import (
	"maps"

	"github.com/openpocket/openpocket/engine/action"
)

// toolOrder is the order tools are listed in.
var toolOrder = []string{
	"devices", "snapshot", "act", "find", "wait_for", "tap", "type_text", "launch_app",
	"run_lua", "play", "skills_list", "skill_run", "agent_run", "sessions_list", "session_get",
}

var deviceProp = map[string]any{"type": "string", "description": "adb serial of the device to drive (default: the configured target)."}

// object is a JSON Schema object with the device argument added.
func object(props map[string]any, required ...string) map[string]any {
	p := maps.Clone(props)
	p["device"] = deviceProp
	req := []any{}
	for _, r := range required {
		req = append(req, r)
	}
	return map[string]any{"type": "object", "properties": p, "required": req, "additionalProperties": false}
}

// plain is a JSON Schema object without the device argument.
func plain(props map[string]any, required ...string) map[string]any {
	s := object(props, required...)
	delete(s["properties"].(map[string]any), "device")
	return s
}

// actionTool is the action spec's own tool schema (the one the agent's
// model gets) plus the device argument: the action table stays the single
// source of the parameters, their types, defaults and docs.
func actionTool(name string) (doc string, schema map[string]any) {
	for _, t := range action.Tools(func(s action.Spec) bool { return s.ToolName == name }) {
		schema = maps.Clone(t.Parameters)
		props := maps.Clone(schema["properties"].(map[string]any))
		props["device"] = deviceProp
		schema["properties"] = props
		return t.Description, schema
	}
	panic("mcp: no action spec for tool " + name)
}

// actable says which actions act accepts: whatever runs on the device,
// and wait. finish only means something inside an agent run; the
// executors (scripts, files, memory) are the coding agent's own business.
func actable(s action.Spec) bool {
	return s.Category == action.CategoryDevice || s.Name == "wait"
}

// actSchema is one branch per actable action, each its spec's schema
// with a "type" constant; the union sits under "action" because some
// clients refuse a oneOf at the top of a tool's schema.
func actSchema() map[string]any {
	var branches []any
	var names []any
	for _, t := range action.Tools(actable) {
		spec := specByTool(t.Name)
		b := maps.Clone(t.Parameters)
		props := maps.Clone(b["properties"].(map[string]any))
		props["type"] = map[string]any{"const": spec.Name, "description": "The action type."}
		b["properties"] = props
		b["required"] = append([]any{"type"}, b["required"].([]any)...)
		b["description"] = spec.Name + ": " + t.Description
		branches = append(branches, b)
		names = append(names, spec.Name)
	}
	return object(map[string]any{
		"action": map[string]any{
			"type":        "object",
			"description": "The action: {\"type\": NAME, …its parameters}. Types: see oneOf (the same table the agent's model uses; type_text is \"type\").",
			"oneOf":       branches,
		},
		"scaled": map[string]any{"type": "boolean", "description": "Coordinates are in the last snapshot's scaled space, as its element list shows them (default true when a snapshot was taken on this device; false = device pixels)."},
	}, "action")
}

func specByTool(tool string) action.Spec {
	for _, s := range action.Specs() {
		if s.ToolName == tool {
			return s
		}
	}
	return action.Spec{}
}

// selectorSchema describes the ui module's selector fields (engine/screen
// selectors): a string matches text, content-desc or hint exactly.
func selectorSchema() map[string]any {
	str := func(doc string) map[string]any { return map[string]any{"type": "string", "description": doc} }
	boolean := func(doc string) map[string]any { return map[string]any{"type": "boolean", "description": doc} }
	rel := func(doc string) map[string]any {
		return map[string]any{"type": []any{"object", "string"}, "description": doc + " (a selector with the same fields)"}
	}
	return map[string]any{
		"type":        []any{"object", "string"},
		"description": "Which element: a string (exact text, content-desc or hint) or fields that must all hold, as the Lua ui module's selectors.",
		"properties": map[string]any{
			"text": str("Exact label: text, content-desc or hint."), "text_contains": str("Case-insensitive substring of the label."),
			"text_regex": str("RE2 full match of the label."), "id": str("resource-id, full or the part after :id/."),
			"desc": str("Exact content-desc."), "desc_contains": str("Case-insensitive substring of content-desc."),
			"class": str("Class name, full or simple (Button)."), "package": str("Exact package."),
			"index":     map[string]any{"type": "integer", "minimum": 0, "description": "0-based pick among the matches in reading order."},
			"clickable": boolean("Clickable."), "enabled": boolean("Enabled."), "checked": boolean("Checked."), "focused": boolean("Focused."),
			"selected": boolean("Selected."), "scrollable": boolean("Scrollable."), "checkable": boolean("Checkable."),
			"below": rel("Below this element"), "above": rel("Above this element"), "left_of": rel("Left of this element"),
			"right_of": rel("Right of this element"), "child_of": rel("Inside this element"), "contains": rel("Containing this element"),
		},
		"additionalProperties": false,
	}
}

func selectorTool(timeoutDoc string) map[string]any {
	return object(map[string]any{
		"selector":   selectorSchema(),
		"timeout_ms": map[string]any{"type": "integer", "minimum": 0, "description": timeoutDoc},
	}, "selector")
}
