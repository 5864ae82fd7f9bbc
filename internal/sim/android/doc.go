// Package android is the simulated Android 14 phone behind the virtual
// device: a deterministic state machine with a few apps, a renderer, a
// uiautomator dumper and the subset of /system/bin/sh and its commands that
// the runtime uses. *Phone implements adbd.Handler, so the adbd protocol
// server can expose it to the real adb server.
//
// Everything is deterministic: the status bar clock is frozen at 12:00,
// there is no randomness and no map iteration in any output, so the same
// commands give the same screens and byte-identical PNGs. Renders, PNGs,
// layouts and dumps are cached per state version and rebuilt only after a
// change.
//
// # Apps
//
// Launcher com.android.launcher3/.Launcher: a row of icons, each a clickable
// FrameLayout (content-desc = label, resource-id com.android.launcher3:id/icon)
// with a TextView child: "Settings", "Notes", "Login", "Contacts"; below
// them folders and the dock (see Chat and Wallet).
//
// Settings com.android.settings/.Settings: rows "Wi-Fi" (Switch
// com.android.settings:id/wifi_switch, starts on), "Bluetooth" (Switch
// com.android.settings:id/bluetooth_switch, starts off) and "About phone"
// (→ .AboutPhoneActivity: Model, Android version 14, Build number). Tapping a
// row or its switch toggles it; `settings get|put global wifi_on` and
// bluetooth_on read and write the same state. A last row "Notifications"
// opens .NotificationSettingsActivity ("App notifications"): one row per
// app (most recently used first, then by name), each a TextView
// android:id/title beside a Switch android:id/switch_widget — the toggles
// look alike, only the row's title tells them apart (NotificationsOn).
//
// System dialogs of package android pop up over any app on demand:
// ShowANRDialog ("<app> isn't responding": android:id/alertTitle, Buttons
// android:id/aerr_close "Close app", android:id/aerr_wait "Wait") and
// ShowInputMethodPicker ("Choose input method": CheckedTextViews
// android:id/text1 in android:id/select_dialog_listview); BACK closes both,
// as ShowPermissionDialog's permission prompt.
//
// Notes com.openpocket.notes/.MainActivity: EditText
// com.openpocket.notes:id/note_input (hint "Write a note"), Button "Save"
// com.openpocket.notes:id/save, saved notes as TextViews
// com.openpocket.notes:id/note_item, newest last (long-press one to delete
// it). The first launch after boot, Reset or `pm clear` shows the permission
// dialog com.android.permissioncontroller/.permission.ui.GrantPermissionsActivity
// ("Allow Notes to send you notifications?",
// com.android.permissioncontroller:id/permission_message, buttons
// ..:id/permission_allow_button "Allow" and ..:id/permission_deny_button
// "Don't allow"); either button or BACK (a denial) dismisses it, and the
// answer is a grant of POST_NOTIFICATIONS or not.
//
// Capability apps (capapps.go, permdialog.go), installed only by
// InstallCapabilityApps so the default phone's package lists stay: Camera
// com.openpocket.camera/.CameraActivity (asks for the camera on launch; a
// TextureView preview, ImageButton :id/shutter_button "Take photo", a
// thumbnail "Open photos" opening the photo picker
// com.android.providers.media.module/.photopicker.PhotoPickerActivity with
// :id/icon_thumbnail items "Photo taken on …"), Maps
// com.openpocket.maps/.MapActivity (asks for the location), Pay
// com.openpocket.pay/.CheckoutActivity ("Buy with Google Pay" opens a
// Google Pay sheet com.google.android.gms/.wallet.ib.IbPaymentRequestCompatActivity,
// "Pay by card" a FLAG_SECURE form drawn into one SurfaceView: no element,
// black screencap, yet four fields (card number, expiry, CVC, name) that
// TAB and the IME's Next reach in order; ENTER on the last pays and
// CardPaid returns the card; cardform.go), Recorder
// com.openpocket.recorder/.SoundRecorder (after AOSP's Sound Recorder:
// :id/timerView, ImageButton :id/recordButton "Record", which asks for
// the microphone before recording, then :id/stopButton "Stop";
// recorderapp.go). Their permission dialogs are Android 14's: "While
// using the app" (:id/permission_allow_foreground_only_button), "Only this
// time" (:id/permission_allow_one_time_button, revoked when the app's task
// ends) and "Don't allow"; PermissionAnswers records every button pressed
// and `dumpsys package PKG` prints the grants (granted=, flags USER_SET,
// ONE_TIME).
//
// Login com.openpocket.login/.LoginActivity: EditTexts
// com.openpocket.login:id/username and com.openpocket.login:id/password
// (password="true", shown as • in the dump), Button "Log in"
// com.openpocket.login:id/login, disabled while the user name is empty. The
// password is "hunter2" (LoginPassword); a wrong one shows TextView
// com.openpocket.login:id/error "Wrong password". Then .OtpActivity ("Enter
// the 6-digit code", EditText com.openpocket.login:id/otp, Button "Verify"
// com.openpocket.login:id/verify; the code is "123456" unless SetOTP changed
// it; a wrong one shows "Wrong code"), then .HomeActivity with TextView
// com.openpocket.login:id/welcome "Welcome, <username>" and a "Log out"
// button com.openpocket.login:id/logout.
//
// Contacts com.openpocket.contacts/.ContactsActivity: RecyclerView
// com.openpocket.contacts:id/list (scrollable) of 60 contacts sorted by name,
// "Aaron Abbott" to "Zoe Zimmerman", rows are clickable LinearLayouts with a
// TextView com.openpocket.contacts:id/name; only visible rows are in the
// dump. A vertical `input swipe` starting on the list scrolls it by the
// swipe distance, clamped at both ends. A row opens .ContactDetailActivity
// (com.openpocket.contacts:id/contact_name, :id/contact_phone "+1 555-01NN").
//
// Chat com.openpocket.chat/.ChatsActivity: a list of conversations whose
// rows are clickable LinearLayouts without a label of their own (children:
// avatar ImageView "Open photo", :id/conversation_name, snippet, time, an
// unread badge), a bottom tab bar whose tabs are described by a child
// ("Chats, 2 new messages, tab 1 of 3") above a badge grandchild ("2"); a
// row opens .ConversationActivity (EditText :id/entry "Message", ImageButton
// "Send"; ChatMessages reads what was sent).
//
// Wallet com.openpocket.wallet/.HomeActivity: four round clickable icons
// (:id/layout_quickBankingMenuCircle, unlabelled) captioned by sibling
// TextViews under them (Transfer, Top-up, Pay bill, Withdraw), a row
// labelled with private-use icon glyphs (U+F01F0 alone, "U+E68C Statements"),
// a Compose-style section (a clickable android.view.View labelled by its
// child next to an unlabelled, non-clickable android.widget.Button; a
// FrameLayout wrapper with exactly the bounds of the Button "Cards" in it)
// and radio buttons in a disabled RadioGroup. Each control opens
// .ActionActivity titled by it (WalletScreen).
//
// Tasks com.openpocket.tasks/.TasksActivity (tasks.go): rows of a 24 dp
// CheckBox and a title; the toolbar badge counts the tasks left (TaskDone).
// Shop com.openpocket.shop/.CheckoutActivity (shop.go): a checkout inside
// a container with enabled="false" (its controls enabled), a disabled
// "Apply coupon", radio rows whose RadioButton's only id is "checkbox", a
// small switch in a described row, a long-press-only seller note, a glyph
// back button and bottom tabs with zero-size captions (ShopLog).
//
// The launcher also has folders "Tools" and "Money" (FrameLayout "Folder:
// NAME" with 26 dp clickable preview thumbnails; a tap opens the folder's
// panel, BACK closes it) and a dock (:id/hotseat: Chat, Wallet, Contacts,
// Settings as described TextViews without text).
//
// System UI (package com.android.systemui) is two more window roots in the
// dump: the status bar (24dp, TextView :id/clock "12:00") and the navigation
// bar (48dp, ImageViews :id/back "Back", :id/home "Home", :id/recent_apps
// "Overview"; tapping them works like the keys).
//
// More windows appear on demand: the notification shade (PostNotification
// adds a status-bar icon and an entry; a swipe down from the status bar or
// `cmd statusbar expand-notifications` opens it, with Internet and
// Bluetooth tiles), a Gboard-like soft keyboard (package
// com.google.android.inputmethod.latin, keys :id/key_pos_ROW_COL as
// clickable, focusable FrameLayouts described by their letter, plus
// key_pos_del, key_pos_ime_action, …) while a field is focused (unless
// SetSoftKeyboard(false)), and the keyguard.
//
// # Lock screen and device quirks
//
// SetLockScreen(true, PIN) makes going to sleep (POWER, SLEEP, Sleep) lock
// the phone: after WAKEUP the keyguard window "NotificationShade" hides the
// app ("Swipe up to unlock"); a swipe up or `wm dismiss-keyguard` shows the
// PIN pad (:id/pinEntry, :id/key0…key9, "Delete", "Enter"), where `input
// text` digits and ENTER unlock. `dumpsys power` prints mWakefulness and
// mInteractive; `dumpsys window policy` prints the lock-screen lines of the
// Android version SetSDK chose (mShowingLockscreen ≤ 5.1, isStatusBarKeyguard
// 6–9, KeyguardServiceDelegate showing= 8+), `dumpsys activity activities`
// ends with KeyguardController mKeyguardShowing (8+). SetSecureScreen
// blacks out one activity's window (bars still drawn, fl=… SECURE),
// SetFocusStyle makes dumps name the app only by a package-titled focus
// window or only in `dumpsys activity top`, and SetClipboardReadable(false)
// makes `cmd clipboard get text` print null.
//
// # Input
//
// Tapping an EditText focuses it; `input text`, KEYCODE_PASTE, digits,
// letters, SPACE and DEL edit the focused field; ENTER saves a note, moves
// from user name to password, submits the password and the code. BACK pops
// the activity stack (dialogs first), HOME shows the launcher, SLEEP/WAKEUP/
// POWER turn the screen off and on (off: black screencap, touches ignored).
// `input text` refuses non-ASCII text with a Java exception on stderr and
// exit status 1, as devices do; use `cmd clipboard set text` + PASTE.
//
// # Shell
//
// See shell.go for the sh subset and commands.go, input.go and system.go
// for the commands: input, screencap, uiautomator dump, dumpsys
// window|activity|power, wm size|density, getprop, pm list packages|path|
// clear|query-activities|resolve-activity, cmd package|clipboard|activity|
// settings|input|window, monkey, am start|force-stop|broadcast (media.go: the media scanner), settings, echo, ls, cat,
// rm, mkdir, grep, head, tail, wc, sleep, true, false, id, whoami, pwd, sh -c.
// Unknown commands print "/system/bin/sh: NAME: not found" and exit 127.
//
// devicecmds.go and recorder.go add what Maestro-style steps use: pm grant|
// revoke (runtime permissions the apps request; granting Notes'
// POST_NOTIFICATIONS skips its dialog), pm install of a pushed file whose
// first bytes are a ZIP header (a stub package named after the file), am
// start -a android.intent.action.VIEW -d URI (notes://note?text=…,
// contacts://, login:// deep links) and intent extras (LaunchExtras), cmd
// connectivity airplane-mode (radios off, restored after), cmd location
// providers set-test-provider-location, cmd uimode night, dumpsys
// input_method (mInputShown), volume, D-pad, media and TV keys (KeyLog,
// Volume), and screenrecord: it runs until --time-limit (≤ 180 s), pkill
// -INT screenrecord or the shell closing, then writes an MP4 container
// (ftyp, moov with mvhd/tkhd/mdhd durations, an empty sample table, mdat)
// whose duration is the time recorded.
package android
