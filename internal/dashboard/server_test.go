package dashboard

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeAgent records what the pages asked of it.
type fakeAgent struct {
	acts    []string
	enabled map[string]bool
	md      string
}

func (f *fakeAgent) Summary(context.Context) (AgentSummary, error) {
	return AgentSummary{ID: "a", TargetType: "emulator", Binding: "emulator-5554", Gateway: "stopped"}, nil
}
func (f *fakeAgent) Screen(context.Context) (Screen, error) {
	return Screen{PNG: []byte("\x89PNG"), Width: 1080, Height: 2400}, nil
}
func (f *fakeAgent) Act(_ context.Context, a string) error { f.acts = append(f.acts, a); return nil }
func (f *fakeAgent) Sessions() ([]SessionInfo, error) {
	return []SessionInfo{{ID: "20260101-000000", Task: "<b>task</b>", Running: true}}, nil
}
func (f *fakeAgent) SessionMarkdown(string) (string, error) { return f.md, nil }
func (f *fakeAgent) SessionScreenshots(string) (map[int]string, error) {
	return map[int]string{1: "x-step-001.png"}, nil
}
func (f *fakeAgent) Screenshot(string) ([]byte, error) { return nil, errors.New("none") }
func (f *fakeAgent) Jobs() ([]Job, error) {
	return []Job{{ID: "j1", Name: "morning", Enabled: f.enabled["j1"]}}, nil
}
func (f *fakeAgent) SetJobEnabled(id string, on bool) error              { f.enabled[id] = on; return nil }
func (f *fakeAgent) RunJob(context.Context, string) (string, error)      { return "ran", nil }
func (f *fakeAgent) Skills() ([]Skill, error)                            { return nil, nil }
func (f *fakeAgent) SkillText(string) (string, error)                    { return "# s", nil }
func (f *fakeAgent) ReplaySkill(context.Context, string) (string, error) { return "replayed", nil }
func (f *fakeAgent) Device(context.Context) (string, error)              { return "emulator-5554", nil }
func (f *fakeAgent) HumanAuth() ([]HumanAuthLink, error)                 { return nil, nil }

func (f *fakeAgent) DecideHumanAuth(string, bool, string) error { return nil }

type fakeManager struct{ a *fakeAgent }

func (m fakeManager) Agents(context.Context) ([]AgentSummary, error) {
	s, _ := m.a.Summary(context.Background())
	return []AgentSummary{s}, nil
}
func (m fakeManager) Agent(id string) (Agent, error) {
	if id != "a" {
		return nil, ErrNoAgent
	}
	return m.a, nil
}

const sessionMD = "# OpenPocket Session\n\n## Task\n\n<script>alert(1)</script>\n\n## Steps\n\n### Step 1\n\n- at: now\n- thought:\n```text\nlook\n```\n- action:\n```json\n{\"type\": \"tap\"}\n```\n- execution_result:\n```text\ntapped\n```\n"

func newTest(token string) (*Server, *fakeAgent) {
	f := &fakeAgent{enabled: map[string]bool{}, md: sessionMD}
	return New(fakeManager{f}, Options{Token: token}), f
}

