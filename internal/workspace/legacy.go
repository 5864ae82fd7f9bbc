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
	type rename struct {
		start  int64
		old    string
		new    string
		target string
		prio   int
		warn   Warning
	}
	var cands []rename
	present := map[string]bool{} // our dotted paths already spelled our way
	for _, s := range spans {
		if s.keyStart < 0 || len(s.path) == 0 {
			continue
		}
		parent := canonPath(s.path[:len(s.path)-1])
		key := s.path[len(s.path)-1]
		camel, ok := upstreamRename(parent, key)
		if !ok {
			present[strings.Join(append(parent, key), ".")] = true
			continue
		}
		quoted := []byte(`"` + key + `"`)
		if !bytes.HasPrefix(data[s.keyStart:], quoted) {
			continue // escaped key text: leave it
		}
		line, col := lineCol(data, s.keyStart)
		msg := fmt.Sprintf("migrated legacy key %q to %q (upstream's spelling)", key, camel)
		if strings.Contains(key, "_") && snakeToCamel(key) == camel {
			msg = fmt.Sprintf("migrated legacy key %q to %q (upstream's snake_case spelling)", key, camel)
		}
		cands = append(cands, rename{start: s.keyStart, old: key, new: camel, target: strings.Join(append(parent, camel), "."),
			prio: renamePriority[key], warn: Warning{File: file, Line: line, Column: col, Path: s.dotted(), Message: msg, Note: true}})
	}
	// Several upstream spellings of one key (pin, physicalPhonePin,
	// virtualPhonePin): the key spelled our way wins, then upstream's order.
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].prio < cands[j].prio })
	var renames []rename
	for _, c := range cands {
		if present[c.target] {
			continue // superseded: upstreamKeyNote explains it
		}
		present[c.target] = true
		renames = append(renames, c)
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
	sortWarnings(warns)
	return out, warns
}

func sortWarnings(warns []Warning) {
	sort.SliceStable(warns, func(i, j int) bool {
		if warns[i].Line != warns[j].Line {
			return warns[i].Line < warns[j].Line
		}
		return warns[i].Column < warns[j].Column
	})
}

// upstreamRename is the key this config uses for key, spelled by upstream
// under parent (a path already in our spelling): an alias upstream
// documents (deployment_target → target, localRelayPort → relayPort…), or
// the camelCase of a snake_case key that names a field here.
func upstreamRename(parent []string, key string) (string, bool) {
	at := strings.Join(parent, ".")
	if at != "" {
		at += "."
	}
	camel := snakeToCamel(key)
	if to, ok := upstreamAliases[at+camel]; ok && to != key {
		return to, true
	}
	if !strings.Contains(key, "_") {
		return "", false
	}
	t, ok := typeAt(typeOfConfig, parent)
	if !ok || t.Kind() != reflect.Struct {
		return "", false
	}
	if _, known := jsonFieldNames(t)[camel]; !known {
		return "", false
	}
	return camel, true
}

// canonPath spells path our way, segment by segment.
func canonPath(path []string) []string {
	out := make([]string, 0, len(path))
	for _, seg := range path {
		if to, ok := upstreamRename(out, seg); ok {
			seg = to
		}
		out = append(out, seg)
	}
	return out
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
