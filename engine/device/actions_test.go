package device_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/device/devicetest"
	"github.com/openpocket/openpocket/engine/screen"
)

func newPhone(f *devicetest.Fake) *device.Phone {
	f.OnOutput("wm size", "Physical size: 1080x2400\n")
	f.OnOutput("input ", "")
	return device.NewPhone(f, device.Options{})
}

func act(typ string, params map[string]any) action.Action {
	return action.Action{Type: typ, Params: params}
}

func TestTapScalesRoundsAndClamps(t *testing.T) {
	f := devicetest.New()
	p := newPhone(f)
	snap := &screen.Snapshot{ScaleX: 1080.0 / 768, ScaleY: 2400.0 / 1707}
	out, err := p.Execute(context.Background(), act("tap", map[string]any{"x": 384, "y": 853}), device.ActOptions{Snapshot: snap, Scaled: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"input tap 540 1199"}, f.CallsWithPrefix("input tap"))
	assert.Equal(t, "Tapped at (540, 1199)", out.Result)
	assert.Equal(t, 540, out.Device.Int("x"))

	_, err = p.Execute(context.Background(), act("tap", map[string]any{"x": 5000, "y": -3}), device.ActOptions{})
	require.NoError(t, err)
	assert.Equal(t, "input tap 1079 0", f.CallsWithPrefix("input tap")[1], "clamped to [0,w-1]/[0,h-1]")
}

func TestTapElement(t *testing.T) {
	f := devicetest.New()
	p := newPhone(f)
	snap := &screen.Snapshot{UIElements: []screen.UIElement{
		{ID: "1", Text: "Wi-Fi", Center: screen.Point{X: 200, Y: 300}, Bounds: screen.Rect{Left: 0, Top: 250, Right: 1080, Bottom: 350}},
	}}
	out, err := p.Execute(context.Background(), act("tap_element", map[string]any{"elementId": "1"}), device.ActOptions{Snapshot: snap})
	require.NoError(t, err)
	assert.Equal(t, []string{"input tap 200 300"}, f.CallsWithPrefix("input tap"))
	require.NotNil(t, out.Element)
	assert.Equal(t, "Wi-Fi", out.Element.Text)
	assert.Equal(t, "tap", out.Device.Type, "replay sees a device tap")

	out, err = p.Execute(context.Background(), act("tap_element", map[string]any{"elementId": "9"}), device.ActOptions{Snapshot: snap})
	require.NoError(t, err, "an unknown id is a result, not a crash")
	assert.Contains(t, out.Result, `Element "9" is not in the current element list (ids 1..1)`)
	assert.Len(t, f.CallsWithPrefix("input tap"), 1, "nothing tapped")
}

func TestSwipeDurationsHaveFloors(t *testing.T) {
	f := devicetest.New()
	p := newPhone(f)
	_, err := p.Execute(context.Background(), act("swipe", map[string]any{"x1": 10, "y1": 20, "x2": 30, "y2": 40, "durationMs": 5}), device.ActOptions{})
	require.NoError(t, err)
	_, err = p.Execute(context.Background(), act("long_press_drag", map[string]any{"x1": 1, "y1": 2, "x2": 3, "y2": 4, "holdMs": 450, "durationMs": 300}), device.ActOptions{})
	require.NoError(t, err)
	_, err = p.Execute(context.Background(), act("long_press_drag", map[string]any{"x1": 1, "y1": 2, "x2": 3, "y2": 4, "holdMs": 0, "durationMs": 0}), device.ActOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"input swipe 10 20 30 40 100", "input swipe 1 2 3 4 750", "input swipe 1 2 3 4 220"}, f.CallsWithPrefix("input swipe"))
}

func TestTypeASCIIUsesInputText(t *testing.T) {
	f := devicetest.New()
	p := newPhone(f)
	res, err := p.Type(context.Background(), "hi there!")
	require.NoError(t, err)
	assert.Equal(t, []string{`input text hi%sthere\!`}, f.CallsWithPrefix("input text"))
	assert.Contains(t, res, "via input text")
	assert.Empty(t, f.CallsWithPrefix("cmd clipboard"))
}

func TestTypeNonASCIIUsesVerifiedClipboard(t *testing.T) {
	f := devicetest.New()
	p := newPhone(f)
	var clip string
	f.On("cmd clipboard set text ", func(cmd string) (device.ShellResult, error) {
		words, err := device.SplitCommand(cmd)
		require.NoError(t, err)
		clip = words[4]
		return device.ShellResult{}, nil
	})
	f.On("cmd clipboard get text", func(string) (device.ShellResult, error) {
		return device.ShellResult{Stdout: []byte(clip + "\n")}, nil
	})
	res, err := p.Type(context.Background(), "日本語 ✓ it's")
	require.NoError(t, err)
	assert.Equal(t, "日本語 ✓ it's", clip, "quoting survives the device shell's word splitting")
	assert.Contains(t, res, "via clipboard paste")
	assert.Equal(t, []string{"input keyevent KEYCODE_PASTE"}, f.CallsWithPrefix("input keyevent"))
	assert.Empty(t, f.CallsWithPrefix("input text"), "non-ASCII never goes through input text")
}