func do(s *Server, method, target string, form url.Values, hdr map[string]string) *httptest.ResponseRecorder {
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	r := httptest.NewRequest(method, target, body)
	r.Host = "127.0.0.1:8790"
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

func TestTapMapsTheClickToTheDevice(t *testing.T) {
	s, f := newTest("")
	w := do(s, "POST", "/a/a/tap", url.Values{"screen.x": {"180"}, "screen.y": {"40"}}, nil)
	assert.Equal(t, http.StatusSeeOther, w.Code)
	require.Len(t, f.acts, 1)
	assert.JSONEq(t, `{"type":"tap","x":540,"y":120}`, f.acts[0], "360 CSS px wide image, 1080 px device")
	assert.Contains(t, w.Header().Get("Location"), "tapped+540%2C120")

	w = do(s, "POST", "/a/a/tap", url.Values{"screen.x": {"500"}, "screen.y": {"1"}}, nil)
	assert.Equal(t, http.StatusBadRequest, w.Code)
	w = do(s, "POST", "/a/a/key", url.Values{"key": {"home"}}, nil)
	assert.Equal(t, http.StatusSeeOther, w.Code)
	assert.JSONEq(t, `{"type":"keyevent","keycode":"KEYCODE_HOME"}`, f.acts[1])

	// On a phone the image is shown narrower; the page sends its width.
	w = do(s, "POST", "/a/a/tap", url.Values{"screen.x": {"90"}, "screen.y": {"20"}, "shown_width": {"180"}}, nil)
	assert.Equal(t, http.StatusSeeOther, w.Code)
	assert.JSONEq(t, `{"type":"tap","x":540,"y":120}`, f.acts[2], "180 CSS px wide image, 1080 px device")
	w = do(s, "POST", "/a/a/key", url.Values{"key": {"reboot"}}, nil)
	assert.Equal(t, http.StatusBadRequest, w.Code)
	w = do(s, "POST", "/a/a/type", url.Values{"text": {"hello"}}, nil)
	assert.Equal(t, http.StatusSeeOther, w.Code)
	assert.JSONEq(t, `{"type":"type","text":"hello"}`, f.acts[3])
	assert.Equal(t, http.StatusNotFound, do(s, "GET", "/a/ghost/", nil, nil).Code)
}

func TestCrossOriginPostsAreRefused(t *testing.T) {
	s, f := newTest("")
	w := do(s, "POST", "/a/a/key", url.Values{"key": {"back"}}, map[string]string{"Origin": "http://evil.example"})
	assert.Equal(t, http.StatusForbidden, w.Code)
	w = do(s, "POST", "/a/a/key", url.Values{"key": {"back"}}, map[string]string{"Sec-Fetch-Site": "cross-site"})
	assert.Equal(t, http.StatusForbidden, w.Code)
	assert.Empty(t, f.acts)
	w = do(s, "POST", "/a/a/key", url.Values{"key": {"back"}}, map[string]string{"Origin": "http://127.0.0.1:8790"})
	assert.Equal(t, http.StatusSeeOther, w.Code)
}

func TestTokenThenCookie(t *testing.T) {
	s, _ := newTest("s3cret-token-value")
	assert.Equal(t, http.StatusUnauthorized, do(s, "GET", "/", nil, nil).Code)
	assert.Equal(t, http.StatusUnauthorized, do(s, "GET", "/?token=wrong", nil, nil).Code)
	w := do(s, "GET", "/?token=s3cret-token-value", nil, nil)
	require.Equal(t, http.StatusOK, w.Code)
	cookie := w.Result().Cookies()[0]
	assert.True(t, cookie.HttpOnly)
	w = do(s, "GET", "/a/a/", nil, map[string]string{"Cookie": cookie.Name + "=" + cookie.Value})
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "http://127.0.0.1:8790/?token=abc", URL("127.0.0.1:8790", "abc"))
	assert.True(t, IsLoopback("127.0.0.1:8790"))
	assert.True(t, IsLoopback("[::1]:80"))
	assert.False(t, IsLoopback("0.0.0.0:8790"))
	assert.ErrorContains(t, Serve(context.Background(), "0.0.0.0:0", fakeManager{}, Options{}, nil), "needs a token")
}

func TestPagesEscapeWhatTheyShow(t *testing.T) {
	s, _ := newTest("")
	body := do(s, "GET", "/a/a/", nil, nil).Body.String()
	assert.Contains(t, body, "&lt;b&gt;task&lt;/b&gt;", "a task is text, never markup")
	assert.NotContains(t, body, "<b>task</b>")
	assert.Contains(t, body, `<img class="thumb" src="/a/a/shots/x-step-001.png" alt="screen after step 1"><div><b>Step 1</b> <code>tap</code><br><small>tapped</small>`,
		"the running task's steps as the CLI's step lines, with the step's thumbnail")
	page := do(s, "GET", "/a/a/sessions/20260101-000000", nil, nil).Body.String()
	assert.Contains(t, page, "&lt;script&gt;alert(1)&lt;/script&gt;")
	assert.NotContains(t, page, "<script>alert(1)")
	assert.Contains(t, page, `<h3>Step 1</h3>
<img class="shot" alt="step 1 screenshot" src="/a/a/shots/x-step-001.png">`)
}

func TestJobToggles(t *testing.T) {
	s, f := newTest("")
	assert.Contains(t, do(s, "GET", "/a/a/", nil, nil).Body.String(), `action="/a/a/jobs/j1/enable"`)
	w := do(s, "POST", "/a/a/jobs/j1/enable", url.Values{}, nil)
	assert.Equal(t, http.StatusSeeOther, w.Code)
	assert.True(t, f.enabled["j1"])
	assert.Contains(t, do(s, "GET", "/a/a/", nil, nil).Body.String(), `action="/a/a/jobs/j1/disable"`)
	assert.Equal(t, http.StatusBadRequest, do(s, "POST", "/a/a/jobs/j1/explode", url.Values{}, nil).Code)
}

func TestStepLines(t *testing.T) {
	shots := map[int]string{2: "s-step-002.png"}
	l := stepLineOf(step{N: 2, Action: `{"type":"launch_app","packageName":"com.android.settings"}`,
		Result: "launched com.android.settings\nscreenshot /home/u/.openpocket/workspace/screenshots/s-step-002.png"}, "shop", shots)
	assert.Equal(t, stepLine{N: 2, Action: "launch_app com.android.settings", Result: "launched com.android.settings", Thumb: "/a/shop/shots/s-step-002.png"}, l)
	l = stepLineOf(step{N: 3, Action: `{"type":"tap","x":540,"y":1200}`, Result: "saved /tmp/run/x/shot.png (ok)"}, "shop", shots)
	assert.Equal(t, stepLine{N: 3, Action: "tap 540,1200", Result: "saved shot.png (ok)"}, l, "no raw paths")
	l = stepLineOf(step{N: 4, Action: `{"type":"type_text","text":"hello"}`}, "shop", nil)
	assert.Equal(t, `type_text "hello"`, l.Action)
}

