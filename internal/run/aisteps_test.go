package run_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/internal/adb"
	"github.com/openpocket/openpocket/internal/llm"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
	"github.com/openpocket/openpocket/internal/run"
	"github.com/openpocket/openpocket/internal/sim"
	"github.com/openpocket/openpocket/stdlib/aistep"
)

// aiRig is a run service over the shared virtual phone whose model is the
// real openai-go client against a scripted OpenAI-wire server.
type aiRig struct {
	t   testing.TB
	sim *sim.Sim
	srv *llmtest.Server
	svc *run.Service
	mu  sync.Mutex
	// asked counts the questions by kind ("tap", "assert", "extract",
	// "agent"), as the server saw them.
	asked map[string]int
}

func newAIRig(t testing.TB) *aiRig {
	t.Helper()
	r := &aiRig{t: t, sim: phone.Take(t), srv: llmtest.NewServer(t), asked: map[string]int{}}
	t.Setenv("OPENAI_API_KEY", "")
	client := adb.NewClient("127.0.0.1:5037")
	r.svc = run.New(run.Config{
		StateDir: t.TempDir(),
		OpenDevice: func(ctx context.Context, target string) (engine.Device, func(), error) {
			d, err := client.Open(ctx, adb.Target{Serial: r.sim.Serial()})
			return d, func() {}, err
		},
		Model: func(string) (engine.Model, error) {
			return llm.New(llm.Profile{Name: "test", BaseURL: r.srv.BaseURL(), Model: "gpt-test"},
				llm.Options{Timeout: 20 * time.Second, Modes: &llm.MemoryModes{}})
		},
	})
	r.srv.Respond(r.answer)
	return r
}

func aiRequestText(q llmtest.Request) string {
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range []string{"text", "content"} {
				if s, ok := x[k].(string); ok {
					b.WriteString(s + "\n")
				}
			}
			for k, y := range x {
				if k != "text" {
					walk(y)
				}
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(q.Body["messages"])
	walk(q.Body["input"])
	return b.String()
}

var (
	wifiMark = regexp.MustCompile(`mark (\d+): label="(?:Wi-Fi|WLAN)" clickable=true class=Switch[^\n]* (checked|unchecked)`)
	btMark   = regexp.MustCompile(`mark (\d+): label="Bluetooth" clickable=true class=Switch[^\n]* (checked|unchecked)`)
	taskLine = regexp.MustCompile(`Task: ([^\n]*)`)
)

func aiTool(name string, args map[string]any) llmtest.Reply {
	b, _ := json.Marshal(args)
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: name, Arguments: string(b)}}}
}

// answer is the scripted model: it reads the task and the element list
// it is sent, like a model would, and answers with one tool call.
func (r *aiRig) answer(q llmtest.Request) llmtest.Reply {
	text := aiRequestText(q)
	task := ""
	if m := taskLine.FindAllStringSubmatch(text, -1); len(m) > 0 {
		task = m[len(m)-1][1]
	}
	wifi := wifiMark.FindStringSubmatch(text)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case strings.HasPrefix(task, "Find the element: the Wi-Fi switch"),
		strings.HasPrefix(task, "Find the element: ") && strings.Contains(task, "wifi_switch"):
		r.asked["tap"]++
		if wifi == nil {
			return llmtest.Reply{Text: "I cannot see a Wi-Fi switch."}
		}
		return aiTool("tap_element", map[string]any{"elementId": wifi[1]})
	case strings.HasPrefix(task, "Find the element: the Bluetooth switch"):
		r.asked["tap"]++
		if bt := btMark.FindStringSubmatch(text); bt != nil {
			return aiTool("tap_element", map[string]any{"elementId": bt[1]})
		}
		return llmtest.Reply{Text: "I cannot see a Bluetooth switch."}
	case strings.HasPrefix(task, "Check whether this holds on the screen: Bluetooth is on"):
		r.asked["assert"]++
		if bt := btMark.FindStringSubmatch(text); bt != nil && bt[2] == "checked" {
			return aiTool("finish", map[string]any{"message": "PASS: the Bluetooth switch is checked"})
		}
		return aiTool("finish", map[string]any{"message": "FAIL: the Bluetooth switch is unchecked"})
	case strings.HasPrefix(task, "Find the element: "):
		r.asked["tap"]++
		return llmtest.Reply{Text: "There is no such element on this screen."}
	case strings.HasPrefix(task, "Check whether this holds on the screen: Wi-Fi is off"):
		r.asked["assert"]++
		if wifi != nil && wifi[2] == "unchecked" {
			return aiTool("finish", map[string]any{"message": "PASS: the Wi-Fi switch is unchecked"})
		}
		return aiTool("finish", map[string]any{"message": "FAIL: the Wi-Fi switch is still checked"})
	case strings.HasPrefix(task, "Read from the screen: the Wi-Fi state"):
		r.asked["extract"]++
		state := "unknown"
		if wifi != nil {
			state = map[string]string{"checked": "on", "unchecked": "off"}[wifi[2]]
		}
		return aiTool("finish", map[string]any{"message": state})
	case strings.Contains(task, "turn Bluetooth on"):
		r.asked["agent"]++
		if bt := btMark.FindStringSubmatch(text); bt != nil && bt[2] == "unchecked" {
			return aiTool("tap_element", map[string]any{"elementId": bt[1]})
		}
		return aiTool("finish", map[string]any{"message": "Bluetooth is on"})
	}
	r.asked["other"]++
	return llmtest.Reply{Text: "I do not understand the question: " + task}
}

