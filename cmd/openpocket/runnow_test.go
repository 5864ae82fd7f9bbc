package main_test

import (
	"bufio"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wifiPlaybook turns the Wi-Fi switch to want (idempotent).
func wifiPlaybook(want string) string {
	other := map[string]string{"true": "false", "false": "true"}[want]
	return `name: wifi ` + want + `
app: com.android.settings
steps:
  - launch: {stop: true}
  - if: {visible: {id: wifi_switch, checked: ` + other + `}}
    then:
      - tap: {id: wifi_switch}
  - assert_visible: {id: wifi_switch, checked: ` + want + `}
`
}

// TestRunNowRunsInTheRunningGateway: with shop's gateway running (three
// phones, shop bound to the second), `openpocket cron run` and the
// dashboard's "Run now" hand the job to that gateway over its control
// socket: the job drives the second phone, and a failing job reports its
// reason on the terminal (exit 1) and on the page.
func TestRunNowRunsInTheRunningGateway(t *testing.T) {
	home, env, phones, _ := threePhones(t)
	ws := filepath.Join(home, "agents", "shop", "workspace")
	writeFile(t, ws, "off.yaml", wifiPlaybook("false"))
	writeFile(t, ws, "on.yaml", wifiPlaybook("true"))
	writeFile(t, ws, "bad.yaml", "name: closed\nsteps:\n  - assert: {expr: 'false', message: the shop is closed}\n")
	shop := []string{"--home", home, "--agent", "shop"}
	for _, id := range []string{"off", "on", "bad"} {
		r := runBinary(t, env, append(shop, "cron", "add", "--id", id, "--every", "24h", "--playbook", filepath.Join(ws, id+".yaml"))...)
		require.Equal(t, 0, r.code, r.stderr)
	}

	cmd := exec.Command(binary, append(shop, "gateway", "--dashboard", "127.0.0.1:0")...)
	cmd.Env = append(append(os.Environ(), "OPENAI_API_KEY=", "ANDROID_SERIAL="), env...)
	errPipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }()
	lines := bufio.NewScanner(errPipe)
	page := ""
	for page == "" && lines.Scan() {
		if m := regexp.MustCompile(`^dashboard: (http://\S+)`).FindStringSubmatch(lines.Text()); m != nil {
			page = m[1]
		}
	}
	go io.Copy(io.Discard, errPipe)
	require.NotEmpty(t, page)

	// The shell: the gateway runs the job, on the second phone.
	require.True(t, phones[1].Phone().WifiOn())
	r := runBinary(t, env, append(shop, "cron", "run", "off")...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `job off ok after \S+ in the gateway \(pid \d+\)`, r.stderr)
	assert.False(t, phones[1].Phone().WifiOn(), "the job turned the second phone's Wi-Fi off")
	assert.True(t, phones[0].Phone().WifiOn(), "not the first phone's")
	assert.True(t, phones[2].Phone().WifiOn(), "not the third phone's")
	assert.NotContains(t, r.stderr, "gateway.lock", "never advice to remove a live lock")

	r = runBinary(t, env, append(shop, "cron", "run", "bad")...)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, "the shop is closed")
	assert.Contains(t, r.stderr, "in the gateway")

	// The page: what really happened, with the reason when it failed.
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	runNow := func(job string) string {
		req, err := http.NewRequest("POST", page+"jobs/"+job+"/run", nil)
		require.NoError(t, err)
		req.Header.Set("Origin", page[:strings.Index(page, "/a/")])
		resp, err := client.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusSeeOther, resp.StatusCode)
		loc, err := url.Parse(resp.Header.Get("Location"))
		require.NoError(t, err)
		return loc.Query().Get("msg")
	}
	msg := runNow("on")
	assert.Regexp(t, `^job on: done: ok after \S+ in the gateway \(pid \d+\)`, msg)
	assert.True(t, phones[1].Phone().WifiOn(), "Run now turned the second phone's Wi-Fi back on")
	msg = runNow("bad")
	assert.Contains(t, msg, "failed: job bad:")
	assert.Contains(t, msg, "the shop is closed")
	resp, err := http.Get(page)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Regexp(t, `job bad: <span class="err">failed: [^<]*the shop is closed`, string(body), "the page lists the failure with its reason")
	assert.Contains(t, string(body), "job on: <span class=\"ok\">done</span>")
}
