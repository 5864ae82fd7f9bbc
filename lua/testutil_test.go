package lua

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func newTestVM(t testing.TB, reg *Registry, opts Options) *VM {
	t.Helper()
	if opts.Print == nil {
		opts.Print = func(string) {}
	}
	if opts.Cache == nil {
		opts.Cache = NewProtoCache(64)
	}
	vm, err := New(context.Background(), reg, opts)
	require.NoError(t, err)
	t.Cleanup(vm.Close)
	return vm
}

func scriptErr(t testing.TB, err error) *ScriptError {
	t.Helper()
	require.Error(t, err)
	var se *ScriptError
	require.True(t, errors.As(err, &se), "want *ScriptError, got %T: %v", err, err)
	return se
}
