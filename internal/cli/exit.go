package cli

import (
	"context"
	"errors"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/lease"
)

// Exit codes, mapped from errors in one place.
const (
	ExitOK       = 0
	ExitFailed   = 1 // the run ran and failed (task failed, assertion, step error)
	ExitUsage    = 2 // bad flags, config, YAML, Lua or action input
	ExitDevice   = 3 // no adb server, no/several/lost device, device in use
	ExitModel    = 4 // model endpoint unreachable or unusable
	ExitInternal = 70
	ExitCanceled = 130
)

// UsageError marks bad input (flags, files) so it maps to ExitUsage.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// FailedError marks a run that completed with a failure that was already
// reported on the terminal (summary, session path); Main prints nothing more.
type FailedError struct{ Msg string }

func (e FailedError) Error() string { return e.Msg }

// ModelError marks a model endpoint failure so it maps to ExitModel.
type ModelError struct{ Err error }

func (e ModelError) Error() string { return e.Err.Error() }
func (e ModelError) Unwrap() error { return e.Err }

// internalError marks a bug of ours (a recovered panic): ExitInternal.
type internalError struct{ Err error }

func (e internalError) Error() string { return e.Err.Error() }
func (e internalError) Unwrap() error { return e.Err }

func isReported(err error) bool {
	var f FailedError
	return errors.As(err, &f)
}

// ExitCode maps an error to the process exit code.
func ExitCode(err error) int {
	var (
		usage    UsageError
		failed   FailedError
		model    ModelError
		internal internalError
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &internal):
		return ExitInternal
	case errors.Is(err, context.Canceled):
		return ExitCanceled
	case errors.As(err, &usage):
		return ExitUsage
	case errors.As(err, &failed):
		return ExitFailed
	case errors.As(err, &model):
		return ExitModel
	case errors.Is(err, adb.ErrNoServer), errors.Is(err, adb.ErrNoDevice), errors.Is(err, adb.ErrMultipleDevices),
		errors.Is(err, adb.ErrDeviceNotFound), errors.Is(err, adb.ErrUnauthorized), errors.Is(err, adb.ErrOffline),
		errors.Is(err, adb.ErrConnectionFailed), errors.Is(err, device.ErrDeviceLost), errors.Is(err, lease.ErrBusy):
		return ExitDevice
	}
	return ExitFailed
}
