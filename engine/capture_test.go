package engine_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/device/devicetest"
	"github.com/openpocket/openpocket/engine/screen"
)

// keyboardDump is an app with a field and a Send button, and a keyboard
// window with two keys.
const keyboardDump = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">` +
	`<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.x" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][360,800]">` +
	`<node index="0" text="" resource-id="com.x:id/to" class="android.widget.EditText" package="com.x" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="true" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[20,100][260,160]" hint="To" />` +
	`<node index="1" text="" resource-id="com.x:id/send" class="android.widget.ImageButton" package="com.x" content-desc="Send" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[280,100][340,160]" /></node>` +
	`<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.google.android.inputmethod.latin" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,500][360,800]">` +
	`<node index="0" text="" resource-id="com.google.android.inputmethod.latin:id/key_pos_0_0" class="android.widget.FrameLayout" package="com.google.android.inputmethod.latin" content-desc="q" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,520][36,600]" />` +
	`<node index="1" text="" resource-id="com.google.android.inputmethod.latin:id/key_pos_ime_action" class="android.widget.FrameLayout" package="com.google.android.inputmethod.latin" content-desc="Search" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[280,700][360,800]" /></node></hierarchy>`

func keyboardPhone(t *testing.T) *devicetest.Fake {
	img := image.NewNRGBA(image.Rect(0, 0, 360, 800))
	for i := range img.Pix {
		img.Pix[i] = 0x80
	}
	img.Set(10, 10, color.NRGBA{255, 0, 0, 255})
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	f := devicetest.New()
	f.OnOutput("wm size", "Physical size: 360x800\n").
		OnOutput("screencap -p", b.String()).
		OnOutput("dumpsys activity activities", "  topResumedActivity=ActivityRecord{1 u0 com.x/.Main t1}\n").
		OnOutput("dumpsys window windows", "  mCurrentFocus=Window{a u0 com.x/com.x.Main}\n").
		OnOutput("uiautomator dump", keyboardDump).
		OnOutput("pm query-activities", "    packageName=com.x\n")
	return f
}

// TestSessionCaptureFoldsTheKeyboardUnlessTheTaskNeedsKeys: the agent's
// capture goes through the session, whose task decides whether the
// keyboard's keys are listed.
func TestSessionCaptureFoldsTheKeyboardUnlessTheTaskNeedsKeys(t *testing.T) {
	for _, tc := range []struct {
		task string
		keys bool
	}{
		{"send Ada a message saying hi", false},
		{"press the search key on the keyboard", true},
	} {
		f := keyboardPhone(t)
		e := &engine.Engine{OpenDevice: func(context.Context) (engine.Device, error) { return f, nil }}
		s, err := e.NewSession(context.Background(), engine.SessionOptions{Task: tc.task})
		require.NoError(t, err)
		snap, err := s.Capture(device.CaptureOptions{Scaled: true})
		require.NoError(t, err)
		block := screen.ElementBlock(snap.UIElements, snap.UINotes)
		assert.Contains(t, block, `label="Send" clickable=true`, tc.task)
		assert.Contains(t, block, `label="To" clickable=true class=EditText`, tc.task)
		if tc.keys {
			assert.Contains(t, block, "[keyboard]\n", tc.task)
			assert.Contains(t, block, `label="Search" clickable=true`, tc.task)
			assert.NotContains(t, block, screen.KeyboardNote, tc.task)
		} else {
			assert.NotContains(t, block, `label="q"`, tc.task)
			assert.Contains(t, snap.UINotes, screen.KeyboardNote, tc.task)
		}
	}
}
