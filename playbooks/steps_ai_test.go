package playbooks

import (
	"strings"
	"testing"
)

// Bad AI steps are compile errors at their YAML line saying what was
// expected.
func TestAIStepErrorsNameLineAndExpectation(t *testing.T) {
	src := "name: bad\nsteps:\n  - ai_tap: \"  \"\n  - ai_assert:\n  - ai_extract: {query: the total}\n  - agent: {task: go, max_steps: 0}\n  - ai_extract: {query: \"\", as: 1x}\n"
	_, _, err := Compile([]byte(src), Options{File: "bad.yaml"})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{
		"bad.yaml:3:", "ai_tap needs a description of the element, got an empty description",
		"bad.yaml:4:", "ai_assert needs",
		"bad.yaml:5:", "ai_extract needs as: <variable name>",
		"bad.yaml:6:", "max_steps must be at least 1",
		"bad.yaml:7:", "ai_extract needs a query",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
}

// An AI step compiles to the ai module and marks the result as using it.
func TestAIStepsCompileToTheAIModule(t *testing.T) {
	res, err := CompileWithMap([]byte("steps:\n  - ai_tap: the send button\n  - agent: {task: send it, max_steps: 3}\n"), Options{File: "ok.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	lua := string(res.Lua)
	for _, want := range []string{`local ai = require("ai")`, `ai.tap("the send button", {timeout_ms = 5000})`, `ai.agent("send it", {step = flow.current(), max_steps = 3})`} {
		if !strings.Contains(lua, want) {
			t.Errorf("missing %q in:\n%s", want, lua)
		}
	}
	if !res.UsesAI {
		t.Error("UsesAI is not set")
	}
	plain, err := CompileWithMap([]byte("steps:\n  - back\n"), Options{File: "plain.yaml"})
	if err != nil || plain.UsesAI {
		t.Errorf("a playbook without AI steps: UsesAI %v, %v", plain.UsesAI, err)
	}
}

// A secret parameter never reaches the model or the committed .ai.json
// through an AI step's text.
func TestAIStepRefusesSecretParams(t *testing.T) {
	src := "params:\n  pin: {type: string, secret: true}\n  user: {type: string, default: bob}\nsteps:\n  - ai_tap: \"the row of ${user}\"\n  - ai_assert: \"the screen shows ${pin}\"\n"
	_, _, err := Compile([]byte(src), Options{File: "s.yaml"})
	if err == nil || !strings.Contains(err.Error(), "s.yaml:6:") || !strings.Contains(err.Error(), "secret parameter pin") {
		t.Fatalf("want an error at line 6 naming pin, got %v", err)
	}
	if strings.Contains(err.Error(), "s.yaml:5:") {
		t.Fatalf("a plain parameter is fine: %v", err)
	}
}
