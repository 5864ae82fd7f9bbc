package maestro

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/playbooks"
)

const corpus = "testdata/corpus"

// referenceCommands is Maestro's public command reference
// (docs.maestro.dev, "Commands available"), each with the options its page
// documents. The corpus must use every one of them.
var referenceCommands = map[string][]string{
	"addMedia": nil, "assertDarkMode": nil, "assertLightMode": nil, "assertNoDefectsWithAI": nil,
	"assertNotVisible": nil, "assertScreenshot": {"path", "thresholdPercentage"},
	"assertTrue": {"condition"}, "assertVisible": nil, "assertWithAI": {"assertion"}, "back": nil,
	"clearKeychain": nil, "clearState": nil, "copyTextFrom": nil, "doubleTapOn": nil,
	"eraseText": {"charactersToErase"}, "evalScript": nil, "extendedWaitUntil": {"visible", "notVisible", "timeout"},
	"extractTextWithAI": nil, "hideKeyboard": nil, "inputText": nil, "inputRandomText": {"length"},
	"inputRandomNumber": {"length"}, "inputRandomEmail": nil, "inputRandomPersonName": nil, "killApp": nil,
	"launchApp": {"appId", "clearState", "stopApp", "permissions", "arguments"}, "longPressOn": nil,
	"openLink": {"link"}, "pasteText": nil, "pressKey": nil, "repeat": {"times", "while", "commands"},
	"retry": {"maxRetries", "commands", "file"}, "runFlow": {"file", "env", "when", "commands"},
	"runScript": {"file", "env"}, "scroll": nil,
	"scrollUntilVisible": {"element", "direction", "timeout", "speed", "visibilityPercentage", "centerElement"},
	"setAirplaneMode":    nil, "setClipboard": nil, "setLocation": {"latitude", "longitude"}, "setOrientation": nil,
	"setPermissions": {"appId", "permissions"}, "startRecording": nil, "stopApp": nil, "stopRecording": nil,
	"swipe": {"direction", "start", "end", "duration", "from"}, "takeScreenshot": {"path"},
	"tapOn":              {"repeat", "delay", "retryTapIfNoChange", "waitToSettleTimeoutMs", "point", "label"},
	"toggleAirplaneMode": nil, "travel": {"points", "speed"}, "waitForAnimationToEnd": {"timeout"},
}

// referenceSelectors are the selector fields of Maestro's selector page,
// and the header keys and when-conditions the converter must handle.
var referenceSelectors = []string{"text", "id", "index", "point", "enabled", "checked", "focused", "selected",
	"below", "above", "leftOf", "rightOf", "containsChild", "childOf", "containsDescendants", "width", "height",
	"tolerance", "traits", "optional", "label"}

var referenceHeader = []string{"appId", "name", "tags", "env", "onFlowStart", "onFlowComplete"}

var referenceWhen = []string{"visible", "notVisible", "platform", "true"}

// TestCorpusCoversTheCommandReference keeps the corpus honest: every
// command, option, selector field, header key and condition of the
// reference appears in some flow.
func TestCorpusCoversTheCommandReference(t *testing.T) {
	var all strings.Builder
	err := filepath.WalkDir(corpus, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".yaml") {
			b, rerr := os.ReadFile(p)
			all.Write(b)
			return rerr
		}
		return err
	})
	require.NoError(t, err)
	text := all.String()
	uses := func(key string) bool {
		end := `\b`
		if strings.HasSuffix(key, ":") {
			end = ""
		}
		return regexp.MustCompile(`(?m)^[ -]*` + regexp.QuoteMeta(key) + end).MatchString(text)
	}
	for cmd, opts := range referenceCommands {
		assert.True(t, uses(cmd), "command %s is not in the corpus", cmd)
		assert.NotNil(t, commandTable[cmd], "command %s has no conversion", cmd)
		for _, o := range opts {
			assert.True(t, uses(o+":"), "option %s of %s is not in the corpus", o, cmd)
		}
	}
	for _, k := range append(append(referenceSelectors, referenceHeader...), referenceWhen...) {
		assert.True(t, uses(k+":"), "key %s is not in the corpus", k)
	}
}

