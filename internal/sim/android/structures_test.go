package android

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPINKeyguardLifecycle(t *testing.T) {
	p := New(Options{})
	launch(t, p, PkgSettings)
	p.SetLockScreen(true, "2468")
	assert.False(t, p.Locked(), "the lock applies the next time the screen goes off")

	mustRun(t, p, "input keyevent POWER")
	assert.False(t, p.Awake())
	assert.True(t, p.Locked())
	r, g, b, _ := decodePNG(t, p.ScreenPNG()).At(540, 1200).RGBA()
	assert.Equal(t, [3]uint32{0, 0, 0}, [3]uint32{r, g, b}, "the screen renders black when asleep")
	assert.Contains(t, mustRun(t, p, "dumpsys power"), "mWakefulness=Asleep")
	assert.Equal(t, "  mScreenState=OFF\n", mustRun(t, p, "dumpsys display | grep mScreenState="))

	mustRun(t, p, "input keyevent KEYCODE_WAKEUP")
	h := dump(t, p)
	assert.True(t, h.has(byText("Swipe up to unlock")), "the lock screen covers the app")
	assert.False(t, h.has(byText("Wi-Fi")), "the app is not in the dump behind the keyguard")
	assert.Contains(t, mustRun(t, p, "dumpsys window windows | grep mCurrentFocus"), "NotificationShade")
	assert.Equal(t, PkgSettings, p.CurrentPackage(), "the app stays resumed under the keyguard")
	mustRun(t, p, "input keyevent HOME")
	assert.True(t, p.Locked(), "HOME does not pass the keyguard")

	mustRun(t, p, "wm dismiss-keyguard")
	h = dump(t, p)
	assert.True(t, h.has(byID(PkgSystemUI+":id/pinEntry")), "dismiss-keyguard shows the PIN pad on a secure keyguard")
	for _, d := range "1357" {
		tapNode(t, p, "key "+string(d), byID(PkgSystemUI+":id/key"+string(d)))
	}
	tapNode(t, p, "enter", byDesc("Enter"))
	assert.True(t, p.Locked())
	assert.Equal(t, 1, p.UnlockAttempts())
	assert.True(t, dump(t, p).has(byText("Wrong PIN")))

	mustRun(t, p, "input text 2468")
	mustRun(t, p, "input keyevent ENTER")
	assert.False(t, p.Locked())
	assert.True(t, dump(t, p).has(byText("Wi-Fi")), "unlocked: back in the app")
}

func TestSwipeKeyguardAndSwipeUp(t *testing.T) {
	p := New(Options{})
	p.SetLockScreen(true, "")
	p.Sleep()
	mustRun(t, p, "input keyevent 224") // WAKEUP by number
	require.True(t, p.Locked())
	mustRun(t, p, "input swipe 540 2000 540 600 200")
	assert.False(t, p.Locked(), "a swipe keyguard goes away with a swipe up")

	p.SetLockScreen(true, "12")
	p.Sleep()
	mustRun(t, p, "input keyevent WAKEUP")
	mustRun(t, p, "input swipe 540 2000 540 600 200")
	assert.True(t, p.Locked())
	assert.True(t, dump(t, p).has(byText("Enter PIN")), "a swipe up opens the PIN pad")
	p.SetLockScreen(false, "")
	assert.False(t, p.Locked())
}

