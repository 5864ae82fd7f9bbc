package lua

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// ToGo converts a Lua value to plain Go data, JSON-style:
// nil → nil, boolean → bool, number → float64, string → string,
// a table with keys 1..n → []any, any other table → map[string]any
// (non-string keys formatted; an empty table is an empty map),
// userdata → its Value. Functions and other values are returned as the
// LValue itself. A table reached again through a cycle becomes nil.
func ToGo(lv LValue) any {
	return toGo(lv, map[*LTable]bool{})
}

func toGo(lv LValue, seen map[*LTable]bool) any {
	switch v := lv.(type) {
	case nil:
		return nil
	case LBool:
		return bool(v)
	case LNumber:
		return float64(v)
	case LString:
		return string(v)
	case *LUserData:
		return v.Value
	case *LTable:
		if seen[v] {
			return nil
		}
		seen[v] = true
		defer delete(seen, v)
		n := v.Len()
		count := 0
		v.ForEach(func(_, _ LValue) { count++ })
		if n > 0 && count == n {
			out := make([]any, n)
			for i := 1; i <= n; i++ {
				out[i-1] = toGo(v.RawGetInt(i), seen)
			}
			return out
		}
		out := make(map[string]any, count)
		v.ForEach(func(k, val LValue) {
			key := k.String()
			if num, ok := k.(LNumber); ok {
				key = strconv.FormatFloat(float64(num), 'f', -1, 64)
			}
			out[key] = toGo(val, seen)
		})
		return out
	default:
		if lv == LNil {
			return nil
		}
		return lv
	}
}

// Decode converts lv with ToGo and unmarshals the result into dst (a
// pointer) through encoding/json, so json tags select fields. Bindings use
// it to read structured arguments.
func Decode(lv LValue, dst any) error {
	b, err := json.Marshal(ToGo(lv))
	if err != nil {
		return fmt.Errorf("lua: decode %s: %w", lv.Type(), err)
	}
	if err := json.Unmarshal(b, dst); err != nil {
		return fmt.Errorf("lua: decode %s: %w", lv.Type(), err)
	}
	return nil
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	durationType  = reflect.TypeFor[time.Duration]()
	lvalueType    = reflect.TypeFor[LValue]()
)

// ToLua converts Go data to a Lua value: nil, bools, numbers, strings,
// []byte (a string), errors (their message), time.Duration (integer
// milliseconds, matching the *_ms option convention), LValue (as is),
// LGFunction (a function), maps and slices (tables), structs (tables keyed
// by json tag names, honoring "-" and omitempty), pointers (their
// target), and types implementing json.Marshaler or encoding.TextMarshaler
// (their JSON / text form). Unsupported values (channels, funcs) become
// their fmt %v string.
func ToLua(L *LState, v any) LValue {
	switch x := v.(type) {
	case nil:
		return LNil
	case LValue:
		return x
	case LGFunction:
		return L.NewFunction(x)
	case func(*LState) int:
		return L.NewFunction(x)
	case bool:
		return LBool(x)
	case string:
		return LString(x)
	case []byte:
		return LString(x)
	case int:
		return LNumber(x)
	case int64:
		return LNumber(x)
	case float64:
		return LNumber(x)
	case time.Duration:
		return LNumber(x.Milliseconds())
	case error:
		return LString(x.Error())
	}
	return reflectToLua(L, reflect.ValueOf(v), 0)
}

const maxConvertDepth = 100

func reflectToLua(L *LState, rv reflect.Value, depth int) LValue {
	if !rv.IsValid() || depth > maxConvertDepth {
		return LNil
	}
	t := rv.Type()
	if t.Implements(lvalueType) {
		if rv.Kind() == reflect.Interface || rv.Kind() == reflect.Pointer {
			if rv.IsNil() {
				return LNil
			}
		}
		return rv.Interface().(LValue)
	}
	if t == durationType {
		return LNumber(time.Duration(rv.Int()).Milliseconds())
	}
	if (rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface) && rv.IsNil() {
		return LNil
	}
	if t.Implements(jsonMarshaler) {
		b, err := rv.Interface().(json.Marshaler).MarshalJSON()
		if err != nil {
			return LString(fmt.Sprint(rv.Interface()))
		}
		var x any
		if err := json.Unmarshal(b, &x); err != nil {
			return LString(b)
		}
		return reflectToLua(L, reflect.ValueOf(x), depth+1)
	}
	if t.Implements(textMarshaler) {
		b, err := rv.Interface().(encoding.TextMarshaler).MarshalText()
		if err == nil {
			return LString(b)
		}
	}
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		return reflectToLua(L, rv.Elem(), depth+1)
	case reflect.Bool:
		return LBool(rv.Bool())
	case reflect.String:
		return LString(rv.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return LNumber(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return LNumber(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return LNumber(rv.Float())
	case reflect.Slice:
		if rv.IsNil() {
			return L.NewTable()
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return LString(rv.Bytes())
		}
		fallthrough
	case reflect.Array:
		tb := L.CreateTable(rv.Len(), 0)
		for i := range rv.Len() {
			tb.RawSetInt(i+1, reflectToLua(L, rv.Index(i), depth+1))
		}
		return tb
	case reflect.Map:
		tb := L.CreateTable(0, rv.Len())
		iter := rv.MapRange()
		for iter.Next() {
			k := reflectToLua(L, iter.Key(), depth+1)
			if k == LNil {
				continue
			}
			tb.RawSet(k, reflectToLua(L, iter.Value(), depth+1))
		}
		return tb
	case reflect.Struct:
		tb := L.NewTable()
		structToLua(L, tb, rv, depth)
		return tb
	default:
		return LString(fmt.Sprint(rv.Interface()))
	}
}

func structToLua(L *LState, tb *LTable, rv reflect.Value, depth int) {
	t := rv.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := rv.Field(i)
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv, ft = fv.Elem(), ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				structToLua(L, tb, fv, depth+1)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.Contains(opts, "omitempty") && fv.IsZero() {
			continue
		}
		tb.RawSetString(name, reflectToLua(L, fv, depth+1))
	}
}
