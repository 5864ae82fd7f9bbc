package workspace

import (
	"bytes"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// migrateLegacyKeys renames the snake_case keys of a config written by
// upstream OpenPocket (return_home_on_task_end, base_url, api_key_env…) to
// the camelCase keys this config uses, in place, so the file loads instead
// of failing. Each renamed key gives a warning at its position in the
// file saying what was migrated. A key whose camelCase name is not a
// config key, or is also present, is left alone (unknownKeys reports it).
func migrateLegacyKeys(file string, data []byte) ([]byte, []Warning) {
	spans, err := scanJSON(data)
	if err != nil {
		return data, nil
	}
	present := map[string]bool{}
	for _, s := range spans {
		present[s.dotted()] = true
	}
	type rename struct {
		start int64
		old   string
		new   string
		warn  Warning
	}
	var renames []rename
	for _, s := range spans {
		if s.keyStart < 0 || len(s.path) == 0 {
			continue
		}
		key := s.path[len(s.path)-1]
		if !strings.Contains(key, "_") {
			continue
		}
		parentPath := make([]string, len(s.path)-1)
		for i, p := range s.path[:len(s.path)-1] {
			parentPath[i] = snakeToCamel(p)
		}
		parent, ok := typeAt(typeOfConfig, parentPath)
		if !ok || parent.Kind() != reflect.Struct {
			continue
		}
		camel := snakeToCamel(key)
		if _, known := jsonFieldNames(parent)[camel]; !known {
			continue
		}
		sibling := strings.Join(append(append([]string{}, s.path[:len(s.path)-1]...), camel), ".")
		if present[sibling] {
			continue
		}
		quoted := []byte(`"` + key + `"`)
		if !bytes.HasPrefix(data[s.keyStart:], quoted) {
			continue // escaped key text: leave it
		}
		line, col := lineCol(data, s.keyStart)
		renames = append(renames, rename{start: s.keyStart, old: key, new: camel, warn: Warning{File: file, Line: line, Column: col,
			Path: s.dotted(), Message: fmt.Sprintf("migrated legacy key %q to %q (upstream's snake_case spelling)", key, camel)}})
	}
	if len(renames) == 0 {
		return data, nil
	}
	sort.Slice(renames, func(i, j int) bool { return renames[i].start > renames[j].start })
	out := append([]byte{}, data...)
	warns := make([]Warning, 0, len(renames))
	for _, r := range renames {
		end := r.start + int64(len(r.old)) + 2
		out = append(out[:r.start], append([]byte(`"`+r.new+`"`), out[end:]...)...)
		warns = append(warns, r.warn)
	}
	sort.Slice(warns, func(i, j int) bool {
		if warns[i].Line != warns[j].Line {
			return warns[i].Line < warns[j].Line
		}
		return warns[i].Column < warns[j].Column
	})
	return out, warns
}

// snakeToCamel turns return_home_on_task_end into returnHomeOnTaskEnd.
func snakeToCamel(s string) string {
	parts := strings.Split(s, "_")
	var b strings.Builder
	for i, p := range parts {
		if p == "" {
			continue
		}
		if i == 0 || b.Len() == 0 {
			b.WriteString(p)
			continue
		}
		b.WriteString(strings.ToUpper(p[:1]) + p[1:])
	}
	return b.String()
}
