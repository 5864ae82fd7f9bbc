package relay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/browsertest"
	"github.com/openpocket/openpocket/internal/humanauth"
	"github.com/openpocket/openpocket/internal/relay"
)

// pending adds a request and returns the relay's server and its link.
func pending(t *testing.T, store *humanauth.Store, id, capability string, tmpl map[string]any, ttl time.Duration) (*httptest.Server, string) {
	t.Helper()
	token, hash := humanauth.NewToken()
	now := time.Now().UTC()
	require.NoError(t, store.Add(humanauth.Pending{ID: id, AgentID: "default", Capability: capability,
		Instruction: "Approve the sign-in", UITemplate: tmpl, CreatedAt: now, ExpiresAt: now.Add(ttl), TokenHash: hash}))
	srv := httptest.NewServer(relay.New(store, relay.Options{}).Handler())
	t.Cleanup(srv.Close)
	return srv, srv.URL + "/a/default/auth/" + id + "?t=" + token
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(sel))
	require.NoError(t, err)
	return s
}

func TestEveryFieldTypeRendersAndSubmits(t *testing.T) {
	store := humanauth.Open(t.TempDir())
	tmpl := map[string]any{
		"title": "Pay the order", "summary": "Order #42, 19.90 EUR", "capabilityHint": "Card details stay on this machine.",
		"artifactKind": "auto", "approveLabel": "Pay now", "rejectLabel": "Cancel", "noteLabel": "Message", "allowTextAttachment": true,
		"style": map[string]any{"brandColor": "#0a7d38", "backgroundCss": "#eef6f0", "fontFamily": "Georgia, serif"},
		"fields": []any{
			map[string]any{"id": "name", "label": "Name", "type": "text", "required": true, "helperText": "As on the card"},
			map[string]any{"id": "addr", "label": "Address", "type": "textarea"},
			map[string]any{"id": "pw", "label": "Password", "type": "password", "artifactKey": "password"},
			map[string]any{"id": "mail", "label": "Email", "type": "email", "autocomplete": "email"},
			map[string]any{"id": "qty", "label": "Quantity", "type": "number"},
			map[string]any{"id": "day", "label": "Delivery", "type": "date"},
			map[string]any{"id": "ship", "label": "Shipping", "type": "select", "options": []any{
				map[string]any{"label": "Standard", "value": "std"}, map[string]any{"label": "Express", "value": "exp"}}},
			map[string]any{"id": "code", "label": "Code", "type": "otp"},
			map[string]any{"id": "card", "label": "Card", "type": "card-number", "placeholder": "1234 5678 9012 3456"},
			map[string]any{"id": "exp", "label": "Expiry", "type": "expiry"},
			map[string]any{"id": "cvc", "label": "CVC", "type": "cvc"},
		},
	}
	_, link := pending(t, store, "req-fields", "payment", tmpl, time.Minute)
	ctx := browsertest.Browser(t, browsertest.Phone)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible("#approve")))
	assert.Equal(t, "Pay the order", text(t, ctx, "#title"))
	assert.Equal(t, "Pay now", text(t, ctx, "#approve"))
	assert.Equal(t, "Cancel", text(t, ctx, "#reject"))
	types := map[string]string{"f_name": "text", "f_pw": "password", "f_mail": "email", "f_qty": "number", "f_day": "date",
		"f_code": "text", "f_card": "text", "f_exp": "text", "f_cvc": "password"}
	for id, want := range types {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("`+id+`").type`))
		require.NoError(t, err)
		assert.Equal(t, want, got, id)
	}
	ac, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("f_code").autocomplete`))
	require.NoError(t, err)
	assert.Equal(t, "one-time-code", ac)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue("#f_name", "Ada"), chromedp.SetValue("#f_addr", "1 Main St"), chromedp.SetValue("#f_pw", "s3cret-pw"),
		chromedp.SetValue("#f_mail", "ada@example.com"), chromedp.SetValue("#f_qty", "2"), chromedp.SetValue("#f_day", "2026-12-01"),
		chromedp.SetValue("#f_ship", "exp"), chromedp.SetValue("#f_code", "4242"), chromedp.SetValue("#f_card", "4111 1111 1111 1111"),
		chromedp.SetValue("#f_exp", "12/29"), chromedp.SetValue("#f_cvc", "123"), chromedp.SetValue("#note", "leave at door")))
	browsertest.Screenshot(t, ctx, "every-field")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click("#approve"), chromedp.WaitVisible("#message")))
	assert.Equal(t, "Approved", text(t, ctx, "#title"))

	d, ok, err := store.Decision("req-fields")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "approved", d.Status)
	assert.Equal(t, "the user approved (note: leave at door) and card details provided", d.Message)
	require.NotNil(t, d.Artifact)
	assert.Equal(t, store.ArtifactDir()+"/req-fields.json", d.Artifact.Path)
	var payload map[string]any
	data, err := os.ReadFile(d.Artifact.Path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &payload))
	assert.Equal(t, "payment_card", payload["kind"])
	assert.Equal(t, "payment", payload["capability"])
	assert.NotEmpty(t, payload["capturedAt"])
	assert.Equal(t, map[string]any{"name": "Ada", "addr": "1 Main St", "password": "[provided]", "mail": "ada@example.com", "qty": "2",
		"day": "2026-12-01", "ship": "exp", "code": "4242", "card": "[provided]", "exp": "[provided]", "cvc": "[provided]"}, payload["fields"])
	for _, secret := range []string{"s3cret-pw", "4111", "123\""} {
		assert.NotContains(t, string(data), secret)
	}

	// The link worked once.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible("#message")))
	assert.Equal(t, "Already answered", text(t, ctx, "#title"))
	assert.Contains(t, text(t, ctx, "#message"), "already answered")
}

