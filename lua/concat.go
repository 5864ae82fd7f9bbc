package lua

import (
	"fmt"
	"strings"

	glua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// The `..` limit without an instruction hook. gopher-lua builds a
// concatenation's string inside its OP_CONCAT before any check could run,
// so the compile path (the only one: load, loadstring and dofile are
// removed) rewrites every `..` chain in the AST into a call of concat,
// which sums the operands' lengths first and refuses a result over
// Options.MaxStringBytes. The builtin reaches the chunk as a hidden first
// argument, kept in a local whose name the Lua lexer cannot produce, so no
// script can read or replace it:
//
//	local <concatName>, <varargName> = ...  -- prepended statement
//	<chunk>                                 -- `..` → <concatName>(a, b, …)
//	                                        -- top-level `...` → <varargName>(...)
//
// <varargName> drops the two hidden arguments, so the chunk's own `...`,
// select('#', ...) and the global arg keep their meaning; every caller of a
// chunk passes chunkArgs. Positions stay those of the source, since the
// rewritten nodes keep their lines.
const (
	concatName = "(concat)"
	varargName = "(varargs)"
	hiddenArgs = 2
)

// rewriteChunk prepends the hidden locals and rewrites the chunk.
func rewriteChunk(stmts []ast.Stmt) []ast.Stmt {
	rw := rewriter{top: true}
	rw.stmts(stmts)
	local := &ast.LocalAssignStmt{Names: []string{concatName, varargName}, Exprs: []ast.Expr{&ast.Comma3Expr{}}}
	return append([]ast.Stmt{local}, stmts...)
}

// rewriter walks a chunk; top is false inside nested functions, whose
// `...` is their own.
type rewriter struct{ top bool }

func (rw rewriter) stmts(stmts []ast.Stmt) {
	for _, s := range stmts {
		rw.stmt(s)
	}
}

func (rw rewriter) exprs(es []ast.Expr) {
	for i := range es {
		es[i] = rw.expr(es[i])
	}
}

func (rw rewriter) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		rw.exprs(s.Lhs)
		rw.exprs(s.Rhs)
	case *ast.LocalAssignStmt:
		rw.exprs(s.Exprs)
	case *ast.FuncCallStmt:
		s.Expr = rw.expr(s.Expr)
	case *ast.DoBlockStmt:
		rw.stmts(s.Stmts)
	case *ast.WhileStmt:
		s.Condition = rw.expr(s.Condition)
		rw.stmts(s.Stmts)
	case *ast.RepeatStmt:
		s.Condition = rw.expr(s.Condition)
		rw.stmts(s.Stmts)
	case *ast.IfStmt:
		s.Condition = rw.expr(s.Condition)
		rw.stmts(s.Then)
		rw.stmts(s.Else)
	case *ast.NumberForStmt:
		s.Init, s.Limit = rw.expr(s.Init), rw.expr(s.Limit)
		if s.Step != nil {
			s.Step = rw.expr(s.Step)
		}
		rw.stmts(s.Stmts)
	case *ast.GenericForStmt:
		rw.exprs(s.Exprs)
		rw.stmts(s.Stmts)
	case *ast.FuncDefStmt:
		rewriter{}.stmts(s.Func.Stmts)
	case *ast.ReturnStmt:
		rw.exprs(s.Exprs)
	}
}

func (rw rewriter) expr(e ast.Expr) ast.Expr {
	switch e := e.(type) {
	case *ast.StringConcatOpExpr:
		return rw.concatCall(e)
	case *ast.Comma3Expr:
		if rw.top {
			return hiddenCall(varargName, e, []ast.Expr{&ast.Comma3Expr{}}, e.AdjustRet)
		}
	case *ast.AttrGetExpr:
		e.Object, e.Key = rw.expr(e.Object), rw.expr(e.Key)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			if f.Key != nil {
				f.Key = rw.expr(f.Key)
			}
			f.Value = rw.expr(f.Value)
		}
	case *ast.FuncCallExpr:
		if e.Func != nil {
			e.Func = rw.expr(e.Func)
		}
		if e.Receiver != nil {
			e.Receiver = rw.expr(e.Receiver)
		}
		rw.exprs(e.Args)
	case *ast.LogicalOpExpr:
		e.Lhs, e.Rhs = rw.expr(e.Lhs), rw.expr(e.Rhs)
	case *ast.RelationalOpExpr:
		e.Lhs, e.Rhs = rw.expr(e.Lhs), rw.expr(e.Rhs)
	case *ast.ArithmeticOpExpr:
		e.Lhs, e.Rhs = rw.expr(e.Lhs), rw.expr(e.Rhs)
	case *ast.UnaryMinusOpExpr:
		e.Expr = rw.expr(e.Expr)
	case *ast.UnaryNotOpExpr:
		e.Expr = rw.expr(e.Expr)
	case *ast.UnaryLenOpExpr:
		e.Expr = rw.expr(e.Expr)
	case *ast.FunctionExpr:
		rewriter{}.stmts(e.Stmts)
	}
	return e
}

