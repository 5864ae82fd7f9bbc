package cli

import (
	"github.com/openpocket/openpocket/internal/executor/execset"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
)

// openExecutors builds the executors of OPENPOCKET_HOME/workspace (the
// home from --home, $OPENPOCKET_HOME or ~/.openpocket, created with its
// workspace/scripts and workspace/memory directories on first use) from
// the effective configuration (--config when given), both from later,
// with the composition root's assembly. The caller closes the set.
func openExecutors(asm Assembly, later OnUse) (*execset.Set, error) {
	h, err := later.Home()
	if err != nil {
		return nil, err
	}
	cfg, err := later.Config()
	if err != nil {
		return nil, err
	}
	return asm.Executors(h.Workspace(), cfg), nil
}

// newScriptRegistry builds the registry Lua scripts run by the CLI see:
// the whole standard library plus the executor modules.
var newScriptRegistry = func(mods ...lua.Module) *lua.Registry { return stdlib.Registry(mods...) }
