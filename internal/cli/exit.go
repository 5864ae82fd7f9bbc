package cli

import (
	"context"
	"errors"
	"net"
	"net/url"
	"syscall"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/lease"
	"github.com/openpocket/openpocket/internal/llm"
)

// Exit codes, mapped from errors in one place (ExitCode). README.md and
// `openpocket --help` document them; the binary's table test holds every
// command to them.
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
// Cause, when set, is the device or model error that made the run fail:
// it decides the exit code (3 or 4 instead of 1).
type FailedError struct {
	Msg   string
	Cause error
}

func (e FailedError) Error() string { return e.Msg }
func (e FailedError) Unwrap() error { return e.Cause }

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

// ExitCode maps an error to the process exit code. A bug of ours (a
// recovered panic) wins, then cancellation, then bad input, then the model
// and device causes (also when a FailedError carries them), then any other
// failure.
func ExitCode(err error) int {
	var (
		usage    UsageError
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
	case errors.As(err, &usage), isBadInput(err):
		return ExitUsage
	case errors.As(err, &model):
		return ExitModel
	case isDeviceError(err):
		return ExitDevice
	}
	return ExitFailed
}

// isBadInput reports bad input marked by the adapters the composition
// root assembles (internal/wire's BadConfigError: a model profile to fix),
// which cannot import this package's UsageError.
func isBadInput(err error) bool {
	var bad interface{ BadInput() bool }
	return errors.As(err, &bad) && bad.BadInput()
}

// isDeviceError reports adb server and device failures.
func isDeviceError(err error) bool {
	for _, target := range []error{adb.ErrNoServer, adb.ErrNoDevice, adb.ErrMultipleDevices, adb.ErrDeviceNotFound,
		adb.ErrUnauthorized, adb.ErrOffline, adb.ErrConnectionFailed, adb.ErrPairingFailed, device.ErrDeviceLost, lease.ErrBusy} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// modelFailure turns the llm adapter's endpoint failures into a ModelError:
// an HTTP error status from the provider (bad key, unknown model, 5xx after
// retries) or no connection at all (refused, DNS, TLS, timeout). A reply
// the agent could not use is not one: the endpoint works. Other errors are
// returned unchanged.
// modelHint is what to do about a model endpoint nobody answers at (the
// error names the profile's base URL): "" for other errors.
func modelHint(err error) string {
	var dnsErr *net.DNSError
	if errors.Is(err, syscall.ECONNREFUSED) || errors.As(err, &dnsErr) {
		return " — is the model server running? `openpocket doctor` checks every model profile"
	}
	return ""
}

func modelFailure(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || isDeviceError(err) {
		return err
	}
	var (
		apiErr *llm.APIError
		urlErr *url.Error
		opErr  *net.OpError
		dnsErr *net.DNSError
	)
	switch {
	case errors.As(err, &apiErr), errors.As(err, &urlErr), errors.As(err, &opErr), errors.As(err, &dnsErr),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, context.DeadlineExceeded):
		return ModelError{err}
	}
	return err
}
