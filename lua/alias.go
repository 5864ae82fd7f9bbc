package lua

import glua "github.com/yuin/gopher-lua"

// Aliases of the gopher-lua types and values module authors use most, so a
// binding package usually imports only this package.
type (
	// LState is a gopher-lua interpreter state; one per VM.
	LState = glua.LState
	// LValue is any Lua value.
	LValue = glua.LValue
	// LGFunction is a Go function callable from Lua.
	LGFunction = glua.LGFunction
	// LTable is a Lua table.
	LTable = glua.LTable
	// LFunction is a Lua or Go function value.
	LFunction = glua.LFunction
	// LUserData is a Lua userdata value.
	LUserData = glua.LUserData
	// LString is a Lua string.
	LString = glua.LString
	// LNumber is a Lua number (float64).
	LNumber = glua.LNumber
	// LBool is a Lua boolean.
	LBool = glua.LBool
)

// Lua's nil, true and false.
var (
	LNil   = glua.LNil
	LTrue  = glua.LTrue
	LFalse = glua.LFalse
)
