package playbooks

// SourceMap maps lines of generated Lua back to the playbook step that
// produced them.
type SourceMap struct {
	lines []origin // index = Lua line - 1
}

type origin struct {
	file  string
	line  int
	label string
}

// Lookup returns the playbook file, YAML line and step label of a
// generated Lua line; ok is false for lines no step produced (the
// prologue).
func (m *SourceMap) Lookup(luaLine int) (file string, yamlLine int, stepLabel string, ok bool) {
	if m == nil || luaLine < 1 || luaLine > len(m.lines) {
		return "", 0, "", false
	}
	o := m.lines[luaLine-1]
	if o.line == 0 {
		return "", 0, "", false
	}
	return o.file, o.line, o.label, true
}

// Lines is the number of Lua lines the map covers.
func (m *SourceMap) Lines() int {
	if m == nil {
		return 0
	}
	return len(m.lines)
}

// VMFunc adapts the map to lua.Options.SourceMap for a VM that runs the
// generated code under the chunk name chunk: positions in other chunks
// (including the "file.yaml:12:" prefix the flow runtime already puts on
// step failures) are left alone. Give the Lua a chunk name that differs
// from the YAML file's, such as Result.Chunk.
func (m *SourceMap) VMFunc(chunk string) func(string, int) (string, int, bool) {
	return func(c string, line int) (string, int, bool) {
		if c != chunk {
			return "", 0, false
		}
		f, l, _, ok := m.Lookup(line)
		return f, l, ok
	}
}