func TestDefaultOTPPageRejectWithoutJavaScript(t *testing.T) {
	store := humanauth.Open(t.TempDir())
	srv, link := pending(t, store, "req-otp", "2fa", nil, time.Minute)
	// A plain form POST, as a browser without JavaScript sends it.
	res, err := http.Get(link)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, 200, res.StatusCode)
	h := res.Header
	assert.Contains(t, h.Get("Content-Security-Policy"), "connect-src 'none'")
	assert.Contains(t, h.Get("Content-Security-Policy"), "frame-ancestors 'none'")
	assert.Equal(t, "DENY", h.Get("X-Frame-Options"))
	assert.Equal(t, "no-referrer", h.Get("Referrer-Policy"))
	token := link[strings.Index(link, "?t=")+3:]
	res, err = http.PostForm(srv.URL+"/a/default/auth/req-otp", map[string][]string{"t": {"wrong"}, "decision": {"reject"}})
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, 404, res.StatusCode, "a wrong token is refused")
	res, err = http.PostForm(srv.URL+"/a/default/auth/req-otp", map[string][]string{"t": {token}, "decision": {"reject"}, "note": {"not me"}})
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, 200, res.StatusCode)
	d, ok, _ := store.Decision("req-otp")
	require.True(t, ok)
	assert.Equal(t, "rejected", d.Status)
	assert.Equal(t, "the user rejected the request: not me", d.Message)
	res, err = http.Get(srv.URL + "/a/default/auth/")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, 404, res.StatusCode, "no listing")
}

