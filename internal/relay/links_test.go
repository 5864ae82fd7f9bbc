package relay_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/browsertest"
	"github.com/openpocket/openpocket/internal/humanauth"
	"github.com/openpocket/openpocket/internal/relay"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

// TestUsedAndExpiredLinksSaySo: after the run has read the answer and
// closed the request, its link answers 410 "already answered"; a request
// nobody answered in time answers 410 "expired"; a wrong token or an
// unknown id get the same 404 page, byte for byte.
func TestUsedAndExpiredLinksSaySo(t *testing.T) {
	store := humanauth.Open(t.TempDir())
	srv, used := pending(t, store, "req-used", "2fa", nil, time.Minute)
	require.NoError(t, store.Decide("req-used", humanauth.Decision{Status: "approved", Text: "123456", By: "web"}))
	store.Close("req-used") // the run read the answer

	_, expired := pending(t, store, "req-late", "2fa", nil, time.Minute)
	require.NoError(t, store.Decide("req-late", humanauth.Decision{Status: "timeout", By: "timeout"}))
	store.Close("req-late")

	_, live := pending(t, store, "req-live", "2fa", nil, -time.Second) // past its expiry, not yet closed

	code, body := get(t, used)
	assert.Equal(t, http.StatusGone, code)
	assert.Contains(t, body, "Already answered")
	assert.NotContains(t, body, "123456")
	code, body = get(t, expired)
	assert.Equal(t, http.StatusGone, code)
	assert.Contains(t, body, "Link expired")
	code, body = get(t, live)
	assert.Equal(t, http.StatusGone, code)
	assert.Contains(t, body, "Link expired")

	wrong := used[:strings.Index(used, "?t=")] + "?t=" + strings.Repeat("A", 43)
	codeW, bodyW := get(t, wrong)
	codeU, bodyU := get(t, srv.URL+"/a/default/auth/req-nobody?t="+strings.Repeat("A", 43))
	assert.Equal(t, http.StatusNotFound, codeW)
	assert.Equal(t, http.StatusNotFound, codeU)
	assert.Equal(t, stripNonce(bodyU), stripNonce(bodyW), "a wrong token tells nothing an unknown id does not")
	codeO, _ := get(t, srv.URL+"/a/other/auth/req-used"+used[strings.Index(used, "?t="):])
	assert.Equal(t, http.StatusNotFound, codeO, "another agent's path")
}

// stripNonce removes the per-response CSP nonce from a page.
func stripNonce(s string) string {
	for {
		i := strings.Index(s, `nonce="`)
		if i < 0 {
			return s
		}
		j := strings.Index(s[i+7:], `"`)
		s = s[:i] + s[i+7+j+1:]
	}
}

// TestPagesFitAPhone: the approval page names the agent and its task and
// counts down; it and the answered/expired pages fit 390 px without
// horizontal scrolling.
func TestPagesFitAPhone(t *testing.T) {
	store := humanauth.Open(t.TempDir())
	token, hash := humanauth.NewToken()
	now := time.Now().UTC()
	long := strings.Repeat("averyveryverylongwordwithoutanyspaces", 4)
	require.NoError(t, store.Add(humanauth.Pending{ID: "req-phone", AgentID: "default", Task: "Pay the electricity bill " + long,
		Capability: "payment", Instruction: "Confirm 42.00 EUR to " + long, CreatedAt: now, ExpiresAt: now.Add(5 * time.Minute), TokenHash: hash,
		UITemplate: map[string]any{"artifactKind": "payment_card", "fields": []any{
			map[string]any{"id": "card", "label": "Card number", "type": "card-number"},
			map[string]any{"id": "cvc", "label": "CVC", "type": "cvc"}}}}))
	srv := httptest.NewServer(relay.New(store, relay.Options{}).Handler())
	t.Cleanup(srv.Close)
	link := srv.URL + "/a/default/auth/req-phone?t=" + token
	_, expired := pending(t, store, "req-gone", "2fa", nil, -time.Second)

	ctx := browsertest.Browser(t, browsertest.Viewport{Width: 390, Height: 844, Mobile: true})
	fits := func(name string) {
		t.Helper()
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.scrollingElement.scrollWidth <= innerWidth`))
		require.NoError(t, err)
		assert.True(t, ok, "%s overflows 390 px", name)
		browsertest.Screenshot(t, ctx, name)
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible("#approve"), chromedp.Sleep(1200*time.Millisecond)))
	assert.Contains(t, text(t, ctx, "#asker"), "Agent default asks")
	assert.Contains(t, text(t, ctx, "#task"), "Pay the electricity bill")
	assert.Regexp(t, `\((4|5) min \d+ s left\)`, text(t, ctx, "#expiry"))
	fits("relay-page-390")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(expired), chromedp.WaitVisible("#message")))
	fits("relay-expired-390")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/a/default/auth/nope?t=x"), chromedp.WaitVisible("#message")))
	fits("relay-notfound-390")
}

// TestBodiesOfStrangersAreNotRead: a POST to an unknown request or with a
// wrong token is refused before its body is read — the answer comes while
// the client is still sending (a 12 MB upload from a stranger costs
// nothing) — and the real page posts its token in the URL.
func TestBodiesOfStrangersAreNotRead(t *testing.T) {
	store := humanauth.Open(t.TempDir())
	srv, link := pending(t, store, "req-body", "camera", nil, time.Minute)
	for _, url := range []string{
		srv.URL + "/a/default/auth/req-nobody?t=" + strings.Repeat("A", 43),
		srv.URL + "/a/default/auth/req-body?t=" + strings.Repeat("B", 43),
	} {
		pr, pw := io.Pipe()
		go func() {
			pw.Write([]byte(strings.Repeat("x", 1024))) // then nothing: the sender stalls
		}()
		req, err := http.NewRequest(http.MethodPost, url, pr)
		require.NoError(t, err)
		req.Header.Set("Content-Type", "multipart/form-data; boundary=zzz")
		req.ContentLength = 12 << 20
		done := make(chan int, 1)
		go func() {
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				done <- -1
				return
			}
			res.Body.Close()
			done <- res.StatusCode
		}()
		select {
		case code := <-done:
			assert.Equal(t, http.StatusNotFound, code, url)
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no answer before the body was sent: the relay reads bodies before checking the token", url)
		}
		pw.Close()
	}

	token := link[strings.Index(link, "?t=")+3:]
	ctx := browsertest.Browser(t, browsertest.Phone)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible("#approve")))
	action, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("auth").getAttribute("action")`))
	require.NoError(t, err)
	assert.Equal(t, "/a/default/auth/req-body?t="+token, action, "the token travels in the URL, checked first")
}
