package playbooks

import (
	_ "embed"
	"strings"
)

// RuntimeModule is the module name the generated code requires for the
// flow runtime.
const RuntimeModule = "flow"

//go:embed runtime/flow.lua
var flowSource string

//go:embed runtime/device_steps.lua
var deviceStepsSource string

// RuntimeSource is the flow runtime (pure Lua). Hosts register it with
// lua.Registry.RegisterSource(RuntimeModule, RuntimeSource). The device
// steps' helpers are appended inside flow.lua's chunk so they share its
// locals; flow.lua's own line numbers are unchanged.
var RuntimeSource = strings.Replace(flowSource, "\nreturn flow", "\n"+deviceStepsSource+"\nreturn flow", 1)