func (r *aiRig) calls() int { return len(r.srv.Requests()) }

func (r *aiRig) play(file string, o run.PlaybookOptions) run.PlaybookResult {
	r.t.Helper()
	o.File = file
	res, err := r.svc.Playbook(r.t.Context(), o)
	require.NoError(r.t, err)
	return res
}

func readStore(t testing.TB, file string) []aistep.Entry {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), aistep.StoreName(file)))
	require.NoError(t, err)
	var f struct {
		Version int
		Steps   []aistep.Entry
	}
	require.NoError(t, json.Unmarshal(b, &f))
	return f.Steps
}

const wifiPlaybook = `name: wifi by ai
steps:
  - launch: {app: com.android.settings, stop: true}
  - ai_tap: the Wi-Fi switch
    timeout: 2s
`

// The acceptance path: the first run asks the model (one call) and keeps
// the selector; the second asks nothing; after the app renames the switch
// one call re-resolves it, the report says so and .ai.json is updated;
// --no-ai fails without calling when nothing stored fits.
func TestAITapResolvesOnceReusesAndReResolvesAfterRename(t *testing.T) {
	r := newAIRig(t)
	file := writeFile(t, "wifi.yaml", wifiPlaybook)
	require.True(t, r.sim.Phone().WifiOn())

	res := r.play(file, run.PlaybookOptions{})
	require.True(t, res.Passed(), res.Error)
	assert.False(t, r.sim.Phone().WifiOn(), "the first run toggled Wi-Fi off")
	assert.Equal(t, 1, r.calls(), "first run: one model call")
	assert.Contains(t, res.Steps[1].Note, "resolved by the model")
	st := readStore(t, file)
	require.Len(t, st, 1)
	assert.Equal(t, "the Wi-Fi switch", st[0].Description)
	require.NotNil(t, st[0].Selector)
	assert.Equal(t, "com.android.settings:id/wifi_switch", st[0].Selector.ID)
	assert.Equal(t, "gpt-test", st[0].Model)
	assert.NotEmpty(t, st[0].Fingerprint)
	assert.False(t, st[0].ResolvedAt.IsZero())

	res = r.play(file, run.PlaybookOptions{})
	require.True(t, res.Passed(), res.Error)
	assert.True(t, r.sim.Phone().WifiOn(), "the second run toggled Wi-Fi back on")
	assert.Equal(t, 1, r.calls(), "second run: zero model calls")
	assert.Empty(t, res.Steps[1].Note)

	// --no-ai with the stored selector still working: fine, no call.
	res = r.play(file, run.PlaybookOptions{NoAI: true})
	require.True(t, res.Passed(), res.Error)
	assert.Equal(t, 1, r.calls())

	// An app update renames the switch: the stored selector finds nothing.
	r.sim.Phone().Relabel("wifi_switch", "wlan_switch")
	r.sim.Phone().Relabel("Wi-Fi", "WLAN")
	res = r.play(file, run.PlaybookOptions{NoAI: true})
	require.False(t, res.Passed())
	assert.Equal(t, 1, r.calls(), "--no-ai fails without calling the model")
	assert.Contains(t, res.Error, "wifi.yaml:4: ")
	assert.Contains(t, res.Error, "--no-ai forbids it")
	assert.Contains(t, res.Error, "found nothing")

	before := r.sim.Phone().WifiOn()
	res = r.play(file, run.PlaybookOptions{})
	require.True(t, res.Passed(), res.Error)
	assert.Equal(t, 2, r.calls(), "one call re-resolves the renamed switch")
	assert.NotEqual(t, before, r.sim.Phone().WifiOn(), "the re-resolved tap toggled Wi-Fi")
	assert.Contains(t, res.Steps[1].Note, "re-resolved")
	st = readStore(t, file)
	require.Len(t, st, 1)
	assert.Equal(t, "com.android.settings:id/wlan_switch", st[0].Selector.ID, ".ai.json holds the new selector")

	res = r.play(file, run.PlaybookOptions{})
	require.True(t, res.Passed(), res.Error)
	assert.Equal(t, 2, r.calls(), "and the run after that needs no call again")

	res = r.play(file, run.PlaybookOptions{AIRefresh: true})
	require.True(t, res.Passed(), res.Error)
	assert.Equal(t, 3, r.calls(), "--ai-refresh asks again")
}

