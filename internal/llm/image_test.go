package llm_test

import (
	"context"
	"encoding/base64"
	"image"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/internal/llm"
	"github.com/openpocket/openpocket/internal/llm/llmtest"
)

// TestJPEGScreenshotsAreLabelledJPEG: the data URL's media type follows the
// bytes, in both API modes, so a JPEG model image is never sent as PNG.
func TestJPEGScreenshotsAreLabelledJPEG(t *testing.T) {
	jpg, err := screen.EncodeJPEG(image.NewRGBA(image.Rect(0, 0, 16, 16)), 80)
	require.NoError(t, err)
	for _, responses := range []bool{false, true} {
		s := llmtest.NewServer(t)
		if responses {
			s.DisableChat()
		}
		s.ReplyTool("wait", map[string]any{})
		c := newClient(t, s, &llm.MemoryModes{})
		req := stepRequest()
		req.ImagePNG = jpg
		_, err := c.Decide(context.Background(), req)
		require.NoError(t, err)
		raw := string(s.Requests()[len(s.Requests())-1].Raw)
		const prefix = "data:image/jpeg;base64,"
		require.Equal(t, 1, strings.Count(raw, prefix), "responses=%v: one JPEG data URL", responses)
		assert.NotContains(t, raw, "data:image/png")
		i := strings.Index(raw, prefix) + len(prefix)
		enc := raw[i : i+strings.IndexByte(raw[i:], '"')]
		got, err := base64.StdEncoding.DecodeString(enc)
		require.NoError(t, err)
		assert.Equal(t, jpg, got)
	}
}
