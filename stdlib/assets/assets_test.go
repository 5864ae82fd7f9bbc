package assets_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/device/devicetest"
	"github.com/openpocket/openpocket/lua"
	"github.com/openpocket/openpocket/stdlib"
	"github.com/openpocket/openpocket/stdlib/assets"
)

func TestPushStaysInsideThePlaybookDirectory(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "apks"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "apks", "app.apk"), []byte("PK\x03\x04"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(dir), "outside.apk"), []byte("secret"), 0o644))
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()

	fake := devicetest.New()
	eng := &engine.Engine{OpenDevice: func(context.Context) (engine.Device, error) { return fake, nil }, PhoneOptions: device.Options{}}
	sess, err := eng.NewSession(t.Context(), engine.SessionOptions{Task: "assets"})
	require.NoError(t, err)
	vm, err := stdlib.NewVMWith(t.Context(), stdlib.Registry(assets.New(root)), sess, lua.Options{})
	require.NoError(t, err)
	defer vm.Close()

	err = vm.Run("t", []byte(`
local assets = require("assets")
assert(assets.push("apks/app.apk", "/data/local/tmp/app.apk") == "/data/local/tmp/app.apk")
local ok, err = assets.push("../outside.apk", "/data/local/tmp/x")
assert(ok == nil and err:find("inside the playbook's directory", 1, true), err)
ok, err = assets.push("apks/missing.apk", "/data/local/tmp/x")
assert(ok == nil and err:find("no such file next to the playbook", 1, true), err)
ok, err = assets.push("apks", "/data/local/tmp/x")
assert(ok == nil and err:find("not a regular file", 1, true), err)
local good, msg = pcall(assets.push, "apks/app.apk", "relative/path")
assert(not good and msg:find("must be absolute", 1, true), msg)
`))
	require.NoError(t, err)
	data, err := fake.Pull(t.Context(), "/data/local/tmp/app.apk")
	require.NoError(t, err)
	assert.Equal(t, []byte("PK\x03\x04"), data)
	_, err = fake.Pull(t.Context(), "/data/local/tmp/x")
	assert.Error(t, err, "nothing else was pushed")
}
