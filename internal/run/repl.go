package run

import (
	"context"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
)

// REPLOptions open an interactive Lua session.
type REPLOptions struct {
	Target
	// Print receives print output.
	Print  func(string)
	Events func(Event)
}

// REPLSession is an open REPL: one session and one VM that evaluate chunk
// after chunk until Close.
type REPLSession struct {
	// VM evaluates the lines (EvalContext cancels one statement only).
	VM      *lua.VM
	Session *engine.Session
	// ReadyErr is why the device could not be woken or unlocked: the REPL
	// still opens, so the user can look and unlock by hand.
	ReadyErr error
	lc       *lifecycle
}

// REPL opens a REPL bound to a fresh, unpersisted session. The caller
// closes it.
func (s *Service) REPL(ctx context.Context, o REPLOptions) (*REPLSession, error) {
	lc := s.begin(RunREPL, "repl", o.Target, o.Events)
	eng, err := lc.engine(engineOptions{})
	if err != nil {
		lc.end(false, err.Error(), "")
		return nil, err
	}
	sess, err := lc.session(ctx, eng, engine.SessionOptions{Task: "repl"})
	if err != nil {
		lc.end(false, err.Error(), "")
		return nil, err
	}
	r := &REPLSession{Session: sess, lc: lc}
	r.ReadyErr = lc.ready(sess)
	vm, err := stdlib.NewVMWith(ctx, lc.registry(), sess, lua.Options{Print: o.Print})
	if err != nil {
		sess.Finish(false, err.Error())
		lc.end(false, err.Error(), "")
		return nil, err
	}
	r.VM = vm
	return r, nil
}

// Eval runs one chunk; cancelling ctx stops this chunk only.
func (r *REPLSession) Eval(ctx context.Context, src string) ([]any, error) {
	return r.VM.EvalContext(ctx, src)
}

// Close ends the REPL and finalizes its session.
func (r *REPLSession) Close() {
	r.VM.Close()
	r.Session.Finish(true, "repl closed")
	r.lc.end(true, "repl closed", "")
}
