package adb

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResolveOrder: --device › --sim › $ANDROID_SERIAL › the agent's
// binding › config's target › the only attached device, each rule
// winning over every later one; the attached devices are listed only
// when nothing earlier decides.
func TestResolveOrder(t *testing.T) {
	full := Selection{Agent: "shop", Flag: "flag-1", Sim: "sim-1", Env: "env-1",
		BoundDevice: "bound-1", ConfigDevice: "config-1"}
	one := []DeviceInfo{{Serial: "only-1", State: "device"}}
	cases := []struct {
		name   string
		sel    Selection
		serial string
		source Source
	}{
		{"the flag beats everything", full, "flag-1", FromFlag},
		{"--target is the flag too", Selection{Endpoint: "10.0.0.9:5555", Env: "env-1"}, "", FromEndpoint},
		{"the virtual phone of --sim", drop(full, "flag"), "sim-1", FromSim},
		{"ANDROID_SERIAL", drop(full, "flag", "sim"), "env-1", FromEnv},
		{"the agent's binding", drop(full, "flag", "sim", "env"), "bound-1", FromBinding},
		{"config's target", drop(full, "flag", "sim", "env", "bound"), "config-1", FromConfig},
		{"the only attached device", Selection{Agent: "shop"}, "only-1", FromOnly},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			listed := false
			ch, err := Resolve(context.Background(), c.sel, func(context.Context) ([]DeviceInfo, error) { listed = true; return one, nil })
			require.NoError(t, err)
			assert.Equal(t, c.serial, ch.Serial)
			assert.Equal(t, c.source, ch.Source)
			assert.Equal(t, c.source == FromOnly, listed, "the adb server is asked only for the last rule")
		})
	}
}

func drop(s Selection, which ...string) Selection {
	for _, w := range which {
		switch w {
		case "flag":
			s.Flag = ""
		case "sim":
			s.Sim = ""
		case "env":
			s.Env = ""
		case "bound":
			s.BoundDevice, s.BoundEndpoint = "", ""
		}
	}
	return s
}

// TestResolveSaysWhenANDROID_SERIALOverridesTheBinding: the environment
// wins, and says so naming both; the same serial says nothing.
func TestResolveSaysWhenANDROID_SERIALOverridesTheBinding(t *testing.T) {
	c, ok := Static(Selection{Agent: "shop", Env: "emulator-5556", BoundDevice: "emulator-5554"})
	require.True(t, ok)
	assert.Equal(t, "emulator-5556", c.Serial)
	assert.Contains(t, c.Note, "ANDROID_SERIAL=emulator-5556 overrides agent shop's bound target emulator-5554")
	c, _ = Static(Selection{Agent: "shop", Env: "emulator-5554", BoundDevice: "emulator-5554"})
	assert.Empty(t, c.Note)
}

// TestResolveNamesTheChoices: several phones and nothing chosen names
// each with its state and the ways to choose; none attached says how to
// get one.
func TestResolveNamesTheChoices(t *testing.T) {
	three := []DeviceInfo{{Serial: "a", State: "device"}, {Serial: "b", State: "unauthorized"}, {Serial: "c", State: "device"}}
	_, err := Resolve(context.Background(), Selection{Agent: "shop"}, func(context.Context) ([]DeviceInfo, error) { return three, nil })
	require.ErrorIs(t, err, ErrMultipleDevices)
	for _, want := range []string{"a (device)", "b (unauthorized)", "c (device)", "--device SERIAL", "ANDROID_SERIAL", "target set", "agent shop"} {
		assert.Contains(t, err.Error(), want)
	}
	_, err = Resolve(context.Background(), Selection{}, func(context.Context) ([]DeviceInfo, error) { return nil, nil })
	require.ErrorIs(t, err, ErrNoDevice)
	assert.Contains(t, err.Error(), "openpocket emulator start")
	boom := errors.New("server gone")
	_, err = Resolve(context.Background(), Selection{}, func(context.Context) ([]DeviceInfo, error) { return nil, boom })
	assert.ErrorIs(t, err, boom)
}