// hiddenCall is a call of one of the hidden locals, placed at e's lines.
func hiddenCall(name string, at ast.Expr, args []ast.Expr, oneValue bool) *ast.FuncCallExpr {
	fn := &ast.IdentExpr{Value: name}
	call := &ast.FuncCallExpr{Func: fn, Args: args, AdjustRet: oneValue}
	for _, n := range []ast.Expr{fn, call} {
		n.SetLine(at.Line())
		n.SetLastLine(at.LastLine())
	}
	for _, a := range args {
		if a.Line() == 0 {
			a.SetLine(at.Line())
			a.SetLastLine(at.LastLine())
		}
	}
	return call
}

// concatCall flattens a right-nested chain a .. (b .. c) into one call, as
// OP_CONCAT takes the whole chain; a parenthesised left operand stays a
// call of its own, keeping the order metamethods see.
func (rw rewriter) concatCall(e *ast.StringConcatOpExpr) ast.Expr {
	var args []ast.Expr
	var cur ast.Expr = e
	for {
		c, ok := cur.(*ast.StringConcatOpExpr)
		if !ok {
			args = append(args, oneValue(rw.expr(cur)))
			break
		}
		args = append(args, oneValue(rw.expr(c.Lhs)))
		cur = c.Rhs
	}
	// Not marked as truncated to one value, although it stands for one:
	// gopher-lua compiles `p = (f(p))` for a function's last parameter p
	// into a call whose function overwrites p before p is read as an
	// argument (compileFuncCallExpr's reuse of that register), so `name =
	// name .. ".png"` in `function(name)` would concatenate the builtin.
	// An unmarked call takes the multi-value path, which is the same here:
	// concat always returns exactly one value.
	return hiddenCall(concatName, e, args, false)
}

// oneValue truncates a multi-value operand (a call, `...`) to its first
// value, as an operand of `..` is; as the last argument of the builtin's
// call it would otherwise expand.
func oneValue(e ast.Expr) ast.Expr {
	switch e := e.(type) {
	case *ast.FuncCallExpr:
		e.AdjustRet = true
	case *ast.Comma3Expr:
		e.AdjustRet = true
	}
	return e
}

// concat is the builtin every `..` chain calls: operands right to left,
// runs of strings and numbers joined once their total length is known to
// fit, __concat metamethods called for the rest, gopher-lua's own error
// for operands that have neither.
func (vm *VM) concat(L *LState) int {
	n := L.GetTop()
	if n == 0 {
		L.Push(emptyString)
		return 1
	}
	rhs := L.Get(n)
	for i := n - 1; i >= 1; {
		lhs := L.Get(i)
		if !glua.LVCanConvToString(lhs) || !glua.LVCanConvToString(rhs) {
			rhs = vm.concatMeta(L, lhs, rhs)
			i--
			continue
		}
		j := i
		total := int64(len(glua.LVAsString(rhs)))
		for ; j >= 1 && glua.LVCanConvToString(L.Get(j)); j-- {
			total += int64(len(glua.LVAsString(L.Get(j))))
		}
		if total > int64(vm.opts.MaxStringBytes) {
			// A limit ends the running call (pcall cannot catch it), as
			// the memory watchdog's does.
			limit := &LimitError{Limit: "string size", Max: vm.opts.MaxStringBytes,
				Text: fmt.Sprintf("concatenation: result of %d bytes exceeds the string size limit of %d bytes (lua Options.MaxStringBytes)", total, vm.opts.MaxStringBytes)}
			vm.stopCall(limit)
			Raise(L, limit)
		}
		var b strings.Builder
		b.Grow(int(total))
		for k := j + 1; k <= i; k++ {
			b.WriteString(glua.LVAsString(L.Get(k)))
		}
		b.WriteString(glua.LVAsString(rhs))
		rhs = LString(b.String())
		i = j
	}
	L.Push(rhs)
	return 1
}

const emptyString = LString("")

// varargs is the chunk's own `...`: its arguments without the hidden ones.
func varargs(L *LState) int {
	n := L.GetTop()
	if n <= hiddenArgs {
		return 0
	}
	for i := hiddenArgs + 1; i <= n; i++ {
		L.Push(L.Get(i))
	}
	return n - hiddenArgs
}

func (vm *VM) concatMeta(L *LState, lhs, rhs LValue) LValue {
	op := L.GetMetaField(lhs, "__concat")
	if op == LNil {
		op = L.GetMetaField(rhs, "__concat")
	}
	if op.Type() != glua.LTFunction {
		L.RaiseError("cannot perform concat operation between %v and %v", lhs.Type().String(), rhs.Type().String())
	}
	L.Push(op)
	L.Push(lhs)
	L.Push(rhs)
	L.Call(2, 1)
	v := L.Get(-1)
	L.Pop(1)
	return v
}
