// Package assets is the Lua module `assets`: files that ship next to a
// playbook (an APK to install, media to push) copied to the device with the
// adb sync protocol.
//
//	local assets = require("assets")
//	local remote = assert(assets.push("apks/app.apk", "/data/local/tmp/app.apk"))
//
// Files are read through an os.Root the host opens at the playbook's
// directory, so a path cannot leave it.
package assets

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
)

// MaxBytes bounds a pushed file (APKs of real apps run to a few hundred MB).
const MaxBytes = 1 << 30

// Module is the root of the `assets` module.
type Module struct {
	root *os.Root
}

var _ lua.Module = (*Module)(nil)

// New returns the module reading files under root (nil: push fails with a
// clear error).
func New(root *os.Root) *Module { return &Module{root: root} }

// Name implements lua.Module.
func (m *Module) Name() string { return "assets" }

// Open implements lua.Module.
func (m *Module) Open(vm *lua.VM) (lua.LValue, error) {
	return vm.NewModule(map[string]lua.LGFunction{
		// assets.push(local, remote) → remote or nil, err.
		"push": func(L *lua.LState) int {
			local, remote := L.CheckString(1), L.CheckString(2)
			if !path.IsAbs(remote) {
				return lua.Raisef(L, "assets.push: remote path %q must be absolute", remote)
			}
			if err := m.push(vm, local, remote); err != nil {
				L.Push(lua.LNil)
				L.Push(lua.LString(err.Error()))
				return 2
			}
			L.Push(lua.LString(remote))
			return 1
		},
	}), nil
}

func (m *Module) push(vm *lua.VM, local, remote string) error {
	if m.root == nil {
		return errors.New("assets.push: no playbook directory (run the playbook with openpocket play)")
	}
	sess := stdlib.HostOf(vm).Session()
	if sess == nil {
		return errors.New("assets.push: no device session")
	}
	clean := filepath.Clean(local)
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return fmt.Errorf("assets.push: %s must be a path inside the playbook's directory", local)
	}
	st, err := m.root.Stat(clean)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("assets.push: %s: no such file next to the playbook", local)
		}
		return fmt.Errorf("assets.push: %s: %w", local, err)
	}
	if !st.Mode().IsRegular() || st.Size() > MaxBytes {
		return fmt.Errorf("assets.push: %s is not a regular file under %d bytes", local, MaxBytes)
	}
	data, err := m.root.ReadFile(clean)
	if err != nil {
		return fmt.Errorf("assets.push: %s: %w", local, err)
	}
	phone, err := sess.Phone()
	if err != nil {
		return err
	}
	if err := phone.Transport().Push(sess.Context(), remote, data, 0o644); err != nil {
		return fmt.Errorf("assets.push %s → %s: %w", local, remote, err)
	}
	return nil
}
