package lua

import (
	"fmt"
	"reflect"

	glua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// MaxExprDepth bounds how deeply expressions nest in one chunk
// (a+a+…+a nests once per operator). gopher-lua's compiler takes time
// quadratic in that depth — a 64 KB chain of additions compiled for half a
// minute, uninterruptibly — so deeper chunks are refused after parsing,
// before compiling. Real Lua refuses far less (200 C levels).
const MaxExprDepth = 1000

var exprType = reflect.TypeOf((*ast.Expr)(nil)).Elem()

// checkDepth returns a compile error at the line where expressions in
// stmts nest deeper than MaxExprDepth.
func checkDepth(stmts []ast.Stmt) error {
	w := depthWalk{seen: map[uintptr]bool{}}
	w.walk(reflect.ValueOf(stmts), 0)
	if !w.found {
		return nil
	}
	return &glua.CompileError{Line: w.line, Message: fmt.Sprintf("expression nests deeper than %d levels; split it into several statements", MaxExprDepth)}
}

type depthWalk struct {
	found bool
	line  int
	seen  map[uintptr]bool
}

func (w *depthWalk) walk(v reflect.Value, depth int) {
	if w.found {
		return
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		if v.Type() == exprType {
			depth++
			if depth > MaxExprDepth {
				w.found, w.line = true, v.Interface().(ast.Expr).Line()
				return
			}
		}
		w.walk(v.Elem(), depth)
	case reflect.Pointer:
		if v.IsNil() || w.seen[v.Pointer()] {
			return
		}
		w.seen[v.Pointer()] = true
		w.walk(v.Elem(), depth)
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			w.walk(v.Index(i), depth)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanInterface() {
				w.walk(f, depth)
			}
		}
	}
}
