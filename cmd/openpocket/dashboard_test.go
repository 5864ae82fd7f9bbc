package main_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/browsertest"
	"github.com/openpocket/openpocket/internal/humanauth"
	"github.com/openpocket/openpocket/internal/lease"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/workspace"
)

// startDashboard runs `openpocket dashboard` on a free loopback port and
// returns its URL.
func startDashboard(t *testing.T, home string) string {
	t.Helper()
	cmd, stdout, stderr := start(t, home, "dashboard", "--addr", "127.0.0.1:0")
	line, err := stdout.ReadString('\n')
	require.NoError(t, err, stderr.String())
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "dashboard: ")
	require.True(t, ok, line)
	go io.Copy(io.Discard, stdout)
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	return strings.TrimSuffix(url, "/")
}

// wifiSwitchCenter finds the Wi-Fi switch in the phone's UI dump.
func wifiSwitchCenter(t *testing.T, s *sim.Sim) (int, int) {
	t.Helper()
	re := regexp.MustCompile(`resource-id="com\.android\.settings:id/wifi_switch"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"`)
	m := re.FindStringSubmatch(string(s.Phone().UIDumpXML()))
	require.NotNil(t, m, "the Wi-Fi switch is on screen")
	n := make([]int, 4)
	for i := range n {
		n[i], _ = strconv.Atoi(m[i+1])
	}
	return (n[0] + n[2]) / 2, (n[1] + n[3]) / 2
}

