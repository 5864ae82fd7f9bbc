package stdlib_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A script that taps the Wi-Fi switch by its element id and reads the
// state back from the next screen.capture(), ten times: every capture
// after a tap shows the new state, whether read from the numbered
// elements' tree or through a selector.
func TestScreenCaptureFreshAfterEachToggle(t *testing.T) {
	r := newRig(t)
	ph := r.sim.Phone()
	r.eval(`device.launch_app("com.android.settings")`)
	start := ph.WifiOn()
	out := r.eval(`(function()
		local states = {}
		local s = screen.capture()
		for i = 1, 10 do
			local id
			for _, e in ipairs(s.elements) do
				if e.resource_id == "com.android.settings:id/wifi_switch" then id = e.id end
			end
			device.tap_element(id)
			s = screen.capture()
			states[i] = tostring(s:find({id = "wifi_switch"}).checked)
		end
		return table.concat(states, ",")
	end)()`)
	require.Len(t, out, 1)
	var want []string
	on := start
	for i := 0; i < 10; i++ {
		on = !on
		if on {
			want = append(want, "true")
		} else {
			want = append(want, "false")
		}
	}
	assert.Equal(t, strings.Join(want, ","), out[0])
	assert.Equal(t, start, ph.WifiOn(), "ten toggles")
}
