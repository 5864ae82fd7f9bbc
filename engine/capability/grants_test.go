package capability

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/device/devicetest"
)

// A dumpsys package as Android 13 lays it out (abridged, written for this
// test): sections before "Packages:", install permissions that are
// granted=true but never asked for, runtime permissions per user, and
// "Hidden system packages:" after.
const dumpsysPackages = `Database versions:
  Internal:
    sdkVersion=33 databaseVersion=3

Activity Resolver Table:
  Non-Data Actions:
      android.intent.action.MAIN:
        5a3e2f1 com.example.cam/.Main filter 8c1d2e3

Packages:
  Package [com.example.cam] (1f2e3d4):
    userId=10150
    pkg=Package{8b7c6d5 com.example.cam}
    requested permissions:
      android.permission.CAMERA
      android.permission.RECORD_AUDIO
      android.permission.INTERNET
    install permissions:
      android.permission.INTERNET: granted=true
    User 0: ceDataInode=41230 installed=true hidden=false suspended=false stopped=false notLaunched=false enabled=0 instant=false virtual=false
      gids=[3003]
      runtime permissions:
        android.permission.CAMERA: granted=true, flags=[ USER_SET|USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED ]
        android.permission.RECORD_AUDIO: granted=false, flags=[ USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED ]
      enabledComponents:
    User 10: ceDataInode=51230 installed=true hidden=false suspended=false stopped=true notLaunched=true enabled=0 instant=false virtual=false
      runtime permissions:
        android.permission.RECORD_AUDIO: granted=true, flags=[ USER_SET ]
  Package [com.example.maps] (2a3b4c5):
    userId=10151
    install permissions:
      android.permission.ACCESS_NETWORK_STATE: granted=true
    User 0: ceDataInode=41231 installed=true
      runtime permissions:
        android.permission.ACCESS_FINE_LOCATION: granted=false, flags=[ ]
        android.permission.ACCESS_COARSE_LOCATION: granted=true, flags=[ USER_SET|ONE_TIME ]

Hidden system packages:
  Package [com.android.providers.media] (4e1f2a0):
    userId=10040
`

func TestParseGrantsReadsRuntimePermissionsOnly(t *testing.T) {
	g := ParseGrants(dumpsysPackages)
	assert.Equal(t, Grants{
		{"com.example.cam", "android.permission.CAMERA"}:                  true,
		{"com.example.cam", "android.permission.RECORD_AUDIO"}:            true, // user 10 holds it
		{"com.example.maps", "android.permission.ACCESS_COARSE_LOCATION"}: true,
	}, g, "install permissions and denied ones are not grants")

	// `dumpsys package PKG` on older builds: runtime permissions right
	// under the package.
	old := "Packages:\n  Package [com.x] (abc):\n    runtime permissions:\n      android.permission.CAMERA: granted=true, flags=[ USER_SET ]\n    enabledComponents:\n"
	assert.Equal(t, Grants{{"com.x", "android.permission.CAMERA"}: true}, ParseGrants(old))
	assert.Empty(t, ParseGrants("Can't find service: package\n"))
}

func TestPermissionGroupOfRuntimePermissions(t *testing.T) {
	for perm, group := range map[string]string{
		"android.permission.CAMERA": "camera", "android.permission.RECORD_AUDIO": "microphone",
		"android.permission.ACCESS_BACKGROUND_LOCATION": "location", "android.permission.READ_MEDIA_IMAGES": "photos",
		"android.permission.POST_NOTIFICATIONS": "notifications", "android.permission.BLUETOOTH_SCAN": "nearby_devices",
		"android.permission.READ_MEDIA_AUDIO": "", "com.example.permission.X": "",
	} {
		assert.Equal(t, group, PermissionGroup(perm), perm)
		if group != "" {
			assert.NoError(t, CheckGroup(group), "every group is one a policy can name")
		}
	}
}

func TestHoldRevokesNewGrantsThePolicyDoesNotAllow(t *testing.T) {
	fake := devicetest.New().OnOutput("pm revoke", "")
	p := device.NewPhone(fake, device.Options{})
	pol := &Policy{Source: "humanAuth.permissions", Default: Deny,
		Groups: map[string]Answer{"notifications": Allow, "camera": Once},
		Apps:   map[string]map[string]Answer{"com.example.maps": {"location": Allow}}}
	before := Grants{{"com.example.cam", "android.permission.CAMERA"}: true}
	after := Grants{
		{"com.example.cam", "android.permission.CAMERA"}:                 true, // held before: not the command's
		{"com.example.cam", "android.permission.RECORD_AUDIO"}:           true, // default deny
		{"com.example.chat", "android.permission.CAMERA"}:                true, // camera: once, outlived
		{"com.example.chat", "android.permission.POST_NOTIFICATIONS"}:    true, // allowed
		{"com.example.maps", "android.permission.ACCESS_FINE_LOCATION"}:  true, // allowed for this app
		{"com.example.other", "android.permission.ACCESS_FINE_LOCATION"}: true, // default deny
		{"com.example.x", "android.permission.READ_MEDIA_AUDIO"}:         true, // no group: denied
	}
	held, err := pol.Hold(context.Background(), p, before, after)
	require.NoError(t, err)
	var lines []string
	for _, h := range held {
		lines = append(lines, h.Line("shell"))
	}
	assert.Equal(t, []string{
		"local_vm_permission=revoked microphone for com.example.cam: android.permission.RECORD_AUDIO granted by a shell action, not a dialog; humanAuth.permissions.default",
		"local_vm_permission=revoked camera for com.example.chat: android.permission.CAMERA granted by a shell action, not a dialog; humanAuth.permissions.groups.camera",
		"local_vm_permission=revoked location for com.example.other: android.permission.ACCESS_FINE_LOCATION granted by a shell action, not a dialog; humanAuth.permissions.default",
		"local_vm_permission=revoked unknown for com.example.x: android.permission.READ_MEDIA_AUDIO granted by a shell action, not a dialog; an unrecognised permission is denied",
	}, lines)
	assert.Equal(t, []string{
		"pm revoke com.example.cam android.permission.RECORD_AUDIO",
		"pm revoke com.example.chat android.permission.CAMERA",
		"pm revoke com.example.other android.permission.ACCESS_FINE_LOCATION",
		"pm revoke com.example.x android.permission.READ_MEDIA_AUDIO",
	}, fake.CallsWithPrefix("pm revoke"))

	// A revoke that fails is an error (the action fails closed).
	failing := devicetest.New().OnExit("pm revoke", "", "java.lang.SecurityException", 255)
	_, err = pol.Hold(context.Background(), device.NewPhone(failing, device.Options{}), nil, after)
	assert.ErrorContains(t, err, "SecurityException")
}