// TestDashboardPagesInABrowser: the manager page lists the agents and
// bindings; an agent page shows its phone's live screen, the running
// task's steps while it runs, a session with its screenshots, and a click
// on the Wi-Fi switch in the screen toggles the phone's Wi-Fi.
func TestDashboardPagesInABrowser(t *testing.T) {
	t.Setenv(lease.DirEnv, t.TempDir())
	home, env, sims, servers := agentInstallSims(t, "alpha")
	phone := sims["alpha"]
	r := runBinary(t, env, "--home", home, "agents", "create", "beta")
	require.Equal(t, 0, r.code, r.stderr)
	base := startDashboard(t, home)
	ctx := browsertest.Browser(t, browsertest.Viewport{Width: 1400, Height: 1300})

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/")))
	agents, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("agents")))
	require.NoError(t, err)
	assert.Contains(t, agents, "alpha")
	assert.Contains(t, agents, "beta")
	assert.Contains(t, agents, phone.Serial(), "alpha's binding")
	assert.Contains(t, agents, "not bound", "beta has none")
	browsertest.Screenshot(t, ctx, "dashboard-manager")

	// A task runs while the agent page is open: its steps appear live.
	srv := servers["alpha"]
	srv.ReplyTool("launch_app", map[string]any{"packageName": "com.android.settings"})
	srv.ReplyTool("wait", map[string]any{"durationMs": 4000})
	srv.ReplyTool("finish", map[string]any{"message": "settings open"})
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`a[href="/a/alpha/"]`)), chromedp.WaitVisible(chromedp.ID("screen"))))
	task, taskOut, taskErr := start(t, home, "--agent", "alpha", "agent", "open the settings")
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById('steps').innerText.includes('Step 1')`, chromedp.WithPollingTimeout(30*time.Second)))
	require.NoError(t, err)
	steps, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("steps")))
	require.NoError(t, err)
	assert.Contains(t, steps, "open the settings")
	assert.Contains(t, steps, "launch_app")
	browsertest.Screenshot(t, ctx, "dashboard-agent-running")
	require.Equal(t, 0, exitCode(t, task, taskOut), taskErr.String())

	// The live screen shows the phone; a click on the Wi-Fi switch taps it.
	require.NoError(t, chromedp.Do(ctx, chromedp.Reload()))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById('screen').getBoundingClientRect().height > 300`, chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		resp, herr := http.Get(base + "/a/alpha/screen.png")
		require.NoError(t, herr)
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("the live screen did not load: %s %.300s", resp.Status, body)
	}
	wifiBefore := phone.Phone().WifiOn()
	cx, cy := wifiSwitchCenter(t, phone)
	type box struct{ Left, Top, Width float64 }
	rect, err := chromedp.Run(ctx, chromedp.Evaluate[box](`(function(){var r=document.getElementById('screen').getBoundingClientRect();return {Left:r.left,Top:r.top,Width:r.width};})()`))
	require.NoError(t, err)
	scale := rect.Width / 1080
	require.NoError(t, chromedp.Do(ctx, chromedp.MouseClickXY(rect.Left+float64(cx)*scale, rect.Top+float64(cy)*scale)))
	deadline := time.Now().Add(20 * time.Second)
	for phone.Phone().WifiOn() == wifiBefore && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	assert.NotEqual(t, wifiBefore, phone.Phone().WifiOn(), "the click toggled Wi-Fi on the phone")
	flash, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("flash")))
	require.NoError(t, err)
	assert.Contains(t, flash, "tapped")
	browsertest.Screenshot(t, ctx, "dashboard-agent")

	// The finished session opens with its step screenshots.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#sessions a`)), chromedp.WaitVisible(chromedp.ID("session"))))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll('img.shot').length > 0 && Array.from(document.querySelectorAll('img.shot')).every(i => i.complete && i.naturalWidth > 0)`, chromedp.WithPollingTimeout(20*time.Second)))
	require.NoError(t, err, "the step screenshots load")
	sessionText, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("session")))
	require.NoError(t, err)
	assert.Contains(t, sessionText, "open the settings")
	assert.Contains(t, sessionText, "SUCCESS")
	shots, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('img.shot').length`))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, shots, 2, "one screenshot per step")
	browsertest.Screenshot(t, ctx, "dashboard-session")
}

// TestDashboardRelayHubServesEachAgentsRequests: one dashboard address
// serves the human-auth page of a request in a managed agent's own state,
// routed by /a/<agentId>/auth/…, and lists it on the agent page.
func TestDashboardRelayHubServesEachAgentsRequests(t *testing.T) {
	home := filepath.Join(t.TempDir(), "install")
	r := runBinary(t, nil, "--home", home, "agents", "create", "shop")
	require.Equal(t, 0, r.code, r.stderr)
	in, err := workspace.OpenInstall(home)
	require.NoError(t, err)
	h, err := in.OpenAgent("shop")
	require.NoError(t, err)
	cfg := h.Config()
	cfg.Channels.Telegram.Enabled, cfg.Channels.Telegram.BotTokenEnv, cfg.Channels.Telegram.AllowedUserIDs = true, "SHOP_BOT_TOKEN", []int64{42}
	require.NoError(t, h.SaveConfig(cfg))
	token, hash := humanauth.NewToken()
	store := humanauth.Open(filepath.Join(home, "agents", "shop", "state"))
	require.NoError(t, store.Add(humanauth.Pending{ID: "req-1", AgentID: "shop", Capability: "otp", Instruction: "Enter the code from SMS",
		CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour), TokenHash: hash, Task: "pay the order"}))
	_, hash2 := humanauth.NewToken()
	require.NoError(t, store.Add(humanauth.Pending{ID: "req-2", AgentID: "shop", Capability: "oauth", Instruction: "Sign in to Login",
		UITemplate: map[string]any{"title": "Sign in", "fields": []any{
			map[string]any{"id": "username", "label": "User name", "type": "text"},
			map[string]any{"id": "password", "label": "Password", "type": "password"}}},
		CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour), TokenHash: hash2}))
	base := startDashboard(t, home)

	get := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := get("/")
	assert.Equal(t, 200, code)
	assert.Regexp(t, `shop</a></td><td>emulator</td>\s*<td><span class="off">not bound</span></td>\s*<td>telegram \(1 users, 0 chats allowed\)</td>`, body, "the manager page shows the agent's channels")
	code, body = get("/a/shop/auth/req-1?t=" + token)
	assert.Equal(t, 200, code)
	assert.Contains(t, body, "Enter the code from SMS")
	code, _ = get("/a/default/auth/req-1?t=" + token)
	assert.Equal(t, 404, code, "another agent's store does not have it")
	code, _ = get("/a/shop/auth/req-1?t=wrong")
	assert.Equal(t, 404, code)
	code, body = get("/a/shop/")
	assert.Equal(t, 200, code)
	assert.Contains(t, body, "Enter the code from SMS")
	assert.Contains(t, body, `action="/a/shop/humanauth/req-1"`, "the page answers it")

	// At a phone's width the pending request comes first and is answered
	// with the page's own form.
	ctx := browsertest.Browser(t, browsertest.Viewport{Width: 390, Height: 844, Mobile: true})
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/a/shop/"), chromedp.WaitVisible("#auth-req-1")))
	first, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("main section").id`))
	require.NoError(t, err)
	assert.Equal(t, "pendingauth", first, "pending requests first")
	fits, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function(){var s=document.getElementById("pendingauth");return s.scrollWidth<=s.clientWidth&&s.getBoundingClientRect().right<=innerWidth})()`))
	require.NoError(t, err)
	assert.True(t, fits, "the pending-auth section fits 390 px")
	browsertest.Screenshot(t, ctx, "dashboard-pending-auth-390")
	// The same fields as the relay page: who asks, on what task, the time left.
	asker := pageText(t, ctx, "#auth-req-1 .asker")
	assert.Equal(t, "Agent shop asks, working on: pay the order", asker)
	assert.Contains(t, pageText(t, ctx, "#auth-req-1 .left"), "min")
	// A form (credentials) is not approved with one text box that would
	// type the password into the focused field: the page says where to
	// answer, and offers Reject only.
	assert.Equal(t, "Sign in", pageText(t, ctx, "#auth-req-2 .title"))
	assert.Contains(t, pageText(t, ctx, "#auth-req-2 .fields"), "It asks for User name, Password")
	inputs, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#auth-req-2 input[name=text], #auth-req-2 button[value=approve]").length`))
	require.NoError(t, err)
	assert.Zero(t, inputs)
	resp, err := http.PostForm(base+"/a/shop/humanauth/req-2", url.Values{"decision": {"approve"}, "text": {"hunter2"}})
	require.NoError(t, err)
	resp.Body.Close()
	_, ok, err := store.Decision("req-2")
	require.NoError(t, err)
	assert.False(t, ok, "a form request is not approved from the dashboard's text box")
	require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(`#auth-req-1 input[name=text]`, "482913"),
		chromedp.Click(`#auth-req-1 button[value=approve]`), chromedp.WaitVisible("#flash")))
	d, ok, err := store.Decision("req-1")
	require.NoError(t, err)
	require.True(t, ok, "answered from the dashboard")
	assert.Equal(t, "approved", d.Status)
	assert.Equal(t, "dashboard", d.By)
	assert.Equal(t, "482913", d.Text)
}