// ai_assert passes and fails with the model's reason; its answer is reused
// on the same screen only; ai_extract fills a variable; an agent: step's
// own steps are in the report.
func TestAIAssertExtractAndAgentStep(t *testing.T) {
	r := newAIRig(t)
	file := writeFile(t, "judge.yaml", `name: judge
steps:
  - launch: {app: com.android.settings, stop: true}
  - tap: {id: wifi_switch}
  - ai_assert: Wi-Fi is off
  - ai_extract: {query: the Wi-Fi state, as: state}
  - assert: state == "off"
  - agent: {task: turn Bluetooth on, max_steps: 4}
  - tap: {id: wifi_switch}
  - ai_assert: Wi-Fi is off
`)
	r.sim.Phone().Reset()
	res := r.play(file, run.PlaybookOptions{})
	require.False(t, res.Passed(), "the last ai_assert fails: Wi-Fi is on again")
	assert.Contains(t, res.Error, "judge.yaml:10: ")
	assert.Contains(t, res.Error, "the Wi-Fi switch is still checked", "the model's reason")
	assert.True(t, r.sim.Phone().BluetoothOn(), "the agent step turned Bluetooth on")
	r.mu.Lock()
	assert.Equal(t, map[string]int{"assert": 2, "extract": 1, "agent": 2}, r.asked)
	r.mu.Unlock()

	var labels []string
	for _, s := range res.Steps {
		labels = append(labels, s.ID+" "+s.Status+" "+s.Label)
	}
	joined := strings.Join(labels, "\n")
	assert.Contains(t, joined, "3 passed ai_assert Wi-Fi is off")
	assert.Contains(t, joined, "6.1 passed agent step 1: tap_element")
	assert.Contains(t, joined, "6.2 passed agent step 2: finish")
	for _, s := range res.Steps {
		if s.ID == "6.1" {
			assert.Equal(t, 1, s.Depth, "agent steps sit one level under their step")
			assert.Equal(t, 8, s.Line)
		}
	}

	// Second run: same screens, same answers, no model call but the
	// agent's (an agent step always asks).
	n := r.calls()
	r.sim.Phone().Reset()
	res = r.play(file, run.PlaybookOptions{})
	require.False(t, res.Passed())
	assert.Contains(t, res.Error, "still checked", "a stored failing verdict fails with its reason")
	assert.Equal(t, n+2, r.calls(), "only the agent step asked the model")
}

// Bad input: an unparsable .ai.json is an error at the step's YAML line
// naming the file, line and column; a model that answers without an
// element fails the step saying so.
func TestAIStepBadStoreAndAnswerWithoutElement(t *testing.T) {
	r := newAIRig(t)
	file := writeFile(t, "bad.yaml", wifiPlaybook)
	store := filepath.Join(filepath.Dir(file), "bad.ai.json")
	require.NoError(t, os.WriteFile(store, []byte("{\"version\": 1,\n \"steps\": [}\n"), 0o644))
	res := r.play(file, run.PlaybookOptions{})
	require.False(t, res.Passed())
	assert.Contains(t, res.Error, "bad.yaml:4: ")
	assert.Contains(t, res.Error, "bad.ai.json:2:")
	assert.Equal(t, 0, r.calls())

	// --ai-refresh starts the broken file afresh.
	res = r.play(file, run.PlaybookOptions{AIRefresh: true})
	require.True(t, res.Passed(), res.Error)
	assert.Len(t, readStore(t, file), 1)

	other := writeFile(t, "none.yaml", `steps:
  - launch: {app: com.android.settings, stop: true}
  - ai_tap: the purple unicorn button
`)
	res = r.play(other, run.PlaybookOptions{})
	require.False(t, res.Passed())
	assert.Contains(t, res.Error, "none.yaml:3: ")
	assert.Contains(t, res.Error, "without an element")
	_, err := os.Stat(filepath.Join(filepath.Dir(other), "none.ai.json"))
	assert.True(t, os.IsNotExist(err), "nothing stored for an unresolved step")
}