// The page is a plain form: approving an OTP works with JavaScript off.
func TestOTPApproveWithoutJavaScript(t *testing.T) {
	store := humanauth.Open(t.TempDir())
	_, link := pending(t, store, "req-nojs", "sms", nil, time.Minute)
	ctx := browsertest.Browser(t, browsertest.Phone)
	noJS := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	})
	// The page's script does not run: "Use my location" stays hidden.
	_, where := pending(t, store, "req-where", "location", nil, time.Minute)
	require.NoError(t, chromedp.Do(ctx, noJS, chromedp.Navigate(where), chromedp.WaitReady("#use-location")))
	hidden, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("use-location").hidden`))
	require.NoError(t, err)
	assert.True(t, hidden, "JavaScript is off")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible("#f_code")))
	require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys("#f_code", "90210"), chromedp.Click("#approve"), chromedp.WaitVisible("#message")))
	assert.Equal(t, "Approved", text(t, ctx, "#title"))
	d, ok, err := store.Decision("req-nojs")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "90210", d.Text)
	assert.Equal(t, "the user approved and provided text", d.Message)
	data, err := os.ReadFile(d.Artifact.Path)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"kind": "text"`)
	assert.Contains(t, string(data), `"value": "90210"`)
	assert.Contains(t, string(data), `"capability": "sms"`)
}

func TestExpiredLinkRefused(t *testing.T) {
	store := humanauth.Open(t.TempDir())
	_, link := pending(t, store, "req-old", "2fa", nil, -time.Second)
	ctx := browsertest.Browser(t, browsertest.Phone)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible("#message")))
	assert.Equal(t, "Link expired", text(t, ctx, "#title"))
	assert.Equal(t, "This request has expired: the agent no longer waits for an answer.", text(t, ctx, "#message"))
	browsertest.Screenshot(t, ctx, "expired")
}

// A template's scripts run in an opaque-origin sandbox: no cookies, no
// parent, no network, and not the page's URL (the token) as base.
func TestMiddleScriptIsConfined(t *testing.T) {
	store := humanauth.Open(t.TempDir())
	srv, other := pending(t, store, "req-other", "2fa", nil, time.Minute)
	_ = srv
	tmpl := map[string]any{
		"middleHtml": `<p id="m">Check the amount: <b>19.90 EUR</b></p>`,
		"middleCss":  `#m{color:#444}`,
		"middleScript": `window.r={};
try{r.cookie=document.cookie}catch(e){r.cookie="blocked:"+e.name}
try{r.parent=String(parent.document.title)}catch(e){r.parent="blocked:"+e.name}
try{r.top=String(top.location.href)}catch(e){r.top="blocked:"+e.name}
r.base=document.baseURI;r.ref=document.referrer;r.loc=location.href;
r.fetch="pending";fetch(` + "`" + other + "`" + `).then(function(){r.fetch="ok"},function(e){r.fetch="blocked:"+e.name});`,
		"approveScript": `return JSON.stringify(window.r)`,
	}
	_, link := pending(t, store, "req-evil", "payment", tmpl, time.Minute)
	token := link[strings.Index(link, "?t=")+3:]
	ctx := browsertest.Browser(t, browsertest.Phone)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible("#middle"), chromedp.Sleep(800*time.Millisecond)))
	browsertest.Screenshot(t, ctx, "middle-sandbox")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click("#approve"), chromedp.WaitVisible("#message")))
	d, ok, err := store.Decision("req-evil")
	require.NoError(t, err)
	require.True(t, ok)
	res := d.PageResult
	assert.Regexp(t, `^the user approved and the page's script returned a result \(\d+ characters, not shown\)$`, d.Message, "the model never reads the script's result")
	var r map[string]string
	require.NoError(t, json.Unmarshal([]byte(res), &r), res)
	assert.Equal(t, "blocked:SecurityError", r["cookie"])
	assert.Equal(t, "blocked:SecurityError", r["parent"])
	assert.Equal(t, "blocked:SecurityError", r["top"])
	assert.True(t, strings.HasPrefix(r["fetch"], "blocked"), r["fetch"])
	assert.NotContains(t, res, token)
	assert.NotContains(t, res, other[strings.Index(other, "?t=")+3:])
	_, stillPending, _ := store.Decision("req-other")
	assert.False(t, stillPending, "the other request was not answered")
}