func TestTypeFallsBackWhenInputTextFails(t *testing.T) {
	f := devicetest.New()
	p := newPhone(f)
	f.OnExit("input text", "", "Exception occurred while executing 'text'", 1)
	f.OnOutput("cmd clipboard set", "")
	f.OnOutput("cmd clipboard get text", "plain\n")
	res, err := p.Type(context.Background(), "plain")
	require.NoError(t, err)
	assert.Contains(t, res, "via clipboard paste")

	f.OnOutput("cmd clipboard get text", "something else\n")
	_, err = p.Type(context.Background(), "plain")
	assert.ErrorContains(t, err, "clipboard did not keep the text")
	assert.ErrorContains(t, err, "Text input failed (input text: ")
}

func TestLaunchAppFallbackChain(t *testing.T) {
	f := devicetest.New()
	p := newPhone(f)
	f.OnExit("monkey", "** No activities found to run, monkey aborted.\n", "", 252)
	f.OnOutput("cmd package resolve-activity --brief com.x", "priority=0 preferredOrder=0 match=0x108000\ncom.x/.Main\n")
	f.OnOutput("am start -n", "Starting: Intent { cmp=com.x/.Main }\n")
	res, err := p.LaunchApp(context.Background(), "com.x")
	require.NoError(t, err)
	assert.Equal(t, "Launched com.x via am start -n com.x/.Main", res)

	f.OnOutput("cmd package resolve-activity --brief com.y", "No activity found\n")
	f.OnOutput("am start -a", "Starting: Intent { act=android.intent.action.MAIN }\n")
	res, err = p.LaunchApp(context.Background(), "com.y")
	require.NoError(t, err)
	assert.Equal(t, "Launched com.y via am start -p", res)

	f.OnExit("am start -a", "", "Error: Activity not started, unable to resolve Intent", 1)
	_, err = p.LaunchApp(context.Background(), "com.y")
	assert.ErrorContains(t, err, "launch_app com.y failed: monkey: ** No activities found")
}

func TestShellActionTokenizesAndTruncates(t *testing.T) {
	f := devicetest.New()
	p := newPhone(f)
	f.OnOutput("sh -c", strings.Repeat("x", 5000))
	res, err := p.ShellAction(context.Background(), `adb shell sh -c 'echo "a b" | wc'`)
	require.NoError(t, err)
	assert.Equal(t, []string{`sh -c 'echo "a b" | wc'`}, f.CallsWithPrefix("sh"))
	assert.True(t, strings.HasPrefix(res, "shell exitCode=0\n"))
	assert.Contains(t, res, "...[truncated]...")
	assert.LessOrEqual(t, len([]rune(res)), 3000+len("shell exitCode=0\n"))

	res, err = p.ShellAction(context.Background(), `echo 'unterminated`)
	require.NoError(t, err)
	assert.Contains(t, res, "shell rejected: unterminated ' quote")

	before := len(f.Calls())
	res, err = p.ShellAction(context.Background(), `adb shell`)
	require.NoError(t, err)
	assert.Equal(t, "shell rejected: empty command", res)
	assert.Len(t, f.Calls(), before, "a bare prefix never opens an interactive shell")
}

func TestWaitHasFloorAndHonoursCancel(t *testing.T) {
	f := devicetest.New()
	p := newPhone(f)
	start := time.Now()
	out, err := p.Execute(context.Background(), act("wait", map[string]any{"durationMs": 1}), device.ActOptions{})
	require.NoError(t, err)
	assert.Equal(t, "Waited 100 ms", out.Result)
	assert.GreaterOrEqual(t, time.Since(start), 100*time.Millisecond)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = p.Execute(ctx, act("wait", map[string]any{"durationMs": 60000}), device.ActOptions{})
	assert.ErrorIs(t, err, context.Canceled)
}

func TestKeyeventAndFinish(t *testing.T) {
	f := devicetest.New()
	p := newPhone(f)
	out, err := p.Execute(context.Background(), act("keyevent", map[string]any{"keycode": "KEYCODE_BACK"}), device.ActOptions{})
	require.NoError(t, err)
	assert.Equal(t, "Sent keyevent KEYCODE_BACK", out.Result)
	out, err = p.Execute(context.Background(), act("finish", map[string]any{"message": "done"}), device.ActOptions{})
	require.NoError(t, err)
	assert.True(t, out.Finished)
}

// Upstream's parseExplicitShellWrap passes the script of `sh|bash -c|-lc`
// as one adb argument; the device line quotes it so it stays one.
func TestJoinShellWordsKeepsWrappedScriptsWhole(t *testing.T) {
	for in, want := range map[string]string{
		`sh -lc 'echo first && echo second'`: `sh -lc 'echo first && echo second'`,
		`bash -c 'echo a; echo b'`:           `bash -c 'echo a; echo b'`,
		`sh -l -c 'echo a | wc -l'`:          `sh -l -c 'echo a | wc -l'`,
		`sh -c 'echo $0 $1' zero one`:        `sh -c 'echo $0 $1' zero one`,
		`echo a && echo b`:                   `echo a && echo b`,
		`sh script.sh -c`:                    `sh script.sh -c`,
	} {
		words, err := device.SplitCommand(in)
		require.NoError(t, err)
		assert.Equal(t, want, device.JoinShellWords(words), in)
	}
}
