package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/openpocket/openpocket/engine/textpos"
)

// span is one JSON value with its key path and byte range.
type span struct {
	path     []string // object keys; array elements as their index
	kind     byte     // '{', '[', 's'tring, 'n'umber, 'b'ool, 'z' null
	keyStart int64    // offset of the key's opening quote; -1 when not a member
	start    int64    // offset of the value's first byte
	end      int64    // offset just after the value
}

func (s span) dotted() string { return strings.Join(s.path, ".") }

var typeOfConfig = reflect.TypeFor[Config]()

// lineCol is textpos.LineCol (columns count characters).
func lineCol(data []byte, off int64) (line, col int) { return textpos.LineCol(data, off) }

// skipFiller skips whitespace and the separators the decoder consumes
// silently before a token (':' and ',').
func skipFiller(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ':', ',':
			off++
		default:
			return off
		}
	}
	return off
}

// scanJSON lists every value of a syntactically valid document in
// document order.
func scanJSON(data []byte) ([]span, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var spans []span
	var walk func(path []string, keyStart int64) error
	walk = func(path []string, keyStart int64) error {
		start := skipFiller(data, dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		idx := len(spans)
		spans = append(spans, span{path: path, keyStart: keyStart, start: start})
		switch t := tok.(type) {
		case json.Delim:
			spans[idx].kind = byte(t)
			if t == '{' {
				seen := map[string]int64{}
				for dec.More() {
					ks := skipFiller(data, dec.InputOffset())
					ktok, err := dec.Token()
					if err != nil {
						return err
					}
					key, _ := ktok.(string)
					if first, dup := seen[key]; dup {
						return &duplicateKeyError{path: append(slicesClone(path), key), first: first, second: ks}
					}
					seen[key] = ks
					if err := walk(append(slicesClone(path), key), ks); err != nil {
						return err
					}
				}
			} else {
				for i := 0; dec.More(); i++ {
					if err := walk(append(slicesClone(path), strconv.Itoa(i)), -1); err != nil {
						return err
					}
				}
			}
			if _, err := dec.Token(); err != nil { // closing delimiter
				return err
			}
		case string:
			spans[idx].kind = 's'
		case json.Number:
			spans[idx].kind = 'n'
		case bool:
			spans[idx].kind = 'b'
		default:
			spans[idx].kind = 'z'
		}
		spans[idx].end = dec.InputOffset()
		return nil
	}
	if err := walk(nil, -1); err != nil {
		return nil, err
	}
	return spans, nil
}

// duplicateKeyError is a key given twice in one object: encoding/json
// would silently keep the last, so the file would not mean what it says.
type duplicateKeyError struct {
	path          []string
	first, second int64 // byte offsets of the two keys
}

func (e *duplicateKeyError) Error() string {
	return fmt.Sprintf("duplicate key %q", e.path[len(e.path)-1])
}

// configError places the duplicate in file.
func (e *duplicateKeyError) configError(file string, data []byte) *ConfigError {
	line, col := lineCol(data, e.second)
	fl, fc := lineCol(data, e.first)
	return &ConfigError{File: file, Line: line, Column: col, Path: strings.Join(e.path, "."),
		Message: fmt.Sprintf("duplicate key %q (first at line %d, column %d); each key may appear once in an object", e.path[len(e.path)-1], fl, fc)}
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

func findSpan(spans []span, dotted string) (span, bool) {
	for _, s := range spans {
		if s.dotted() == dotted {
			return s, true
		}
	}
	return span{}, false
}

// checkSyntax reports the first syntax error with its position.
func checkSyntax(file string, data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return positionError(file, data, err, nil)
	}
	return nil
}

var invalidCharRE = regexp.MustCompile(`^invalid character (.+?) (looking for beginning of object key string|after object key:value pair|after object key|after array element|looking for beginning of value|after top-level value|in string literal|in string escape code|in numeric literal|in literal .*)$`)

// explainSyntax turns encoding/json's syntax message into what was expected.
func explainSyntax(msg string) string {
	if msg == "unexpected end of JSON input" {
		return "unexpected end of file: expected the rest of the document (an unclosed '{', '[' or string?)"
	}
	m := invalidCharRE.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	ch := m[1]
	switch ctx := m[2]; {
	case ctx == "looking for beginning of object key string":
		if ch == "'}'" {
			return "expected a quoted key after ',' but found '}' (trailing commas are not allowed)"
		}
		return "expected a quoted key or '}' but found " + ch
	case ctx == "after object key":
		return "expected ':' after the key but found " + ch
	case ctx == "after object key:value pair":
		return "expected ',' or '}' after the value but found " + ch + " (missing comma?)"
	case ctx == "after array element":
		return "expected ',' or ']' after the array element but found " + ch
	case ctx == "looking for beginning of value":
		if ch == "']'" {
			return "expected a value after ',' but found ']' (trailing commas are not allowed)"
		}
		return "expected a value (string, number, object, array, true, false or null) but found " + ch
	case ctx == "after top-level value":
		return "expected the end of the file after the top-level value but found " + ch
	case ctx == "in string literal":
		return "expected a string without raw control characters but found " + ch + " (escape newlines and tabs as \\n and \\t)"
	case ctx == "in string escape code":
		return "expected a valid escape sequence (\\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t, \\uXXXX) but found " + ch
	case ctx == "in numeric literal":
		return "expected a digit in the number but found " + ch
	default:
		return "expected true, false or null but found " + ch
	}
}

// positionError converts an encoding/json error into a ConfigError with
// line, column, key path and what was expected.
func positionError(file string, data []byte, err error, spans []span) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off, _ := textpos.JSONSyntaxOffset(data, err)
		line, col := lineCol(data, off)
		return &ConfigError{File: file, Line: line, Column: col, Message: explainSyntax(se.Error())}
	case errors.As(err, &te):
		path := te.Field
		off := te.Offset
		// Find the innermost value ending at the reported offset: it has
		// the exact path (encoding/json leaves map keys out of Field).
		for i := len(spans) - 1; i >= 0; i-- {
			if spans[i].end == te.Offset {
				path = spans[i].dotted()
				off = spans[i].start
				break
			}
		}
		line, col := lineCol(data, off)
		return &ConfigError{File: file, Line: line, Column: col, Path: path,
			Message: fmt.Sprintf("expected %s, got %s", describeType(te.Type, te.Value), te.Value)}
	default:
		return &ConfigError{File: file, Message: err.Error()}
	}
}