func TestConvertCorpus(t *testing.T) {
	out := t.TempDir()
	rep, err := Convert(corpus, out)
	require.NoError(t, err)

	status := map[string]Status{}
	for _, f := range rep.Files {
		rel, err := filepath.Rel(corpus, f.Source)
		require.NoError(t, err)
		status[filepath.ToSlash(rel)] = f.Status
	}
	assert.Equal(t, map[string]Status{
		"notes.yaml": Converted, "contacts.yaml": Converted, "login.yaml": Converted, "subflows/add_note.yaml": Converted,
		"settings.yaml": WithWarnings, "unsupported.yaml": WithWarnings,
		"broken.yaml": Failed, "config.yaml": Failed,
	}, status)
	full, warned, failed := rep.Counts()
	assert.Equal(t, [3]int{4, 2, 2}, [3]int{full, warned, failed})

	var printed strings.Builder
	rep.Write(&printed)
	assert.Contains(t, printed.String(), "8 files: 4 converted, 2 with warnings, 2 not convertible\n")
	assert.Regexp(t, `not convertible +testdata/corpus/broken.yaml: invalid YAML: yaml: line 2`, printed.String())
	assert.Contains(t, printed.String(), "config.yaml: a Maestro workspace config")

	// Every converted playbook lints, sub-flows resolve in the same layout.
	for _, f := range rep.Files {
		if f.Status == Failed {
			assert.Empty(t, f.Output)
			continue
		}
		_, err := playbooks.Lint(f.Output)
		assert.NoError(t, err, "%s does not lint", f.Output)
	}
	_, err = os.Stat(filepath.Join(out, "subflows", "add_note.yaml"))
	assert.NoError(t, err, "the sub-flow keeps its relative path")
}

func TestUnsupportedWarningsNameFileAndLine(t *testing.T) {
	rep, err := Convert(filepath.Join(corpus, "unsupported.yaml"), t.TempDir())
	require.NoError(t, err)
	require.Len(t, rep.Files, 1)
	var got []string
	for _, w := range rep.Files[0].Warnings {
		got = append(got, strings.TrimPrefix(w.String(), filepath.Join(corpus, "unsupported.yaml")))
	}
	sort.Strings(got)
	for _, want := range []string{
		":2: config key jsEngine has no playbook equivalent; dropped",
		":14: runScript scripts/fetch.js not translated to Lua (response: call of http.get() is not translated)",
		":17: evalScript not translated to Lua",
		":18: condition \"${items.some(i => i.ok)}\" not translated",
		":24: selector traits is not supported",
		":25: JavaScript ${`total: ${output.items}`} not translated",
		":27: unknown Maestro command doSomethingNew",
	} {
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, want)
		}
		assert.True(t, found, "missing warning %q in\n%s", want, strings.Join(got, "\n"))
	}
	src, err := os.ReadFile(rep.Files[0].Output)
	require.NoError(t, err)
	assert.Contains(t, string(src), "-- TODO(maestro unsupported.yaml:17): evalScript not translated")
	assert.Contains(t, string(src), "-- output.items = items.filter(i => i.ok).length", "the JavaScript is kept, commented")
	assert.Contains(t, string(src), "assert_screenshot:\n      reference: refs/cart.png\n      tolerance: 5")
}

func TestConvertFlowSteps(t *testing.T) {
	tests := []struct {
		name, maestro, want string
	}{
		{"bare commands", "- back\n- hideKeyboard\n- pasteText\n", "  - back\n  - hide_keyboard\n  - paste_text\n"},
		{"text regex", "- tapOn: \"Item .*\"\n", "  - tap:\n      text_regex: Item .*\n"},
		{"literal with a dot", "- tapOn: \"Dr. Who?\"\n", "  - tap: Dr. Who?\n"},
		{"id regex", "- tapOn:\n    id: \".*page_save\"\n", "  - tap:\n      id_regex: .*page_save\n"},
		{"key names kept for the key step", "- pressKey: Remote Dpad Left\n", "  - key: Remote Dpad Left\n"},
		{"retry attempts", "- retry:\n    maxRetries: 3\n    commands:\n      - back\n", "  - retry: 4\n    steps:\n      - back\n"},
		{"env expression", "- inputText: ${A + 1}\n", "  - input: ${flow.js_add(A, 1)}\n"},
		{"string concat", "- inputText: ${'x' + A}\n", "  - input: ${\"x\" .. tostring(A)}\n"},
		{"launch defaults stop", "- launchApp: com.x\n", "  - launch:\n      app: com.x\n      stop: true\n"},
		{"scroll", "- scroll\n", "  - swipe: up\n"},
		{"date", "- evalScript: ${output.t = Date.now()}\n", "  - lua: |\n      output.t = time.now_ms()\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := ConvertFlow([]byte(tt.maestro), "f.yaml")
			require.NoError(t, err)
			assert.Contains(t, string(out), tt.want)
			_, _, err = playbooks.Compile(out, playbooks.Options{File: "f.yaml"})
			assert.NoError(t, err, "%s", out)
		})
	}
}

