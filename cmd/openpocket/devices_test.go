package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/channel/telegram/telegramtest"
	"github.com/openpocket/openpocket/internal/cli"
	"github.com/openpocket/openpocket/internal/lease"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/mcp"
	"github.com/openpocket/openpocket/internal/mcp/backend"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/internal/sim/simtest"
	"github.com/openpocket/openpocket/internal/wire"
	"github.com/openpocket/openpocket/internal/workspace"
)

// The second and third phones have screens of their own sizes, so every
// screenshot says which phone it came from.
const (
	secondW, secondH = 720, 1280
	thirdW, thirdH   = 600, 1000
)

// threePhones attaches three virtual phones to the real adb server and
// makes an install whose agent "shop" is bound to the second, with a
// scripted model; nothing else names a device.
func threePhones(t *testing.T) (home string, env []string, phones [3]*sim.Sim, model *llmtest.Server) {
	t.Helper()
	phones[0] = simtest.Start(t)
	phones[1] = simtest.Start(t, simtest.WithSize(secondW, secondH))
	phones[2] = simtest.Start(t, simtest.WithSize(thirdW, thirdH))
	model = llmtest.NewServer(t)
	home = filepath.Join(t.TempDir(), "install")
	env = []string{lease.DirEnv + "=" + t.TempDir(), workspace.EnvAgent + "="}
	t.Setenv(lease.DirEnv, strings.TrimPrefix(env[0], lease.DirEnv+"="))
	r := runBinary(t, env, "--home", home, "agents", "create", "shop")
	require.Equal(t, 0, r.code, r.stderr)
	r = runBinary(t, env, "--home", home, "--agent", "shop", "target", "set", "--type", "emulator", "--device", phones[1].Serial())
	require.Equal(t, 0, r.code, r.stderr)
	in, err := workspace.OpenInstall(home)
	require.NoError(t, err)
	h, err := in.OpenAgent("shop")
	require.NoError(t, err)
	cfg := h.Config()
	cfg.Models = map[string]workspace.ModelProfile{"fake": {BaseURL: model.BaseURL(), Model: "gpt-fake"}}
	cfg.DefaultModel, cfg.Agent.LoopDelayMs, cfg.Agent.ReturnHomeOnTaskEnd, cfg.Agent.AutoArtifactsEnabled = "fake", 0, false, false
	require.NoError(t, h.MarkOnboardingCompleted(time.Now()))
	require.NoError(t, h.SaveConfig(cfg))
	return home, env, phones, model
}

// keys is how many key events each phone has seen.
func keys(phones [3]*sim.Sim) [3]int {
	var n [3]int
	for i, p := range phones {
		n[i] = len(p.Phone().KeyLog())
	}
	return n
}

// onlyPressed asserts that exactly phone which (0-based) saw new keys.
func onlyPressed(t *testing.T, phones [3]*sim.Sim, before [3]int, which int) {
	t.Helper()
	after := keys(phones)
	for i := range phones {
		if i == which {
			assert.Greater(t, after[i], before[i], "phone %d got the key", i+1)
		} else {
			assert.Equal(t, before[i], after[i], "phone %d is left alone", i+1)
		}
	}
}

// isSecondScreen asserts that png is the second phone's screen.
func isSecondScreen(t *testing.T, data []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	assert.Equal(t, [2]int{secondW, secondH}, [2]int{img.Bounds().Dx(), img.Bounds().Dy()}, "the second phone's screen")
}

