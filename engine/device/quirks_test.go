package device_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device/devicetest"
)

// Android 10+ refuses clipboard reads to the shell: the text is pasted
// unverified, and the result says so; a read-back with other text still
// fails, because then the paste would type the wrong thing.
func TestTypePastesUnverifiedWhenTheClipboardRefusesReads(t *testing.T) {
	for _, readBack := range []string{"null\n", ""} {
		f := devicetest.New()
		p := newPhone(f)
		f.OnOutput("cmd clipboard", "")
		f.OnOutput("cmd clipboard get text", readBack)
		res, err := p.Type(context.Background(), "Grüße")
		require.NoError(t, err)
		assert.Contains(t, res, "via clipboard paste (unverified")
		assert.Len(t, f.CallsWithPrefix("input keyevent KEYCODE_PASTE"), 1)
	}
	f := devicetest.New()
	p := newPhone(f)
	f.OnOutput("cmd clipboard", "")
	f.OnOutput("cmd clipboard get text", "something else\n")
	_, err := p.Type(context.Background(), "Grüße")
	assert.ErrorContains(t, err, "clipboard did not keep the text")
	assert.Empty(t, f.CallsWithPrefix("input keyevent KEYCODE_PASTE"))
}

func TestShellActionKeepsShellSyntax(t *testing.T) {
	f := devicetest.New()
	p := newPhone(f)
	f.OnOutput("echo", "a\nb\n")
	_, err := p.ShellAction(context.Background(), `echo a && echo b`)
	require.NoError(t, err)
	assert.Equal(t, []string{"echo a && echo b"}, f.CallsWithPrefix("echo"))
}
