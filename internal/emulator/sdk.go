// Package emulator manages Android emulators through the SDK's binaries
// (upstream's EmulatorManager, docs/devices.md): it finds the SDK, lists the AVDs
// (`emulator -list-avds`), starts one on a free console/adb port pair and
// waits until the adb server lists it as emulator-N with
// sys.boot_completed=1, and stops it through its console (what `adb emu
// kill` does). The CLI, doctor and the runs' device opener use it; the
// SDK's binaries are its only process boundary.
package emulator

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// ErrNoSDK means no Android SDK emulator binary was found.
var ErrNoSDK = errors.New("Android emulator not found")

// SDK is where the emulator binaries are.
type SDK struct {
	// Root is the SDK directory ("" when emulator came from PATH).
	Root string
	// Emulator is the emulator binary; AVDManager avdmanager's ("" when
	// not installed).
	Emulator, AVDManager string
}

// Env is what FindSDK reads: the environment and PATH lookups (tests give
// their own).
type Env struct {
	Getenv   func(string) string
	LookPath func(string) (string, error)
	Home     string
}

// OSEnv is the process's environment.
func OSEnv() Env {
	home, _ := os.UserHomeDir()
	return Env{Getenv: os.Getenv, LookPath: exec.LookPath, Home: home}
}

// usualRoots are the folders SDK installers use, per system.
func usualRoots(home string) []string {
	roots := []string{filepath.Join(home, "Android", "Sdk"), filepath.Join(home, "Android", "sdk")}
	if runtime.GOOS == "darwin" {
		roots = append([]string{filepath.Join(home, "Library", "Android", "sdk")}, roots...)
	}
	return append(roots, "/opt/android-sdk", "/usr/lib/android-sdk", "/usr/local/android-sdk")
}

// FindSDK finds the emulator: $ANDROID_SDK_ROOT, $ANDROID_HOME, `emulator`
// on PATH, then the usual install folders. The error says what was
// looked at and how to install what is missing.
func FindSDK(env Env) (SDK, error) {
	var looked []string
	try := func(root, why string) (SDK, bool) {
		if root == "" {
			return SDK{}, false
		}
		emu := filepath.Join(root, "emulator", "emulator")
		if isExec(emu) {
			return SDK{Root: root, Emulator: emu, AVDManager: avdManager(root, env)}, true
		}
		looked = append(looked, fmt.Sprintf("%s (%s): no emulator/emulator", root, why))
		return SDK{}, false
	}
	for _, v := range []string{"ANDROID_SDK_ROOT", "ANDROID_HOME"} {
		if s, ok := try(env.Getenv(v), "$"+v); ok {
			return s, nil
		}
		if env.Getenv(v) == "" {
			looked = append(looked, "$"+v+" is not set")
		}
	}
	if p, err := env.LookPath("emulator"); err == nil {
		// PATH's emulator usually sits in SDK/emulator/.
		root := filepath.Dir(filepath.Dir(p))
		return SDK{Root: root, Emulator: p, AVDManager: avdManager(root, env)}, nil
	}
	looked = append(looked, "no emulator on PATH")
	for _, root := range usualRoots(env.Home) {
		if _, err := os.Stat(root); err != nil {
			continue
		}
		if s, ok := try(root, "usual folder"); ok {
			return s, nil
		}
	}
	return SDK{}, fmt.Errorf("%w: %s. Install it with Android Studio (SDK Manager › Android Emulator) or the command-line tools: "+
		"sdkmanager \"emulator\" \"platform-tools\" \"system-images;android-34;google_apis;x86_64\", then set ANDROID_SDK_ROOT to the SDK folder",
		ErrNoSDK, strings.Join(looked, "; "))
}

// avdManager is the SDK's avdmanager, or PATH's ("" when none).
func avdManager(root string, env Env) string {
	for _, p := range []string{filepath.Join(root, "cmdline-tools", "latest", "bin", "avdmanager"), filepath.Join(root, "tools", "bin", "avdmanager")} {
		if isExec(p) {
			return p
		}
	}
	if p, err := env.LookPath("avdmanager"); err == nil {
		return p
	}
	return ""
}

func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}
