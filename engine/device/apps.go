package device

import (
	"context"
	"fmt"
	"strings"
)

// App-level operations of the package manager and activity manager. The
// Lua app module, playbooks' launch {stop, clear} and any front end use
// these, so the shell commands live in one place.

// StopApp force-stops an app (am force-stop): its process and activities
// end, as after "Force stop" in Settings.
func (p *Phone) StopApp(ctx context.Context, pkg string) error {
	return p.mustShell(ctx, "am force-stop "+Quote(pkg))
}

// ClearApp clears an app's data and cache (pm clear), as after a fresh
// install.
func (p *Phone) ClearApp(ctx context.Context, pkg string) error {
	return p.mustShell(ctx, "pm clear "+Quote(pkg))
}

// AppInstalled reports whether the package is installed (pm path prints
// "package:/data/app/…/base.apk" for one that is).
func (p *Phone) AppInstalled(ctx context.Context, pkg string) (bool, error) {
	res, err := p.Shell(ctx, "pm path "+Quote(pkg))
	if err != nil {
		return false, err
	}
	return res.ExitCode == 0 && strings.Contains(string(res.Stdout), "package:"), nil
}

// mustShell runs a command and fails on a non-zero exit, with its output.
func (p *Phone) mustShell(ctx context.Context, cmd string) error {
	res, err := p.Shell(ctx, cmd)
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		msg := strings.TrimSpace(string(res.Stderr) + string(res.Stdout))
		return fmt.Errorf("%s: exit code %d: %s", cmd, res.ExitCode, msg)
	}
	return nil
}
