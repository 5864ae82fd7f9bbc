package policy

import (
	"context"
	"io"
	"io/fs"
	"os"
	"strings"

	"mvdan.cc/sh/v3/interp"
)

// runBuiltinsOnly runs script with the same call hook as RunShell and an
// exec hook that records (and never starts) the programs that would run.
func runBuiltinsOnly(ctx context.Context, script string, allow Allowlist, exec func([]string)) error {
	file, v := Parse(script, "fuzz.sh")
	if v != nil {
		return v
	}
	sh := &shell{o: ShellOptions{Allow: allow}, funcs: declaredFuncs(file)}
	r, err := interp.New(
		interp.StdIO(strings.NewReader(""), io.Discard, io.Discard),
		interp.CallHandler(sh.call),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc {
			return func(ctx context.Context, args []string) error {
				if v := allow.checkProgram(args[0], interp.HandlerCtx(ctx).Pos.Line()); v != nil {
					return v
				}
				exec(args)
				return nil
			}
		}),
		interp.OpenHandler(func(context.Context, string, int, os.FileMode) (io.ReadWriteCloser, error) {
			return nil, os.ErrPermission
		}),
		interp.StatHandler(func(context.Context, string, bool) (fs.FileInfo, error) { return nil, os.ErrNotExist }),
		interp.ReadDirHandler2(func(context.Context, string) ([]fs.DirEntry, error) { return nil, os.ErrNotExist }),
	)
	if err != nil {
		return err
	}
	return r.Run(ctx, file)
}
