package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// systemDirs are bound read-only when present (a symlink such as Debian's
// /bin -> usr/bin is recreated as the same symlink).
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt"}

// etcFiles are the only parts of /etc a confined process sees: what the
// dynamic loader, name lookups, locales, TLS and Debian's alternatives
// need. /etc/shadow, /etc/ssh, sudoers and the like are absent.
var etcFiles = []string{
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
	"/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/hosts", "/etc/localtime",
	"/etc/ssl", "/etc/ca-certificates", "/etc/mime.types", "/etc/magic", "/etc/terminfo",
	"/etc/inputrc", "/etc/os-release", "/etc/debian_version",
}

// sandboxUID is the unprivileged identity inside the user namespace: even a
// file bound by mistake that only root may read stays unreadable.
const sandboxUID = "65534"

// bwrapArgs is bubblewrap's command line for spec (the bwrap path excluded).
func bwrapArgs(spec Spec) []string {
	a := []string{
		"--unshare-all", "--die-with-parent", "--new-session",
		"--uid", sandboxUID, "--gid", sandboxUID, "--cap-drop", "ALL",
		"--hostname", "openpocket-sandbox",
	}
	for _, d := range systemDirs {
		a = append(a, bindSystem(d)...)
	}
	for _, f := range etcFiles {
		a = append(a, bindSystem(f)...)
	}
	a = append(a,
		// /tmp is memory: a tmpfs as large as the memory limit, so a
		// process cannot hold more there than it could in its heap.
		"--proc", "/proc", "--dev", "/dev", "--size", strconv.FormatUint(spec.Limits.withDefaults().MemoryBytes, 10), "--tmpfs", "/tmp",
		"--bind", spec.Workspace, spec.Workspace,
		"--chdir", spec.Dir,
		"--clearenv",
	)
	env := Environment(spec.Env, spec.Workspace)
	if g := spec.ADBGate; g != nil {
		a = append(a, "--ro-bind", g.Dir(), GateDir)
		env = append(env, g.Env())
	}
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		a = append(a, "--setenv", name, val)
	}
	return append(append(a, "--"), spec.Args...)
}

// bindSystem binds path read-only, or recreates it when it is a symlink
// whose target is bound anyway; absent paths give no arguments.
func bindSystem(path string) []string {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(path)
		if err == nil && !filepath.IsAbs(target) && filepath.Dir(path) == "/" {
			return []string{"--symlink", target, path}
		}
	}
	return []string{"--ro-bind", path, path}
}
