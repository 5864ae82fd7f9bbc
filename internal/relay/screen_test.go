package relay_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/browsertest"
	"github.com/openpocket/openpocket/internal/humanauth"
	"github.com/openpocket/openpocket/internal/relay"
)

// fakePhone is the relay's phone port: a fixed picture, recorded taps.
type fakePhone struct {
	mu    sync.Mutex
	shots int
	taps  [][3]any
}

// onePixelPNG is a valid 1×1 PNG.
const onePixelPNG = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82"

func (f *fakePhone) Screen(ctx context.Context, serial string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shots++
	return []byte(onePixelPNG), nil
}

func (f *fakePhone) Tap(ctx context.Context, serial string, x, y int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.taps = append(f.taps, [3]any{serial, x, y})
	return nil
}

func (f *fakePhone) tapCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.taps)
}

// screenRequest adds a request on device "emulator-5554" and serves it
// with the fake phone.
func screenRequest(t *testing.T, takeover bool, ttl time.Duration) (*humanauth.Store, *fakePhone, string, string) {
	t.Helper()
	store := humanauth.Open(t.TempDir())
	token, hash := humanauth.NewToken()
	now := time.Now().UTC()
	require.NoError(t, store.Add(humanauth.Pending{ID: "req-screen", AgentID: "default", Capability: "2fa", Instruction: "Code",
		CreatedAt: now, ExpiresAt: now.Add(ttl), TokenHash: hash, Device: "emulator-5554", Takeover: takeover}))
	ph := &fakePhone{}
	srv := httptest.NewServer(relay.New(store, relay.Options{Phone: ph}).Handler())
	t.Cleanup(srv.Close)
	return store, ph, srv.URL + "/a/default/auth/req-screen", token
}

func getURL(t *testing.T, u string) (*http.Response, string) {
	t.Helper()
	res, err := http.Get(u)
	require.NoError(t, err)
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res, string(b)
}

func postTap(t *testing.T, u string) int {
	t.Helper()
	res, err := http.PostForm(u, url.Values{"x": {"5"}, "y": {"7"}})
	require.NoError(t, err)
	res.Body.Close()
	return res.StatusCode
}

func TestScreenOnlyForAPendingRequestsToken(t *testing.T) {
	store, ph, page, token := screenRequest(t, true, time.Minute)
	res, body := getURL(t, page+"/screen?t="+token)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "image/png", res.Header.Get("Content-Type"))
	assert.Equal(t, "no-store", res.Header.Get("Cache-Control"))
	assert.Equal(t, onePixelPNG, body)

	res, _ = getURL(t, page+"/screen?t=wrong")
	assert.Equal(t, http.StatusNotFound, res.StatusCode, "a wrong token gets no picture")
	assert.Equal(t, http.StatusNotFound, postTap(t, page+"/tap?t=wrong"))
	assert.Equal(t, http.StatusNoContent, postTap(t, page+"/tap?t="+token))
	assert.Equal(t, [][3]any{{"emulator-5554", 5, 7}}, ph.taps)

	require.NoError(t, store.Decide("req-screen", humanauth.Decision{Status: "approved", By: "web"}))
	res, _ = getURL(t, page+"/screen?t="+token)
	assert.Equal(t, http.StatusGone, res.StatusCode, "a used link gets no picture")
	assert.Equal(t, http.StatusGone, postTap(t, page+"/tap?t="+token), "a used link passes no tap")
	assert.Equal(t, 1, ph.tapCount())
	assert.Equal(t, 1, ph.shots)
}

func TestScreenExpiredLink(t *testing.T) {
	_, ph, page, token := screenRequest(t, true, time.Millisecond)
	time.Sleep(5 * time.Millisecond)
	res, _ := getURL(t, page+"/screen?t="+token)
	assert.Equal(t, http.StatusGone, res.StatusCode)
	assert.Equal(t, http.StatusGone, postTap(t, page+"/tap?t="+token))
	assert.Zero(t, ph.shots)
	assert.Zero(t, ph.tapCount())
}

// TestTakeoverCanBeTurnedOff: with humanAuth.takeover false the page
// shows the screen but offers no tapping, and a tap POST is refused.
func TestTakeoverCanBeTurnedOff(t *testing.T) {
	_, ph, page, token := screenRequest(t, false, time.Minute)
	assert.Equal(t, http.StatusForbidden, postTap(t, page+"/tap?t="+token))
	assert.Zero(t, ph.tapCount())
	ctx := browsertest.Browser(t, browsertest.Viewport{Width: 390, Height: 844, Mobile: true})
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(page+"?t="+token), chromedp.WaitVisible("#screen")))
	forms, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#tapform").length`))
	require.NoError(t, err)
	assert.Zero(t, forms, "no takeover form")
	caption, err := chromedp.Run(ctx, chromedp.Text("#screen-box figcaption"))
	require.NoError(t, err)
	assert.False(t, strings.Contains(caption, "tap it"), caption)
	overflow, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
	require.NoError(t, err)
	assert.False(t, overflow)
}