func TestWindowPolicyLinesByAndroidVersion(t *testing.T) {
	cases := []struct {
		sdk              int
		want, notWant    []string
		release, sdkProp string
	}{
		{22, []string{"mShowingLockscreen=true"}, []string{"isStatusBarKeyguard", "KeyguardServiceDelegate"}, "5.1", "22"},
		{27, []string{"isStatusBarKeyguard=true", "KeyguardServiceDelegate\n      showing=true"}, []string{"mShowingLockscreen"}, "8.1.0", "27"},
		{34, []string{"KeyguardServiceDelegate\n      showing=true"}, []string{"isStatusBarKeyguard", "mShowingLockscreen"}, "14", "34"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.sdk), func(t *testing.T) {
			p := New(Options{})
			p.SetSDK(c.sdk)
			p.SetLockScreen(true, "1")
			p.Sleep()
			policy := mustRun(t, p, "dumpsys window policy")
			assert.True(t, strings.HasPrefix(policy, "WINDOW MANAGER POLICY STATE (dumpsys window policy)\n"))
			for _, w := range c.want {
				assert.Contains(t, policy, w)
			}
			for _, w := range c.notWant {
				assert.NotContains(t, policy, w)
			}
			assert.Equal(t, c.release+"\n", mustRun(t, p, "getprop ro.build.version.release"))
			assert.Equal(t, c.sdkProp+"\n", mustRun(t, p, "getprop ro.build.version.sdk"))
			assert.Contains(t, mustRun(t, p, "dumpsys window"), policy, "plain dumpsys window starts with the policy")
			mustRun(t, p, "input keyevent WAKEUP")
			mustRun(t, p, "wm dismiss-keyguard")
			mustRun(t, p, "input text 1 && input keyevent ENTER")
			assert.NotContains(t, mustRun(t, p, "dumpsys window policy"), "=true\n      inputRestricted")
			assert.False(t, p.Locked())
		})
	}
	p := New(Options{})
	assert.Contains(t, mustRun(t, p, "dumpsys activity activities"), "KeyguardController:\n    mKeyguardShowing=false\n")
}

func TestSoftKeyboardWindowLikeGboard(t *testing.T) {
	p := New(Options{})
	p.SetSoftKeyboard(true)
	launch(t, p, PkgLogin)
	assert.False(t, dump(t, p).has(func(n xmlNode) bool { return n.Package == PkgKeyboard }), "no keyboard without a focused field")
	tapNode(t, p, "user name", byID(fieldUsername))
	h := dump(t, p)
	q := h.find(t, "the q key", byID(PkgKeyboard+":id/key_pos_0_0"))
	assert.Equal(t, "q", q.Desc)
	assert.Equal(t, "true", q.Clickable)
	assert.Equal(t, "android.widget.FrameLayout", q.Class)
	assert.Equal(t, "Next", h.find(t, "enter key", byID(PkgKeyboard+":id/key_pos_ime_action")).Desc)
	keys := 0
	for _, n := range h.all() {
		if strings.Contains(n.ResourceID, ":id/key_pos_") {
			keys++
		}
	}
	assert.Greater(t, keys, 30, "a full keyboard of key nodes")
	assert.Contains(t, mustRun(t, p, "dumpsys window windows"), "ty=INPUT_METHOD")

	tapNode(t, p, "h", byDesc("h"))
	tapNode(t, p, "i", byDesc("i"))
	assert.Equal(t, "hi", p.FocusedText(), "tapping keys types")
	tapNode(t, p, "delete", byDesc("Delete"))
	assert.Equal(t, "h", p.FocusedText())
	tapNode(t, p, "next", byID(PkgKeyboard+":id/key_pos_ime_action"))
	assert.True(t, dump(t, p).find(t, "password", byID(fieldPassword)).Focused == "true")
	mustRun(t, p, "input keyevent BACK")
	assert.False(t, dump(t, p).has(func(n xmlNode) bool { return n.Package == PkgKeyboard }))
}

