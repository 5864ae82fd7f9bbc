package lua

import "errors"

// CheckSyntax parses and compiles src under the chunk name without running
// it, so a linter can reject Lua that would only fail when played. The
// compiled chunk goes to DefaultProtoCache, so a VM that then runs the same
// chunk does not compile it again. The error is a *ScriptError of
// KindSyntax whose position went through sourceMap (nil = none), like a
// VM's would.
func CheckSyntax(chunk string, src []byte, sourceMap func(string, int) (string, int, bool)) error {
	_, err := DefaultProtoCache.compile(chunk, src)
	if err == nil {
		return nil
	}
	var se *ScriptError
	if errors.As(err, &se) {
		remap(se, sourceMap)
	}
	return err
}
