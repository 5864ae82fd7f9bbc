package stdlib

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

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
			b, err := EncodeJSON(v, indent)
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

// EncodeJSON encodes a Lua value as JSON; errors name the path of the
// value that cannot be encoded ($.items[2].f).
func EncodeJSON(v lua.LValue, indent bool) ([]byte, error) {
	g, err := jsonValue(v, "$", map[*lua.LTable]bool{})
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
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func jsonValue(v lua.LValue, path string, seen map[*lua.LTable]bool) (any, error) {
	switch x := v.(type) {
	case lua.LBool:
		return bool(x), nil
	case lua.LNumber:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("json.encode: %s is %v, which JSON cannot represent", path, f)
		}
		return f, nil
	case lua.LString:
		return string(x), nil
	case *lua.LTable:
		if seen[x] {
			return nil, fmt.Errorf("json.encode: %s refers back to a table that contains it (cycle)", path)
		}
		seen[x] = true
		defer delete(seen, x)
		n := x.Len()
		count := 0
		x.ForEach(func(_, _ lua.LValue) { count++ })
		if n > 0 && count == n {
			arr := make([]any, n)
			for i := 1; i <= n; i++ {
				e, err := jsonValue(x.RawGetInt(i), fmt.Sprintf("%s[%d]", path, i), seen)
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
			obj[key], err = jsonValue(val, path+"."+key, seen)
		})
		return obj, err
	default:
		if v == lua.LNil {
			return nil, nil
		}
		return nil, fmt.Errorf("json.encode: cannot encode a %s at %s", v.Type(), path)
	}
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

func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	for _, c := range data[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

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