func TestNotificationShadeWindow(t *testing.T) {
	p := New(Options{})
	launch(t, p, PkgSettings)
	p.PostNotification("Chat", "Alice Johnson", "See you at 6")
	h := dump(t, p)
	assert.True(t, h.has(byDesc("Chat notification: Alice Johnson")), "a notification icon in the status bar")
	mustRun(t, p, "input swipe 540 10 540 1200 200")
	require.True(t, p.ShadeOpen())
	h = dump(t, p)
	assert.True(t, h.has(byText("See you at 6")))
	assert.True(t, h.has(byDesc("Internet, On")))
	assert.Contains(t, mustRun(t, p, "dumpsys window windows | grep mCurrentFocus"), "NotificationShade")
	tapNode(t, p, "internet tile", byDesc("Internet, On"))
	assert.False(t, p.WifiOn(), "quick settings work")
	mustRun(t, p, "input keyevent BACK")
	assert.False(t, p.ShadeOpen())
	assert.Equal(t, PkgSettings, p.CurrentPackage(), "BACK closes the shade, not the app")
	mustRun(t, p, "cmd statusbar expand-notifications")
	assert.True(t, p.ShadeOpen())
	shade := parseBounds(t, dump(t, p).find(t, "shade window", byID(PkgSystemUI+":id/notification_shade")).Bounds)
	assert.Equal(t, [4]int{0, 0, 1080, 2400}, shade, "the shade window covers the screen")
	mustRun(t, p, "input tap 540 2000")
	assert.False(t, p.ShadeOpen(), "a tap outside the panel collapses the shade")
	assert.Equal(t, PkgSettings, p.CurrentPackage(), "and reaches nothing behind it")
	mustRun(t, p, "cmd statusbar expand-notifications")
	mustRun(t, p, "cmd statusbar collapse")
	assert.False(t, p.ShadeOpen())
}

func TestLauncherFoldersAndDock(t *testing.T) {
	p := New(Options{})
	h := dump(t, p)
	folder := h.find(t, "folder", byDesc("Folder: Tools"))
	require.Len(t, folder.Children, 4, "three thumbnails and a label")
	thumb := parseBounds(t, folder.Children[0].Bounds)
	assert.Equal(t, 68, thumb[2]-thumb[0], "26 dp thumbnails")
	assert.True(t, h.has(byID(PkgLauncher+":id/hotseat")))
	assert.True(t, h.has(func(n xmlNode) bool { return n.Desc == "Chat" && n.Class == clsText && n.Text == "" }), "dock icons are described, unlabelled")
	tapNode(t, p, "folder", byDesc("Folder: Tools"))
	h = dump(t, p)
	assert.True(t, h.has(byID(PkgLauncher+":id/folder_content")))
	mustRun(t, p, "input keyevent BACK")
	assert.False(t, dump(t, p).has(byID(PkgLauncher+":id/folder_content")), "BACK closes the folder")
	tapNode(t, p, "folder", byDesc("Folder: Money"))
	tapNode(t, p, "wallet in folder", func(n xmlNode) bool { return n.Text == "Wallet" })
	assert.Equal(t, PkgWallet, p.CurrentPackage())
	mustRun(t, p, "input keyevent HOME")
	tapNode(t, p, "dock chat", func(n xmlNode) bool { return n.Desc == "Chat" && n.Class == clsText })
	assert.Equal(t, PkgChat, p.CurrentPackage())
}

func TestChatListRowsAndTabs(t *testing.T) {
	p := New(Options{})
	launch(t, p, PkgChat)
	h := dump(t, p)
	row := h.find(t, "a conversation row", byID(PkgChat+":id/conversation_row"))
	assert.Equal(t, "true", row.Clickable)
	assert.Empty(t, row.Text+row.Desc, "the row has no label of its own")
	var childIDs []string
	for _, c := range row.Children {
		childIDs = append(childIDs, strings.TrimPrefix(c.ResourceID, PkgChat+":id/"))
	}
	assert.Equal(t, []string{"avatar", "conversation_name", "conversation_snippet", "conversation_time", "unread_count"}, childIDs)
	assert.Equal(t, "Open photo", row.Children[0].Desc)
	tab := h.find(t, "chats tab", byID(PkgChat+":id/tab"))
	assert.Equal(t, "Chats, 2 new messages, tab 1 of 3", tab.Children[0].Desc)
	assert.Equal(t, "2", tab.Children[0].Children[0].Text, "the grandchild is only the badge")

	p.SetSoftKeyboard(true)
	tapNode(t, p, "Bob's row", func(n xmlNode) bool { return n.Text == "Bob Smith" })
	assert.Equal(t, PkgChat+"/.ConversationActivity", p.CurrentActivity())
	tapNode(t, p, "message field", byID(fieldChat))
	h = dump(t, p)
	send := parseBounds(t, h.find(t, "send", byDesc("Send")).Bounds)
	kb := h.find(t, "keyboard", func(n xmlNode) bool { return n.Package == PkgKeyboard })
	assert.LessOrEqual(t, send[3], parseBounds(t, kb.Bounds)[1], "the compose bar sits above the keyboard")
	mustRun(t, p, "input text on%smy%sway")
	tapNode(t, p, "send", byDesc("Send"))
	assert.Equal(t, []string{"on my way"}, p.ChatMessages("Bob Smith"))
}

