package executors

import (
	"github.com/openpocket/openpocket/engine/tools"
	"github.com/openpocket/openpocket/lua"
)

// openFS builds the fs module over the file tools:
//
//	fs.read(path [, {from, lines}])        → text, {path, from, lines, total_lines} | nil, err
//	fs.write(path, content [, {append}])   → {path, bytes, appended, created} | nil, err
//	fs.edit(path, find, replace [, {all}]) → {path, replacements} | nil, err
//	fs.apply_patch(input)                  → {changes = {{kind, path, to}}} | nil, err
func (b binding) openFS(vm *lua.VM) (lua.LValue, error) {
	return vm.NewModule(map[string]lua.LGFunction{
		"read": func(L *lua.LState) int {
			path := L.CheckString(1)
			o := lua.CheckOptions(L, 2)
			from := o.Int("from", 1)
			lines := o.Int("lines", 0)
			o.Check()
			r, err := b.Files.Read(path, from, lines)
			if err != nil {
				return lua.ReturnErr(L, err)
			}
			L.Push(lua.LString(r.Content))
			L.Push(lua.ToLua(L, map[string]any{"path": r.Path, "from": r.From, "lines": r.Lines, "total_lines": r.TotalLines}))
			return 2
		},
		"write": func(L *lua.LState) int {
			path := L.CheckString(1)
			content := L.CheckString(2)
			o := lua.CheckOptions(L, 3)
			appendMode := o.Bool("append", false)
			o.Check()
			r, err := b.Files.Write(path, content, appendMode)
			if err != nil {
				return lua.ReturnErr(L, err)
			}
			L.Push(lua.ToLua(L, map[string]any{"path": r.Path, "bytes": r.Bytes, "appended": r.Appended, "created": r.Created}))
			return 1
		},
		"edit": func(L *lua.LState) int {
			path := L.CheckString(1)
			find := L.CheckString(2)
			replace := L.CheckString(3)
			o := lua.CheckOptions(L, 4)
			all := o.Bool("all", false)
			o.Check()
			r, err := b.Files.Edit(path, find, replace, all)
			if err != nil {
				return lua.ReturnErr(L, err)
			}
			L.Push(lua.ToLua(L, map[string]any{"path": r.Path, "replacements": r.Replacements}))
			return 1
		},
		"apply_patch": func(L *lua.LState) int {
			input := L.CheckString(1)
			r, err := b.Files.ApplyPatch(input)
			if err != nil {
				return lua.ReturnErr(L, err)
			}
			L.Push(lua.ToLua(L, map[string]any{"changes": changes(r.Changes)}))
			return 1
		},
	}), nil
}

func changes(cs []tools.FileChange) []any {
	out := make([]any, 0, len(cs))
	for _, c := range cs {
		m := map[string]any{"kind": c.Kind, "path": c.Path}
		if c.To != "" {
			m["to"] = c.To
		}
		out = append(out, m)
	}
	return out
}
