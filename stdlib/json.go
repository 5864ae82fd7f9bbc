package stdlib

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/openpocket/openpocket/engine/textpos"
	"github.com/openpocket/openpocket/lua"
)

func openJSON(vm *lua.VM) (lua.LValue, error) {
	return vm.NewModule(map[string]lua.LGFunction{
		// json.encode(v, {indent}) → string or nil, err. Tables with keys
		// 1..n become arrays, other tables objects (keys sorted).
		"encode": func(L *lua.LState) int {
			v := L.CheckAny(1)
			o := lua.CheckOptions(L, 2)
			indent := o.Bool("indent", false)
			o.Check()
			b, err := encodeJSON(v, indent, lua.VMOf(L).MaxStringBytes())
			if err != nil {
				return lua.ReturnErr(L, err)
			}
			return pushStr(L, string(b))
		},
		// json.decode(s) → value or nil, err (null becomes nil).
		"decode": func(L *lua.LState) int {
			s := L.CheckString(1)
			v, err := DecodeJSON(L, []byte(s))
			if err != nil {
				return lua.ReturnErr(L, err)
			}
			L.Push(v)
			return 1
		},
	}), nil
}

// MaxJSONDepth bounds the nesting json.encode follows.
const MaxJSONDepth = 200

// EncodeJSON encodes a Lua value as JSON; errors name the path of the
// value that cannot be encoded ($.items[2].f). The output is capped at
// lua.DefaultMaxStringBytes.
func EncodeJSON(v lua.LValue, indent bool) ([]byte, error) {
	return encodeJSON(v, indent, lua.DefaultMaxStringBytes)
}

func encodeJSON(v lua.LValue, indent bool, maxBytes int) ([]byte, error) {
	st := &jsonState{seen: map[*lua.LTable]bool{}, max: maxBytes}
	g, err := st.value(v, nil, 0)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(g); err != nil {
		return nil, fmt.Errorf("json.encode: %v", err)
	}
	if buf.Len() > maxBytes+1 {
		return nil, fmt.Errorf("json.encode: result of %d bytes exceeds the string size limit of %d bytes", buf.Len()-1, maxBytes)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// jsonPath is the way to a value, built into text only for a message (a
// string per level would cost depth² memory on deep nesting).
type jsonPath struct {
	parent *jsonPath
	key    string // ".name" or "[3]"
}

func (p *jsonPath) String() string {
	if p == nil {
		return "$"
	}
	return p.parent.String() + p.key
}

// jsonState accounts one encode: cycles, and the size of the strings and
// numbers it will write (a table repeating one large string many times
// would otherwise encode to gigabytes).
type jsonState struct {
	seen map[*lua.LTable]bool
	size int
	max  int
}

func (st *jsonState) grow(n int, path *jsonPath) error {
	st.size += n
	if st.size > st.max {
		return fmt.Errorf("json.encode: result exceeds the string size limit of %d bytes (at %s)", st.max, path)
	}
	return nil
}

func (st *jsonState) value(v lua.LValue, path *jsonPath, depth int) (any, error) {
	switch x := v.(type) {
	case lua.LBool:
		return bool(x), st.grow(5, path)
	case lua.LNumber:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("json.encode: %s is %v, which JSON cannot represent", path, f)
		}
		return f, st.grow(24, path)
	case lua.LString:
		return string(x), st.grow(len(x)+2, path)
	case *lua.LTable:
		if depth >= MaxJSONDepth {
			return nil, fmt.Errorf("json.encode: %s nests deeper than %d levels", path, MaxJSONDepth)
		}
		if st.seen[x] {
			return nil, fmt.Errorf("json.encode: %s refers back to a table that contains it (cycle)", path)
		}
		st.seen[x] = true
		defer delete(st.seen, x)
		return st.table(x, path, depth)
	default:
		if v == lua.LNil {
			return nil, st.grow(4, path)
		}
		return nil, fmt.Errorf("json.encode: cannot encode a %s at %s", v.Type(), path)
	}
}

func (st *jsonState) table(x *lua.LTable, path *jsonPath, depth int) (any, error) {
	n := x.Len()
	count := 0
	x.ForEach(func(_, _ lua.LValue) { count++ })
	if err := st.grow(count+2, path); err != nil {
		return nil, err
	}
	if n > 0 && count == n {
		arr := make([]any, n)
		for i := 1; i <= n; i++ {
			e, err := st.value(x.RawGetInt(i), &jsonPath{path, "[" + strconv.Itoa(i) + "]"}, depth+1)
			if err != nil {
				return nil, err
			}
			arr[i-1] = e
		}
		return arr, nil
	}
	obj := make(map[string]any, count)
	var err error
	x.ForEach(func(k, val lua.LValue) {
		if err != nil {
			return
		}
		var key string
		switch kk := k.(type) {
		case lua.LString:
			key = string(kk)
		case lua.LNumber:
			key = strconv.FormatFloat(float64(kk), 'f', -1, 64)
		default:
			err = fmt.Errorf("json.encode: %s has a %s key; object keys must be strings or numbers", path, k.Type())
			return
		}
		if err = st.grow(len(key)+3, path); err == nil {
			obj[key], err = st.value(val, &jsonPath{path, "." + key}, depth+1)
		}
	})
	return obj, err
}

// DecodeJSON decodes one JSON value into Lua (null → nil, numbers →
// numbers); errors carry the line and column.
func DecodeJSON(L *lua.LState, data []byte) (lua.LValue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, jsonErr(data, err, dec.InputOffset())
	}
	if _, err := dec.Token(); err != io.EOF {
		off := dec.InputOffset()
		line, col := lineCol(data, off)
		return nil, fmt.Errorf("json.decode: unexpected data after the value at line %d, column %d", line, col)
	}
	return toLuaJSON(L, v), nil
}

func jsonErr(data []byte, err error, off int64) error {
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset > 0 {
		off = se.Offset - 1 // Offset is just after the offending byte
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		if len(bytes.TrimSpace(data)) == 0 {
			return fmt.Errorf("json.decode: empty input (a JSON value expected)")
		}
		off = int64(len(data))
		line, col := lineCol(data, off)
		return fmt.Errorf("json.decode: unexpected end of input at line %d, column %d", line, col)
	}
	line, col := lineCol(data, off)
	return fmt.Errorf("json.decode: %v at line %d, column %d", err, line, col)
}

// lineCol is textpos.LineCol: columns count characters, as in every
// other position OpenPocket reports.
func lineCol(data []byte, off int64) (int, int) { return textpos.LineCol(data, off) }

func toLuaJSON(L *lua.LState, v any) lua.LValue {
	switch x := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(x)
	case json.Number:
		f, _ := x.Float64()
		return lua.LNumber(f)
	case string:
		return lua.LString(x)
	case []any:
		t := L.CreateTable(len(x), 0)
		for i, e := range x {
			t.RawSetInt(i+1, toLuaJSON(L, e))
		}
		return t
	case map[string]any:
		t := L.CreateTable(0, len(x))
		for k, e := range x {
			t.RawSetString(k, toLuaJSON(L, e))
		}
		return t
	}
	return lua.LNil
}
