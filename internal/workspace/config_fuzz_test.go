package workspace

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadConfigDuplicateKeysNameLineAndColumn(t *testing.T) {
	cases := []struct {
		src, want string
	}{
		{`{"defaultModel": "a", "defaultModel": "b"}`,
			`config.json:1:23: defaultModel: duplicate key "defaultModel" (first at line 1, column 2); each key may appear once in an object`},
		{"{\n  \"agent\": {\n    \"maxSteps\": 5,\n    \"maxSteps\": 50\n  }\n}",
			`config.json:4:5: agent.maxSteps: duplicate key "maxSteps" (first at line 3, column 5)`},
		{`{"models": {"a": {"model": "x"}, "a": {"model": "y"}}}`,
			`config.json:1:34: models.a: duplicate key "a"`},
	}
	for _, c := range cases {
		_, _, err := ParseConfig("config.json", []byte(c.src))
		require.Error(t, err, c.src)
		var ce *ConfigError
		require.True(t, errors.As(err, &ce), "%T", err)
		assert.Contains(t, err.Error(), c.want)
	}
	// The same key in two different objects is fine.
	_, _, err := ParseConfig("config.json", []byte(`{"agent": {"maxSteps": 5}, "models": {"m": {"model": "x", "maxTokens": 5}}, "defaultModel": "m"}`))
	assert.NoError(t, err)
}

// FuzzParseConfig: whatever the bytes, ParseConfig returns a config or a
// *ConfigError with a position, and never panics.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"defaultModel": "a", "defaultModel": "b"}`))
	f.Add([]byte(`{"agent": {"maxSteps": 5, "loopDelayMs": -1}, "models": {"x": {"baseUrl": "http://h", "model": "m"}}, "defaultModel": "x"}`))
	f.Add([]byte(`{"agent": {"maxSteps": "5"}}`))
	f.Add([]byte("\xef\xbb\xbf{\"cron\": {\"tickSec\": 1e400}}"))
	f.Add([]byte(`[1, 2`))
	f.Add([]byte(`{"screenshots": {"maxCount": 18446744073709551616}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, err := ParseConfig("fuzz.json", data)
		if err == nil {
			return
		}
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Fatalf("error is not a *ConfigError: %T %v", err, err)
		}
		if !strings.HasPrefix(err.Error(), "fuzz.json") {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}
