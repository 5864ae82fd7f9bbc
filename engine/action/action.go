// Package action defines the action union the runtime executes: one spec per
// action (name, parameters, types, defaults, docs), normalization of loose
// model or user input into a valid Action, and the JSON forms derived from the
// spec table (model tool schemas, marshalling). Every other layer — model
// tools, Lua bindings, playbook validation, replay generation, docs — is
// derived from this table, so adding an action means adding one spec entry.
package action

// Action is one normalized action. Type is the canonical action name (never a
// tool alias such as "type_text"); Params holds every parameter of the spec
// with its normalized Go value: int for KindInt, float64 for KindNumber,
// string for KindString/KindEnum, bool for KindBool, map[string]any for
// KindObject. Optional parameters without a default are absent.
type Action struct {
	Type   string
	Params map[string]any
}

// Tool is one model tool derived from a spec: Name is the tool name
// ("type_text" for the type action), Parameters a JSON schema object.
type Tool struct {
	Name        string
	Description string
	Parameters  map[string]any
}

// Has reports whether the parameter is present.
func (a Action) Has(name string) bool { _, ok := a.Params[name]; return ok }

// Str returns a string parameter, "" when absent or of another kind.
func (a Action) Str(name string) string { s, _ := a.Params[name].(string); return s }

// Int returns an integer parameter, 0 when absent or of another kind.
func (a Action) Int(name string) int { n, _ := a.Params[name].(int); return n }

// Float returns a number parameter (ints widen), 0 when absent.
func (a Action) Float(name string) float64 {
	switch v := a.Params[name].(type) {
	case float64:
		return v
	case int:
		return float64(v)
	}
	return 0
}

// Bool returns a boolean parameter, false when absent.
func (a Action) Bool(name string) bool { b, _ := a.Params[name].(bool); return b }

// Obj returns an object parameter, nil when absent.
func (a Action) Obj(name string) map[string]any { m, _ := a.Params[name].(map[string]any); return m }