// TestSkillMarkdownNestedLists: a learned skill's numbered procedure with
// its "   - app: …" sub-items renders as nested lists, not literal text;
// the front matter is not shown as text.
func TestSkillMarkdownNestedLists(t *testing.T) {
	md := "---\nname: x\ndescription: d\n---\n\n# Toggle\n\n## Procedure\n\n1. Launch `com.android.settings`\n   - app: launcher → com.android.settings\n   - intent: open <settings>\n2. Tap **Wi-Fi**\n   - app: com.android.settings\n\n- top\n"
	got := string(renderMarkdown(md))
	assert.Equal(t, "<h1>Toggle</h1>\n<h2>Procedure</h2>\n<ol>\n<li>Launch <code>com.android.settings</code><ul>\n<li>app: launcher → com.android.settings</li>\n<li>intent: open &lt;settings&gt;</li></ul>\n</li>\n<li>Tap <b>Wi-Fi</b><ul>\n<li>app: com.android.settings</li></ul>\n</li></ol>\n<ul>\n<li>top</li></ul>\n", got)
	assert.NotContains(t, got, "description: d")
}

func TestParseSteps(t *testing.T) {
	steps := parseSteps(sessionMD)
	require.Len(t, steps, 1)
	assert.Equal(t, step{N: 1, Thought: "look", Action: `{"type": "tap"}`, Result: "tapped"}, steps[0])
}

// TestRelayHubMountedUnderTheAgent: /a/ID/auth/… reaches the relay hub
// with the agent's id and without the dashboard's token (the link carries
// its own); nothing else escapes the token.
func TestRelayHubMountedUnderTheAgent(t *testing.T) {
	f := &fakeAgent{enabled: map[string]bool{}, md: sessionMD}
	relay := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("relay for " + r.PathValue("agent") + " " + r.URL.Path))
	})
	s := New(fakeManager{f}, Options{Token: "tok-tok-tok", Relay: relay})
	w := do(s, "GET", "/a/shop/auth/req1?t=x", nil, nil)
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "relay for shop /a/shop/auth/req1", w.Body.String())
	assert.Equal(t, http.StatusUnauthorized, do(s, "GET", "/a/shop/screen.png", nil, nil).Code)
	assert.Equal(t, http.StatusUnauthorized, do(s, "GET", "/a/auth/", nil, nil).Code)
}

// TestDNSRebindingIsRefused: without a token (loopback), a request whose
// Host is some other name — a page that rebound its name to 127.0.0.1 —
// is refused, even "same-origin" with itself.
func TestDNSRebindingIsRefused(t *testing.T) {
	s, f := newTest("")
	r := httptest.NewRequest("POST", "/a/a/key", strings.NewReader("key=back"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Host = "evil.example:8790"
	r.Header.Set("Origin", "http://evil.example:8790")
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	assert.Equal(t, http.StatusForbidden, w.Code)
	assert.Empty(t, f.acts)
	for _, host := range []string{"localhost:8790", "[::1]:8790", "127.0.0.1"} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = host
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		assert.Equal(t, http.StatusOK, w.Code, host)
	}
}

func TestTVTargetsGetTheDPad(t *testing.T) {
	s, _ := newTest("")
	assert.NotContains(t, do(s, "GET", "/a/a/", nil, nil).Body.String(), `id="dpad"`, "an emulator has no remote")
	tv := &tvAgent{fakeAgent{enabled: map[string]bool{}, md: sessionMD}}
	s = New(tvManager{tv}, Options{})
	body := do(s, "GET", "/a/a/", nil, nil).Body.String()
	assert.Contains(t, body, `id="dpad"`)
	assert.Contains(t, body, `<button name="key" value="center">OK</button>`)
	do(s, "POST", "/a/a/key", url.Values{"key": {"center"}}, nil)
	assert.JSONEq(t, `{"type":"keyevent","keycode":"KEYCODE_DPAD_CENTER"}`, tv.acts[0])
}

type tvAgent struct{ fakeAgent }

func (f *tvAgent) Summary(context.Context) (AgentSummary, error) {
	return AgentSummary{ID: "a", TargetType: "android-tv"}, nil
}

type tvManager struct{ a *tvAgent }

func (m tvManager) Agents(context.Context) ([]AgentSummary, error) { return nil, nil }
func (m tvManager) Agent(string) (Agent, error)                    { return m.a, nil }