// TestEveryFrontEndDrivesTheBoundPhone: three phones attached, agent shop
// bound to the second; every command and front end picks that phone by
// the one resolver, none fails "several devices attached".
func TestEveryFrontEndDrivesTheBoundPhone(t *testing.T) {
	home, env, phones, model := threePhones(t)
	shop := []string{"--home", home, "--agent", "shop"}

	t.Run("snapshot", func(t *testing.T) {
		r := runBinary(t, env, append(shop, "snapshot", "--json")...)
		require.Equal(t, 0, r.code, r.stderr)
		var snap struct {
			DeviceID string `json:"deviceId"`
			Width    int    `json:"width"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &snap))
		assert.Equal(t, phones[1].Serial(), snap.DeviceID)
		assert.Equal(t, secondW, snap.Width)
	})
	t.Run("act", func(t *testing.T) {
		before := keys(phones)
		r := runBinary(t, env, append(shop, "act", `{"type":"keyevent","keycode":"KEYCODE_VOLUME_UP"}`)...)
		require.Equal(t, 0, r.code, r.stderr)
		onlyPressed(t, phones, before, 1)
	})
	t.Run("repl", func(t *testing.T) {
		cmd := exec.Command(binary, append(shop, "repl")...)
		cmd.Env = append(append(os.Environ(), "OPENAI_API_KEY=", "ANDROID_SERIAL="), env...)
		cmd.Stdin = strings.NewReader("print(require('device').info().serial)\n")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		assert.Contains(t, string(out), phones[1].Serial())
	})
	t.Run("ANDROID_SERIAL overrides the binding and says so", func(t *testing.T) {
		r := runBinary(t, append(env, "ANDROID_SERIAL="+phones[2].Serial()), append(shop, "snapshot", "--json")...)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, `"deviceId": "`+phones[2].Serial()+`"`)
		assert.Contains(t, r.stderr, "ANDROID_SERIAL="+phones[2].Serial()+" overrides agent shop's bound target "+phones[1].Serial())
	})
	t.Run("an unbound agent names the choices", func(t *testing.T) {
		r := runBinary(t, env, "--home", home, "snapshot")
		assert.Equal(t, 3, r.code, r.stderr)
		for _, p := range phones {
			assert.Contains(t, r.stderr, p.Serial())
		}
		assert.Contains(t, r.stderr, "target set")
	})
	t.Run("MCP", func(t *testing.T) {
		mcpOn(t, []string{"--home", home, "--agent", "shop", "mcp"}, func(ctx context.Context, cs *sdk.ClientSession) {
			res := call(t, ctx, cs, "launch_app", map[string]any{"packageName": "com.android.settings"})
			require.False(t, res.IsError, text(res))
		})
		assert.Equal(t, "com.android.settings", phones[1].Phone().CurrentPackage())
		assert.NotEqual(t, "com.android.settings", phones[0].Phone().CurrentPackage())
		assert.NotEqual(t, "com.android.settings", phones[2].Phone().CurrentPackage())
	})
	t.Run("Telegram /screen and the task's photo", func(t *testing.T) {
		telegramOnShop(t, home, env, model)
	})
	t.Run("the gateway's dashboard started with --device", func(t *testing.T) {
		gatewayDashboardWithDevice(t, home, env, phones)
	})
	t.Run("the dashboard's agent page drives the bound phone", func(t *testing.T) {
		base := startDashboard(t, home)
		dashboardDrives(t, base+"/a/shop/", phones, 1, "720x1280")
		// The unbound agent has no phone to show: the page says why.
		resp, err := http.Get(base + "/a/default/")
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Regexp(t, `<p class="err" id="noscreen">No screen: several devices attached: [^<]*`+regexp.QuoteMeta(phones[2].Serial()), string(body))
		assert.NotContains(t, string(body), `src="/a/default/screen.png"`, "no broken image")
	})
}

// mcpOn runs the CLI's MCP command with args over an in-process
// transport and runs scenario as its client.
func mcpOn(t *testing.T, args []string, scenario func(ctx context.Context, cs *sdk.ClientSession)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	serve := func(ctx context.Context, b *backend.Backend, o cli.MCPServeOptions) error {
		st, ct := sdk.NewInMemoryTransports()
		ss, err := mcp.New(b, mcp.Options{Version: o.Version}).SDK().Connect(ctx, st, nil)
		if err != nil {
			return err
		}
		defer ss.Close()
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "openpocket-test", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			return err
		}
		defer cs.Close()
		scenario(ctx, cs)
		return nil
	}
	t.Setenv("ANDROID_SERIAL", "")
	var stdout, stderr strings.Builder
	code := cli.MainWith(ctx, args, &stdout, &stderr, mcpInProcess{Assembly: wire.New(), serve: serve})
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
}

// telegramOnShop runs shop's gateway with Telegram (no device flag): the
// /screen photo and a task's final photo are the second phone's.
func telegramOnShop(t *testing.T, home string, env []string, model *llmtest.Server) {
	tg := telegramtest.NewServer(t, tgToken)
	in, err := workspace.OpenInstall(home)
	require.NoError(t, err)
	h, err := in.OpenAgent("shop")
	require.NoError(t, err)
	cfg := h.Config()
	cfg.Channels.Telegram = workspace.TelegramConfig{Enabled: true, BotTokenEnv: "OP_E2E_TG_TOKEN",
		AllowedUserIDs: []int64{tgOwner.ID}, APIBaseURL: tg.URL()}
	require.NoError(t, h.SaveConfig(cfg))
	t.Cleanup(func() { cfg.Channels.Telegram = workspace.TelegramConfig{}; _ = h.SaveConfig(cfg) })
	cmd := exec.Command(binary, "--home", home, "--agent", "shop", "gateway", "--stop-timeout", "20s")
	cmd.Env = append(append(os.Environ(), "OPENAI_API_KEY=", "ANDROID_SERIAL=", "OP_E2E_TG_TOKEN="+tgToken), env...)
	stderr := &lockedBuilder{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	waitFor(t, "the Telegram channel to start", func() bool { return strings.Contains(stderr.String(), "channel telegram started") })

	tg.SendText(tgOwner, "/screen")
	calls, ok := tg.WaitFor(60*time.Second, func(c []telegramtest.Call) bool { return photoOf(c) != nil })
	require.True(t, ok, "no /screen photo; calls %+v\nstderr:\n%s", calls, stderr.String())
	isSecondScreen(t, photoOf(calls).Photo)

	model.ReplyTool("finish", map[string]any{"message": "looked"})
	tg.SendText(tgOwner, "/run look at the screen")
	calls, ok = tg.WaitFor(60*time.Second, func(c []telegramtest.Call) bool { return len(tg.Calls("sendPhoto")) == 2 })
	require.True(t, ok, "no task photo; calls %+v\nstderr:\n%s", calls, stderr.String())
	final := tg.Calls("sendPhoto")[1]
	assert.Equal(t, "✓ looked", final.Params["caption"])
	isSecondScreen(t, final.Photo)
}

// gatewayDashboardWithDevice runs the default agent's gateway (it has no
// target; the second phone is shop's) with --device naming the third
// phone and its dashboard: the live screen and the Back button are that
// phone's.
func gatewayDashboardWithDevice(t *testing.T, home string, env []string, phones [3]*sim.Sim) {
	cmd := exec.Command(binary, "--home", home, "-s", phones[2].Serial(), "gateway", "--dashboard", "127.0.0.1:0")
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
	dashboardDrives(t, page, phones, 2, "600x1000")
}

// dashboardDrives asserts that the agent page at page shows phone which's
// screen (its size) and presses D-pad up on that phone only.
func dashboardDrives(t *testing.T, page string, phones [3]*sim.Sim, which int, size string) {
	t.Helper()
	resp, err := http.Get(page + "screen.png")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode, string(body))
	assert.Equal(t, size, resp.Header.Get("X-Device-Size"))

	before := keys(phones)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequest("POST", page+"key", strings.NewReader("key=up"))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", page[:strings.Index(page, "/a/")])
	resp, err = client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Contains(t, resp.Header.Get("Location"), "pressed+up")
	onlyPressed(t, phones, before, which)
}