func TestWalletCaptionsComposeNoiseAndGlyphs(t *testing.T) {
	p := New(Options{})
	launch(t, p, PkgWallet)
	h := dump(t, p)
	var circles []xmlNode
	for _, n := range h.all() {
		if n.ResourceID == PkgWallet+":id/quickBankingMenuItem" {
			require.Len(t, n.Children, 2)
			circles = append(circles, n)
		}
	}
	require.Len(t, circles, 4)
	icon, caption := circles[1].Children[0], circles[1].Children[1]
	assert.Equal(t, "true", icon.Clickable)
	assert.Empty(t, icon.Text+icon.Desc, "the round icon is unlabelled")
	assert.Equal(t, "Top-up", caption.Text, "its caption is a sibling")
	ib, cb := parseBounds(t, icon.Bounds), parseBounds(t, caption.Bounds)
	assert.Greater(t, cb[1], ib[3]-1, "the caption is under the icon")

	assert.True(t, h.has(byText("\U000F01F0")), "a lone plane-15 icon glyph")
	assert.True(t, h.has(byText("\uE68C Statements")), "a BMP private-use glyph before a caption")
	assert.True(t, h.has(func(n xmlNode) bool {
		return n.Class == clsButton && n.Text == "" && n.Desc == "" && n.Clickable == "false"
	}), "a Compose Button node with no label that takes no clicks")
	wrapper := h.find(t, "wrapper", byID(PkgWallet+":id/card_button_wrapper"))
	assert.Equal(t, wrapper.Bounds, wrapper.Children[0].Bounds, "the wrapper has exactly the Button's bounds")
	group := h.find(t, "radio group", byID(PkgWallet+":id/statement_period"))
	assert.Equal(t, "false", group.Enabled)
	assert.Equal(t, "true", group.Children[0].Enabled, "children of a disabled group still say enabled")

	x, y := center(t, icon)
	mustRun(t, p, fmt.Sprintf("input tap %d %d", x, y))
	assert.Equal(t, "Top-up", p.WalletScreen())
	mustRun(t, p, "input keyevent BACK")
	tapNode(t, p, "add money", byText("Add money"))
	assert.Equal(t, "Add money", p.WalletScreen())
}

func TestSecureScreenKeepsSystemBars(t *testing.T) {
	p := New(Options{})
	launch(t, p, PkgSettings)
	p.SetSecureScreen(PkgSettings+"/.Settings", true)
	img := decodePNG(t, p.ScreenPNG())
	r, g, b, _ := img.At(540, 1200).RGBA()
	assert.Equal(t, [3]uint32{0, 0, 0}, [3]uint32{r, g, b}, "the secure window is black")
	assert.NotEqual(t, img.At(540, 1200), img.At(60, 30), "the status bar clock is still drawn")
	assert.Regexp(t, `fl=.*\bSECURE\b`, mustRun(t, p, "dumpsys window windows"))
}

func TestClipboardRefusingReads(t *testing.T) {
	p := New(Options{})
	p.SetClipboardReadable(false)
	mustRun(t, p, "cmd clipboard set text secret")
	assert.Equal(t, "null\n", mustRun(t, p, "cmd clipboard get text"))
	assert.Equal(t, "secret", p.Clipboard(), "the clip is still set and pastes")
}
