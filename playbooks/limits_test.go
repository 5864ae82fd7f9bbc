package playbooks

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compileErr compiles src as "crash.yaml" and returns its errors.
func compileErr(t *testing.T, src string) ErrorList {
	t.Helper()
	_, err := CompileWithMap([]byte(src), Options{File: "crash.yaml", ResolveInclude: func(string) ([]byte, string, error) {
		return nil, "", errors.New("no includes")
	}})
	if err == nil {
		return nil
	}
	var l ErrorList
	require.ErrorAs(t, err, &l)
	return l
}

// TestAssertWithANonStringExpression: `assert: 0` used to dereference a
// nil string in the generator; YAML's scalar is the Lua expression text.
func TestAssertWithANonStringExpression(t *testing.T) {
	for expr, lua := range map[string]string{"0": "if not (0) then", "true": "if not (true) then", "1.5": "if not (1.5) then"} {
		res, err := CompileWithMap([]byte("steps: [{assert: "+expr+"}]"), Options{File: "a.yaml"})
		require.NoError(t, err, expr)
		assert.Contains(t, string(res.Lua), lua, expr)
	}
	errs := compileErr(t, "steps: [{assert: null}]")
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "crash.yaml:1:")
	assert.Contains(t, errs[0].Error(), "assert needs a value")
}

// TestAliasBombIsRejectedAtItsLine: aliases that expand past the limit
// are refused at the alias that crossed it, before any step is read.
func TestAliasBombIsRejectedAtItsLine(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: bomb\nsteps:\n  - &a {tap: {x: 1, y: 1}}\n")
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h"} {
		fmt.Fprintf(&b, "  - &%s [%s]\n", name, strings.TrimSuffix(strings.Repeat("*"+prev+", ", 10), ", "))
		prev = name
	}
	errs := compileErr(t, b.String())
	require.Len(t, errs, 1, "%v", errs)
	assert.Equal(t, 8, errs[0].Line, "the alias on line 8 crosses the limit")
	assert.Contains(t, errs[0].Message, fmt.Sprintf("YAML aliases expand to more than %d nodes", MaxAliasExpansion))

	// Self-referencing aliases end too.
	errs = compileErr(t, "a: &a [*a]\nsteps: [back]\n")
	require.NotEmpty(t, errs)

	// Small reuse stays fine.
	res, err := CompileWithMap([]byte("steps:\n  - &t {tap: {x: 1, y: 1}}\n  - *t\n  - *t\n"), Options{File: "ok.yaml"})
	require.NoError(t, err)
	assert.Equal(t, 3, strings.Count(string(res.Lua), `device.act({type = "tap", x = 1, y = 1})`), string(res.Lua))
}

// TestTooManyStepsFailFastNamingTheLine: a 200,000-step playbook is
// refused at the first step past MaxSteps, with its line.
func TestTooManyStepsFailFastNamingTheLine(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: big\nsteps:\n")
	for i := 0; i < 200000; i++ {
		b.WriteString("  - tap: {x: 1, y: 2}\n")
	}
	errs := compileErr(t, b.String())
	require.Len(t, errs, 1, "%v", errs[:min(len(errs), 3)])
	assert.Equal(t, MaxSteps+3, errs[0].Line)
	assert.Contains(t, errs[0].Error(), fmt.Sprintf("crash.yaml:%d:5: steps[%d]: playbook has more than %d steps", MaxSteps+3, MaxSteps, MaxSteps))
}

// TestLongExpressionRefusedAtItsLine: a 64 KB ${a+a+…} (which took the Lua
// compiler half a minute) is refused while parsing, naming its line.
func TestLongExpressionRefusedAtItsLine(t *testing.T) {
	src := "params: {a: {default: 1}}\nsteps:\n  - input: \"${" + strings.Repeat("a+", 32<<10) + "a}\"\n"
	errs := compileErr(t, src)
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "crash.yaml:3:")
	assert.Contains(t, errs[0].Error(), "is 65537 bytes; an expression may have at most 4096")
}
