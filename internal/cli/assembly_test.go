package cli

import "github.com/openpocket/openpocket/internal/wire"

// The CLI's tests run on the real adapter assembly, as cmd/openpocket
// binds it.
func init() { testAssembly = wire.New() }