// TestGatewayServesItsAgentsDashboard: `gateway --dashboard` serves the
// page of its own agent only.
func TestGatewayServesItsAgentsDashboard(t *testing.T) {
	home := filepath.Join(t.TempDir(), "install")
	r := runBinary(t, nil, "--home", home, "agents", "create", "shop")
	require.Equal(t, 0, r.code, r.stderr)
	cmd := exec.Command(binary, "--home", home, "--agent", "shop", "gateway", "--dashboard", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=")
	errPipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	lines := bufio.NewScanner(errPipe)
	page := ""
	for page == "" && lines.Scan() {
		if m := regexp.MustCompile(`^dashboard: (http://\S+)`).FindStringSubmatch(lines.Text()); m != nil {
			page = m[1]
		}
	}
	go io.Copy(io.Discard, errPipe)
	require.True(t, strings.HasSuffix(page, "/a/shop/"), page)
	resp, err := http.Get(page)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Contains(t, string(body), "agent <b>shop</b>")
	assert.Regexp(t, `running \(pid \d+`, string(body), "its own gateway runs")
	resp, err = http.Get(strings.TrimSuffix(page, "shop/") + "default/")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 404, resp.StatusCode, "only its own agent")
}

// TestDashboardTogglesAnAgentsCronJob: the agent page's disable and enable
// forms change the job in that agent's own jobs file.
func TestDashboardTogglesAnAgentsCronJob(t *testing.T) {
	home := filepath.Join(t.TempDir(), "install")
	r := runBinary(t, nil, "--home", home, "agents", "create", "shop")
	require.Equal(t, 0, r.code, r.stderr)
	r = runBinary(t, nil, "--home", home, "--agent", "shop", "cron", "add", "--every", "1h", "--task", "check mail", "--name", "morning")
	require.Equal(t, 0, r.code, r.stderr)
	job := strings.TrimSpace(strings.SplitN(r.stdout, "\n", 2)[0])
	base := startDashboard(t, home)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	// enabled reads the added job's flag by its id: the agent's fresh
	// workspace also holds upstream's disabled starter job.
	enabled := func() string {
		r := runBinary(t, nil, "--home", home, "--agent", "shop", "cron", "list", "--json")
		require.Equal(t, 0, r.code, r.stderr)
		var list struct {
			Jobs []struct {
				Job struct {
					ID      string `json:"id"`
					Enabled bool   `json:"enabled"`
				} `json:"job"`
			} `json:"jobs"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &list), r.stdout)
		for _, e := range list.Jobs {
			if e.Job.ID == job {
				return strconv.FormatBool(e.Job.Enabled)
			}
		}
		t.Fatalf("job %s not listed: %s", job, r.stdout)
		return ""
	}
	require.Equal(t, "true", enabled())
	// The default agent's workspace holds only its starter job.
	defaultJobs := filepath.Join(home, "workspace", "cron", "jobs.json")
	before, err := os.ReadFile(defaultJobs)
	require.NoError(t, err)
	require.NotContains(t, string(before), job)
	for _, op := range []string{"disable", "enable"} {
		req, err := http.NewRequest("POST", base+"/a/shop/jobs/"+job+"/"+op, nil)
		require.NoError(t, err)
		req.Header.Set("Origin", base)
		resp, err := client.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
		assert.Contains(t, resp.Header.Get("Location"), url.QueryEscape("job "+job+": "+op))
		assert.Equal(t, map[string]string{"disable": "false", "enable": "true"}[op], enabled())
	}
	after, err := os.ReadFile(defaultJobs)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the default agent's jobs are not touched")
}

// TestDashboardReplaysASkillOnTheAgentsPhone: the Replay form replays a
// skill in the background on the agent's bound phone (the bundled
// toggle-wifi flips Wi-Fi) and its session lands in that agent's workspace.
func TestDashboardReplaysASkillOnTheAgentsPhone(t *testing.T) {
	t.Setenv(lease.DirEnv, t.TempDir())
	home, _, sims, _ := agentInstallSims(t, "alpha")
	phone := sims["alpha"].Phone()
	before := phone.WifiOn()
	base := startDashboard(t, home)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequest("POST", base+"/a/alpha/skills/toggle-wifi/replay", nil)
	require.NoError(t, err)
	req.Header.Set("Origin", base)
	resp, err := client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("Location"), "replay+of+skill+toggle-wifi%3A+done")
	waitFor(t, "the replay to toggle Wi-Fi", func() bool { return phone.WifiOn() != before })
	waitFor(t, "the replay's session in alpha's workspace", func() bool {
		files, _ := filepath.Glob(filepath.Join(home, "agents", "alpha", "workspace", "sessions", "session-*.md"))
		return len(files) == 1
	})
}