func describeType(t reflect.Type, value string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if strings.HasPrefix(value, "number") {
			return "a whole number"
		}
		return "a number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	default:
		return t.String()
	}
}

// jsonFieldNames lists the JSON keys of a struct type.
func jsonFieldNames(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// typeAt resolves the Go type at a key path below root.
func typeAt(root reflect.Type, path []string) (reflect.Type, bool) {
	t := root
	for _, key := range path {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Struct:
			ft, ok := jsonFieldNames(t)[key]
			if !ok {
				return nil, false
			}
			t = ft
		case reflect.Map, reflect.Slice, reflect.Array:
			t = t.Elem()
		default:
			return nil, false
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t, true
}

// unknownKeys warns about object keys the root type does not have.
func unknownKeys(file string, data []byte, spans []span, root reflect.Type) []Warning {
	var out []Warning
	for _, s := range spans {
		if s.keyStart < 0 || len(s.path) == 0 {
			continue
		}
		parent, ok := typeAt(root, s.path[:len(s.path)-1])
		if !ok || parent.Kind() != reflect.Struct {
			continue
		}
		key := s.path[len(s.path)-1]
		names := jsonFieldNames(parent)
		if _, known := names[key]; known {
			continue
		}
		msg := fmt.Sprintf("unknown key %q", s.dotted())
		if best := nearest(key, names); best != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", best)
		}
		msg += "; it is ignored"
		line, col := lineCol(data, s.keyStart)
		out = append(out, Warning{File: file, Line: line, Column: col, Path: s.dotted(), Message: msg})
	}
	return out
}

// nearest returns the candidate closest to key (textpos.Nearest), or "" if
// none is close enough to be a plausible typo.
func nearest(key string, candidates map[string]reflect.Type) string {
	return textpos.Nearest(key, slices.Collect(maps.Keys(candidates)))
}
