package simtest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	adb "github.com/zach-klippenstein/goadb"

	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

func TestStartAttachesAndCleanupDetaches(t *testing.T) {
	client, err := adb.NewWithConfig(adb.ServerConfig{})
	require.NoError(t, err)
	var serial string
	t.Run("phone", func(t *testing.T) {
		phone := simtest.Start(t, simtest.WithModel("Helper Phone"), simtest.WithSize(480, 800), simtest.WithDensity(240))
		serial = phone.Serial()
		state, err := client.Device(adb.DeviceWithSerial(serial)).State()
		require.NoError(t, err)
		assert.Equal(t, adb.StateOnline, state)
		assert.Equal(t, 480, phone.Phone().Screenshot().Bounds().Dx())
		assert.Contains(t, phone.Phone().Banner(), "Helper_Phone")
	})
	_, err = client.Device(adb.DeviceWithSerial(serial)).State()
	assert.Error(t, err, "the cleanup must detach the phone")
}

func TestOptionsApply(t *testing.T) {
	var o sim.Options
	for _, opt := range []func(*sim.Options){simtest.WithSize(1, 2), simtest.WithDensity(3), simtest.WithModel("m")} {
		opt(&o)
	}
	assert.Equal(t, sim.Options{Width: 1, Height: 2, Density: 3, Model: "m"}, o)
}
