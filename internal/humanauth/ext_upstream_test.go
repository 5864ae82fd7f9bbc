package humanauth_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/openpocket/openpocket/internal/humanauth"
)

// Upstream saves a voice note recorded by the relay page's browser as
// .webm; MediaRecorder names it "audio/webm;codecs=opus".
func TestAudioWebmArtifactsGetWebm(t *testing.T) {
	assert.Equal(t, ".webm", humanauth.ExtForMIME("audio/webm"))
	assert.Equal(t, ".webm", humanauth.ExtForMIME("audio/webm;codecs=opus"))
	assert.Equal(t, ".png", humanauth.ExtForMIME("IMAGE/PNG"))
	assert.Equal(t, ".bin", humanauth.ExtForMIME("application/octet-stream"))
}
