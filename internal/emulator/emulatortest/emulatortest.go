// Package emulatortest is test support for the emulator manager: an SDK
// folder with stand-in `emulator` and `avdmanager` scripts whose emulator
// is the test binary itself serving the virtual phone on an emulator port
// pair, so the real adb server lists it as emulator-N.
package emulatortest

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/openpocket/openpocket/internal/sim"
)

// The stand-in `emulator` is a shell script: -list-avds prints the AVDs
// it was written with; -avd NAME -port N runs this test binary as the
// emulator, which serves the virtual phone on the port pair N, N+1 and
// announces it to the real adb server (so it is listed as emulator-N).
const standinEnv = "OPENPOCKET_EMULATOR_STANDIN"

// Main runs the tests, or the stand-in emulator when the stand-in script
// started this binary as one: call it from TestMain.
func Main(m *testing.M) {
	RunStandinIfAsked()
	os.Exit(m.Run())
}

// RunStandinIfAsked runs the stand-in emulator and exits when the stand-in
// script started this binary as one; a TestMain of its own calls it first.
func RunStandinIfAsked() {
	if os.Getenv(standinEnv) != "" {
		os.Exit(runStandin(os.Args[1:]))
	}
}

// runStandin is the emulator process: until its console's kill or SIGTERM.
func runStandin(args []string) int {
	var o sim.EmulatorOptions
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-avd":
			i++
			o.AVD = args[i]
		case "-port":
			i++
			o.ConsolePort, _ = strconv.Atoi(args[i])
		}
	}
	o.NeverBoots = os.Getenv("STANDIN_NEVER_BOOTS") == "1"
	e, err := sim.StartEmulator(context.Background(), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "stand-in emulator:", err)
		return 1
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, os.Interrupt)
	select {
	case <-e.Killed():
	case <-term:
		e.Close()
	}
	return 0
}

// SDK writes an SDK with the stand-in emulator (AVDs avds; the AVD
// "Slow" never finishes booting, "Broken" exits at once) and avdmanager.
func SDK(t testing.TB, avds ...string) string {
	t.Helper()
	root := t.TempDir()
	list := "true"
	if len(avds) > 0 {
		list = "cat <<'AVDS'\n" + strings.Join(avds, "\n") + "\nAVDS"
	}
	script := fmt.Sprintf(`#!/bin/sh
if [ "$1" = "-list-avds" ]; then
%s
exit 0
fi
if [ "$2" = "Broken" ]; then echo "PANIC: Missing emulator engine program for 'x86_64' CPU." >&2; exit 1; fi
if [ "$2" = "Slow" ]; then export STANDIN_NEVER_BOOTS=1; fi
%s=1 exec %q "$@"
`, list, standinEnv, os.Args[0])
	for _, f := range []struct{ path, body string }{
		{filepath.Join(root, "emulator", "emulator"), script},
		{filepath.Join(root, "cmdline-tools", "latest", "bin", "avdmanager"), "#!/bin/sh\necho stand-in avdmanager\n"},
	} {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.path, []byte(f.body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}
