package playbooks

import _ "embed"

// RuntimeModule is the module name the generated code requires for the
// flow runtime.
const RuntimeModule = "flow"

// RuntimeSource is the flow runtime (pure Lua). Hosts register it with
// lua.Registry.RegisterSource(RuntimeModule, RuntimeSource).
//
//go:embed runtime/flow.lua
var RuntimeSource string
