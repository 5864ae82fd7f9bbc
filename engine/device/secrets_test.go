package device_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
)

// Marking a secret takes effect on the next capture even when the cached
// list would otherwise answer.
func TestMarkSecretMasksTheNextList(t *testing.T) {
	f, _ := fakeScreen(t)
	p := device.NewPhone(f, device.Options{})
	warm(t, p)
	p.MarkSecret("Save", screen.SecretField{})
	s := capture(t, p)
	assert.Equal(t, screen.SourceFresh, s.CaptureMetrics.UIElementsSource)
	assert.Equal(t, screen.SecretMask, s.UIElements[0].Text)
	assert.NotContains(t, screen.ElementBlock(s.UIElements, s.UINotes), "Save")
}
