package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/emulator"
)

// EmulatorCmd manages Android emulators (docs/agents.md: the emulator is the
// default onboarding path).
type EmulatorCmd struct {
	List   EmulatorListCmd   `cmd:"" help:"List the SDK's virtual devices (AVDs)."`
	Start  EmulatorStartCmd  `cmd:"" help:"Start an AVD and wait until it has booted."`
	Stop   EmulatorStopCmd   `cmd:"" help:"Stop a running emulator (the only one when no serial is given)."`
	Status EmulatorStatusCmd `cmd:"" help:"List the running emulators with their AVD and boot state."`
}

// emulators is the manager over the SDK found from the environment and
// the command's adb server.
func emulators(phones *Phones) (*emulator.Manager, error) {
	sdk, err := emulator.FindSDK(emulator.OSEnv())
	if err != nil {
		return nil, err
	}
	return &emulator.Manager{SDK: sdk, ADB: phones.adbClient()}, nil
}

// EmulatorListCmd lists AVDs.
type EmulatorListCmd struct{}

func (c *EmulatorListCmd) Help() string { return exampleBlock("openpocket emulator list") }

func (c *EmulatorListCmd) Run(ctx context.Context, out Streams, phones *Phones) error {
	m, err := emulators(phones)
	if err != nil {
		return UsageError{err}
	}
	avds, err := m.ListAVDs(ctx)
	if err != nil {
		return err
	}
	if len(avds) == 0 {
		fmt.Fprintf(out.Stdout, "no AVDs in the SDK at %s; create one with Android Studio's Device Manager or avdmanager create avd\n", m.SDK.Root)
		return nil
	}
	for _, a := range avds {
		fmt.Fprintln(out.Stdout, a)
	}
	return nil
}

// EmulatorStartCmd starts an AVD.
type EmulatorStartCmd struct {
	Name     string        `arg:"" help:"The AVD (openpocket emulator list)." placeholder:"NAME"`
	Headless bool          `help:"No window (servers, CI)."`
	Wait     time.Duration `help:"How long to wait for the boot." default:"3m" placeholder:"DURATION"`
	WipeData bool          `name:"wipe-data" help:"Start from a factory reset."`
}

func (c *EmulatorStartCmd) Help() string {
	return exampleBlock("openpocket emulator start Pixel_8 --headless", "openpocket --agent shop target set --type emulator --avd Pixel_8")
}

func (c *EmulatorStartCmd) Run(ctx context.Context, out Streams, phones *Phones) error {
	m, err := emulators(phones)
	if err != nil {
		return UsageError{err}
	}
	fmt.Fprintf(out.Stderr, "starting %s; waiting up to %s for its boot\n", c.Name, c.Wait)
	serial, err := m.Start(ctx, c.Name, emulator.StartOptions{Headless: c.Headless, Wait: c.Wait, WipeData: c.WipeData})
	if err != nil {
		return err
	}
	fmt.Fprintln(out.Stdout, serial)
	return nil
}

// EmulatorStopCmd stops one.
type EmulatorStopCmd struct {
	Serial string `arg:"" optional:"" help:"The emulator's serial (emulator-5554); default: the only one running." placeholder:"SERIAL"`
}

func (c *EmulatorStopCmd) Help() string {
	return exampleBlock("openpocket emulator stop", "openpocket emulator stop emulator-5556")
}

func (c *EmulatorStopCmd) Run(ctx context.Context, out Streams, phones *Phones) error {
	m := &emulator.Manager{ADB: phones.adbClient()} // stopping needs only the console
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	serial, err := m.Stop(ctx, c.Serial)
	if err != nil {
		return err
	}
	fmt.Fprintf(out.Stdout, "stopped %s\n", serial)
	return nil
}

// EmulatorStatusCmd lists running emulators.
type EmulatorStatusCmd struct{}

func (c *EmulatorStatusCmd) Help() string { return exampleBlock("openpocket emulator status") }

func (c *EmulatorStatusCmd) Run(ctx context.Context, out Streams, phones *Phones) error {
	m := &emulator.Manager{ADB: phones.adbClient()}
	if err := m.ADB.EnsureServer(ctx); err != nil {
		return err
	}
	running, err := m.Status(ctx)
	if err != nil {
		return err
	}
	if len(running) == 0 {
		fmt.Fprintln(out.Stdout, "no emulator running (start one with openpocket emulator start NAME)")
		return nil
	}
	tw := tabwriter.NewWriter(out.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERIAL\tAVD\tSTATE\tBOOTED")
	for _, r := range running {
		booted := "no"
		if r.Booted {
			booted = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Serial, dash(r.AVD), r.State, booted)
	}
	return tw.Flush()
}

// noPhoneHint is what to do when no phone is attached (init, doctor):
// the SDK's AVDs first (docs/agents.md: the emulator is the default onboarding
// path), then a phone over USB or Wi-Fi, or the virtual phone.
func noPhoneHint(ctx context.Context, addr string) string {
	others := "connect a phone with USB debugging on (or `openpocket connect HOST` over Wi-Fi), or use the virtual phone: openpocket --sim …"
	sdk, err := emulator.FindSDK(emulator.OSEnv())
	if err != nil {
		return others + "; for an emulator install the Android SDK's emulator (sdkmanager \"emulator\") and set ANDROID_SDK_ROOT"
	}
	m := &emulator.Manager{SDK: sdk, ADB: adb.NewClient(addr)}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	avds, err := m.ListAVDs(ctx)
	if err != nil || len(avds) == 0 {
		return "create an emulator (Android Studio's Device Manager or avdmanager create avd) and start it with openpocket emulator start NAME, or " + others
	}
	return fmt.Sprintf("start an emulator: openpocket emulator start %s (AVDs: %s), and bind it: openpocket target set --type emulator --avd %s; or %s",
		avds[0], strings.Join(avds, ", "), avds[0], others)
}

// printNoPhoneHint offers an emulator (noPhoneHint) when the adb server
// lists no device; nothing when one is attached or no server runs.
func printNoPhoneHint(w io.Writer, g Globals) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	client := adb.NewClient(g.ADBServer)
	if devs, err := client.Devices(ctx); err == nil && len(devs) == 0 {
		fmt.Fprintf(w, "no phone attached: %s\n", noPhoneHint(ctx, client.Addr()))
	}
}
