package executors

import (
	"math"

	"github.com/openpocket/openpocket/lua"
)

// openMemory builds the memory module over MEMORY.md and memory/**/*.md:
//
//	memory.search(query [, {max_results, min_score}])
//	    → {query, min_score, scanned_files, results = {{path, start_line, end_line, score, snippet, citation}}} | nil, err
//	memory.get(path [, {from, lines}]) → text, {path, from, to, total_lines} | nil, err
//
// max_results and min_score default to memoryTools.maxResults / minScore.
func (b binding) openMemory(vm *lua.VM) (lua.LValue, error) {
	return vm.NewModule(map[string]lua.LGFunction{
		"search": func(L *lua.LState) int {
			query := L.CheckString(1)
			o := lua.CheckOptions(L, 2)
			maxResults := o.Int("max_results", 0)
			minScore := o.Number("min_score", -1)
			o.Check()
			if maxResults < 0 {
				L.ArgError(2, "max_results must be at least 1")
			}
			if o.Has("min_score") && (minScore < 0 || minScore > 1 || math.IsNaN(minScore)) {
				L.ArgError(2, "min_score must be between 0 and 1")
			}
			r, err := b.Memory.Search(query, maxResults, minScore)
			if err != nil {
				return lua.ReturnErr(L, err)
			}
			results := make([]any, 0, len(r.Results))
			for _, h := range r.Results {
				results = append(results, map[string]any{
					"path": h.Path, "start_line": h.StartLine, "end_line": h.EndLine,
					"score": h.Score, "snippet": h.Snippet, "citation": h.Citation,
				})
			}
			L.Push(lua.ToLua(L, map[string]any{"query": r.Query, "min_score": r.MinScore, "scanned_files": r.ScannedFiles, "results": results}))
			return 1
		},
		"get": func(L *lua.LState) int {
			path := L.CheckString(1)
			o := lua.CheckOptions(L, 2)
			from := o.Int("from", 1)
			lines := o.Int("lines", 0)
			o.Check()
			r, err := b.Memory.GetWindow(path, from, lines)
			if err != nil {
				return lua.ReturnErr(L, err)
			}
			L.Push(lua.LString(r.Text))
			L.Push(lua.ToLua(L, map[string]any{"path": r.Path, "from": r.From, "to": r.To, "total_lines": r.TotalLines}))
			return 2
		},
	}), nil
}