// post sends a multipart form as a browser does.
func post(t *testing.T, url string, fields map[string]string, files map[string][]byte) *http.Response {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, v := range fields {
		require.NoError(t, w.WriteField(k, v))
	}
	for k, data := range files {
		fw, err := w.CreateFormFile(k, k+".upload")
		require.NoError(t, err)
		fw.Write(data)
	}
	require.NoError(t, w.Close())
	res, err := http.Post(url, w.FormDataContentType(), &body)
	require.NoError(t, err)
	res.Body.Close()
	return res
}

func TestFileAndAudioAttachments(t *testing.T) {
	store := humanauth.Open(t.TempDir())
	tmpl := map[string]any{"allowFileAttachment": true, "fileAccept": ".pdf,application/pdf", "allowAudioAttachment": true,
		"allowPhotoAttachment": false}
	srv, link := pending(t, store, "req-file", "files", tmpl, time.Minute)
	res, err := http.Get(link)
	require.NoError(t, err)
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Contains(t, string(page), `<input id="file" name="file" type="file" accept=".pdf,application/pdf">`)
	assert.Contains(t, string(page), `<input id="audio" name="audio" type="file" accept="audio/*" capture>`)
	assert.NotContains(t, string(page), `id="photo"`)
	token := link[strings.Index(link, "?t=")+3:]
	url := srv.URL + "/a/default/auth/req-file"
	pdf := []byte("%PDF-1.4\n1 0 obj\n<<>>\nendobj\n")
	// A photo the template does not allow is ignored; the file is stored.
	res = post(t, url, map[string]string{"t": token, "decision": "approve"}, map[string][]byte{"photo": tinyPNG, "file": pdf})
	assert.Equal(t, 200, res.StatusCode)
	d, ok, err := store.Decision("req-file")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "the user approved and sent a file", d.Message)
	require.NotNil(t, d.Artifact)
	assert.Equal(t, "file", d.Artifact.Kind)
	assert.Equal(t, "application/pdf", d.Artifact.MIME)
	assert.Equal(t, filepath.Join(store.ArtifactDir(), "req-file.bin"), d.Artifact.Path, "docs/formats.md: unknown MIME types are .bin")
	data, err := os.ReadFile(d.Artifact.Path)
	require.NoError(t, err)
	assert.Equal(t, pdf, data)
	// A second POST with the same token is refused.
	res = post(t, url, map[string]string{"t": token, "decision": "reject"}, nil)
	assert.Equal(t, http.StatusGone, res.StatusCode)
}

func TestOversizedBodyRefused(t *testing.T) {
	store := humanauth.Open(t.TempDir())
	srv, link := pending(t, store, "req-big", "camera", nil, time.Minute)
	token := link[strings.Index(link, "?t=")+3:]
	res := post(t, srv.URL+"/a/default/auth/req-big", map[string]string{"t": token, "decision": "approve"},
		map[string][]byte{"photo": bytes.Repeat([]byte{0xff}, 13<<20)})
	assert.Equal(t, http.StatusRequestEntityTooLarge, res.StatusCode)
	_, decided, _ := store.Decision("req-big")
	assert.False(t, decided)
}

func TestPhotoMustBeAnImage(t *testing.T) {
	store := humanauth.Open(t.TempDir())
	srv, link := pending(t, store, "req-img", "camera", nil, time.Minute)
	token := link[strings.Index(link, "?t=")+3:]
	res := post(t, srv.URL+"/a/default/auth/req-img", map[string]string{"t": token, "decision": "approve"},
		map[string][]byte{"photo": []byte("#!/bin/sh\necho hi\n")})
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	res = post(t, srv.URL+"/a/default/auth/req-img", map[string]string{"t": token, "decision": "approve"},
		map[string][]byte{"photo": tinyPNG})
	assert.Equal(t, 200, res.StatusCode)
	d, _, _ := store.Decision("req-img")
	assert.Equal(t, "image", d.Artifact.Kind)
	assert.Equal(t, filepath.Join(store.ArtifactDir(), "req-img.png"), d.Artifact.Path)
}

// tinyPNG is a 1×1 PNG.
var tinyPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")
