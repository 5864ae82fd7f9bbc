package main_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/browsertest"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/sim/android"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/workspace"
)

// payByCardMark opens the Pay app on the phone and returns the element
// mark of its "Pay by card" button, as the model will see it, then goes
// home.
func payByCardMark(t *testing.T, serial string) string {
	t.Helper()
	ctx := context.Background()
	tr, err := adb.NewClient(adb.DefaultServer).Open(ctx, adb.Target{Serial: serial})
	require.NoError(t, err)
	p := device.NewPhone(tr, device.Options{})
	_, err = p.LaunchApp(ctx, android.PkgPay)
	require.NoError(t, err)
	snap, err := p.Capture(ctx, device.CaptureOptions{Scaled: true, NoCache: true})
	require.NoError(t, err)
	_, err = p.Shell(ctx, "input keyevent KEYCODE_HOME")
	require.NoError(t, err)
	for _, e := range snap.UIElements {
		if e.Text == "Pay by card" {
			return e.ID
		}
	}
	t.Fatal("no \"Pay by card\" among the Pay app's elements")
	return ""
}

// The card a person types on the relay page. The CVC is checked only
// where no other digit touches it, so a timestamp cannot match by chance.
const (
	payCardNumber = "4000 0566 5566 5556"
	payCardDigits = "4000056655665556"
	payCardCVC    = "7391"
)

var payCVCRe = regexp.MustCompile(`(^|[^0-9])` + payCardCVC + `([^0-9]|$)`)

// imageData strips the screenshots out of a model request: base64 holds
// digits that could spell the CVC by chance.
var imageData = regexp.MustCompile(`data:image/[a-z]+;base64,[A-Za-z0-9+/=]+`)

// TestPaymentCardFromTheRelayPagePays: a request_human_auth for a payment
// on the Pay app's secure card form (FLAG_SECURE, no elements) is approved
// with a card on the relay page in headless Chromium, with stdin closed.
// The runtime types the card into the form field by field, moving focus as
// a keyboard does; the model submits; the phone records a payment with that
// card, and neither the home nor any request to the model holds its number
// or CVC.
func TestPaymentCardFromTheRelayPagePays(t *testing.T) {
	phone := simtest.Start(t)
	phone.Phone().InstallCapabilityApps()
	mark := payByCardMark(t, phone.Serial())
	srv := llmtest.NewServer(t)
	srv.ReplyTool("launch_app", map[string]any{"packageName": android.PkgPay})
	srv.ReplyTool("tap_element", map[string]any{"elementId": mark, "thought": "pay by card"})
	srv.ReplyTool("request_human_auth", map[string]any{"capability": "payment", "instruction": "Pay 19.90 EUR by card", "timeoutSec": 120,
		"uiTemplate": map[string]any{"artifactKind": "payment_card", "fields": []any{
			map[string]any{"id": "card_number", "label": "Card number", "type": "card-number", "required": true},
			map[string]any{"id": "expiry", "label": "Expiry", "type": "expiry", "required": true},
			map[string]any{"id": "cvc", "label": "CVC", "type": "cvc", "required": true},
			map[string]any{"id": "name", "label": "Name on card", "type": "text", "required": true}}}})
	srv.ReplyTool("keyevent", map[string]any{"keycode": "KEYCODE_ENTER", "thought": "the form's Pay action"})
	srv.ReplyTool("finish", map[string]any{"message": "paid"})
	home := authHome(t, srv, func(c *workspace.Config) { c.Agent.ReturnHomeOnTaskEnd = false })
	run := startAgent(t, home, phone.Serial(), nil, "pay the order by card")
	ctx := browsertest.Browser(t, browsertest.Viewport{Width: 390, Height: 844, Mobile: true})

	_, url := run.link(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible("#f_card_number"),
		chromedp.SendKeys("#f_card_number", payCardNumber), chromedp.SendKeys("#f_expiry", "11/31"),
		chromedp.SendKeys("#f_cvc", payCardCVC), chromedp.SendKeys("#f_name", "Ada Lovelace"),
		chromedp.Click("#approve"), chromedp.WaitVisible("#message")))

	assert.Equal(t, 0, exitCode(t, run.cmd, run.stdout), run.errText())
	card, paid := phone.Phone().CardPaid()
	require.True(t, paid, "no payment on the phone; stderr:\n%s", run.errText())
	assert.Equal(t, android.CardPayment{Number: payCardDigits, Expiry: "11/31", CVC: payCardCVC, Name: "Ada Lovelace"}, card)
	s := sessionText(t, home)
	assert.Contains(t, s, "human_artifact_kind=payment_card fields=card_number (secret),expiry (secret),cvc (secret),name")
	assert.Contains(t, s, "delegation_result=typed cvc (secret) (4 characters) into field 3 of the secure form")

	for _, r := range srv.Requests() {
		raw := imageData.ReplaceAllString(string(r.Raw), "")
		assert.NotContains(t, raw, payCardDigits, "the model never reads the card number")
		assert.NotContains(t, raw, payCardNumber)
		assert.False(t, payCVCRe.MatchString(raw), "the model never reads the CVC")
	}
	for path, text := range filesUnder(t, home) {
		assert.NotContains(t, text, payCardDigits, path)
		assert.NotContains(t, text, payCardNumber, path)
		assert.False(t, payCVCRe.MatchString(text), "CVC in %s", path)
	}
	assert.False(t, strings.Contains(run.errText(), payCardDigits), "stderr holds the card number")
}