func TestConvertRejectsNonFlows(t *testing.T) {
	for src, want := range map[string]string{
		"appId: x\n":             "a config document without commands",
		"just text\n":            "not a Maestro flow",
		"- tapOn: [unclosed\n":   "invalid YAML",
		"flows: ['*']\n":         "a Maestro workspace config",
		"a: 1\n---\nb: 2\n":      "not a Maestro flow",
		"appId: x\n---\n- 42\n":  "", // a list, converted with a warning
		"appId: x\n---\n- [1]\n": "",
	} {
		_, warns, err := ConvertFlow([]byte(src), "f.yaml")
		if want == "" {
			require.NoError(t, err, src)
			assert.NotEmpty(t, warns, src)
			continue
		}
		require.Error(t, err, src)
		assert.Contains(t, err.Error(), want, src)
	}
}

func TestOutputDirMustDiffer(t *testing.T) {
	_, err := Convert(corpus, corpus)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is the input directory")
}

func TestJSTranslation(t *testing.T) {
	ok := map[string]string{
		"1 + 2 * 3":               "1 + (2 * 3)",
		"a === 'x' && !b":         `(a == "x") and (not b)`,
		"a !== b || c != d":       "(a ~= b) or (c ~= d)",
		"n >= 3":                  "tonumber(n) >= 3",
		"maestro.copiedText":      "copied_text",
		"parseInt(x) % 2":         "math.fmod(math.floor(tonumber(x)), 2)",
		"Date.now() - 5":          "time.now_ms() - 5",
		"output.name.length > 0":  "#tostring(output.name) > 0",
		"'a' + \"b\"":             `"a" .. "b"`,
		"(x)":                     "x",
		"String(3) + Number('4')": `tostring(3) .. tostring(tonumber("4"))`,
	}
	for js, want := range ok {
		vars := map[string]bool{}
		got, err := JSExpr(js, vars)
		require.NoError(t, err, js)
		assert.Equal(t, want, got, js)
	}
	for _, bad := range []string{"a ? b : c", "items.map(x => x)", "`t${x}`", "new Date()", "a +", "function f() {}"} {
		_, err := JSExpr(bad, map[string]bool{})
		assert.Error(t, err, bad)
	}
	lines, err := JSStatements("output.a = 1;\nvar b = output.a + 1\n// comment\nconst c = 'x'", map[string]bool{})
	require.NoError(t, err)
	assert.Equal(t, []string{"output.a = 1", "b = flow.js_add(output.a, 1)", `c = "x"`}, lines)
	_, err = JSStatements("doIt()", map[string]bool{})
	assert.ErrorContains(t, err, "not an assignment")
	_, err = JSStatements("window.x = 1", map[string]bool{})
	assert.ErrorContains(t, err, "cannot assign")
}

// Maestro's AI commands become AI steps that ask the model once (no TODO):
// assertWithAI / assertNoDefectsWithAI → ai_assert (optional as in
// Maestro unless optional: false), extractTextWithAI → ai_extract into its
// variable, and a tap on an extracted value → ai_tap.
func TestAICommandsBecomeAISteps(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "ai.yaml")
	require.NoError(t, os.WriteFile(in, []byte(`appId: com.example.shop
---
- launchApp
- assertWithAI:
    assertion: The cart shows two items
    optional: false
- assertNoDefectsWithAI
- extractTextWithAI: the order number
- inputText: ${aiOutput}
- extractTextWithAI:
    query: the title of the first product
    outputVariable: firstTitle
- tapOn: ${firstTitle}
`), 0o644))
	rep, err := Convert(in, filepath.Join(dir, "out"))
	require.NoError(t, err)
	require.Len(t, rep.Files, 1)
	assert.Empty(t, rep.Files[0].Warnings)
	src, err := os.ReadFile(rep.Files[0].Output)
	require.NoError(t, err)
	out := string(src)
	assert.NotContains(t, out, "TODO")
	assert.Contains(t, out, "- ai_assert: The cart shows two items\n  - ai_assert:")
	assert.Contains(t, out, "no visual defects")
	assert.Contains(t, out, "query: the order number\n      as: aiOutput\n    optional: true")
	assert.Contains(t, out, "- input: ${aiOutput}")
	assert.Contains(t, out, "- ai_tap: the element showing the title of the first product")
	lua, _, err := playbooks.Compile(src, playbooks.Options{File: rep.Files[0].Output})
	require.NoError(t, err)
	assert.Contains(t, string(lua), `ai.extract("the order number")`)
}
