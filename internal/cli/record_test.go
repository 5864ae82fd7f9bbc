package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/sim/android"
	"github.com/openpocket/openpocket/internal/sim/simtest"
)

// TestFailingPlaybookLeavesRecordingAndDiff: a playbook that fails, run
// with --record, leaves a playable mp4 (its header decodes and has the
// run's duration) and, for an assert_screenshot whose screen changed, the
// diff image next to the actual screenshot.
func TestFailingPlaybookLeavesRecordingAndDiff(t *testing.T) {
	s := simtest.Start(t)
	dir := t.TempDir()
	pb := filepath.Join(dir, "failing.yaml")
	require.NoError(t, os.WriteFile(pb, []byte(`name: failing
app: com.android.settings
steps:
  - launch: {stop: true}
  - assert_screenshot: refs/settings.png          # first run: records the reference
  - assert_screenshot: {reference: refs/settings.png, tolerance: 0}
  - tap: {id: wifi_switch}
  - sleep: 1200ms
  - assert_screenshot: {reference: refs/settings.png, tolerance: 0.1}
`), 0o644))
	out := t.TempDir()
	start := time.Now()
	code, stdout, stderr := playMain(t, s.Serial(), "play", pb, "--output", out, "--record", "--report-html", filepath.Join(out, "html"))
	elapsed := time.Since(start)
	require.Equal(t, ExitFailed, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "failing.yaml:9: assert screenshot matches refs/settings.png: screenshot differs from refs/settings.png")

	ref, err := os.ReadFile(filepath.Join(dir, "refs", "settings.png"))
	require.NoError(t, err, "the first assert_screenshot recorded the reference")
	assert.Equal(t, "\x89PNG", string(ref[:4]))

	runs, _ := filepath.Glob(filepath.Join(out, "2*-failing"))
	require.Len(t, runs, 1)
	run := runs[0]
	for _, f := range []string{"diff-settings.png", "actual-settings.png", "failure.png", "failure.xml"} {
		_, err := os.Stat(filepath.Join(run, f))
		assert.NoError(t, err, f)
	}
	video, err := os.ReadFile(filepath.Join(run, "recording-1.mp4"))
	require.NoError(t, err, "the failed run keeps its recording")
	d, err := MP4Duration(video)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, d, 1200*time.Millisecond, "the recording spans the run")
	assert.LessOrEqual(t, d, elapsed)

	html, err := os.ReadFile(filepath.Join(out, "html", filepath.Base(run), "index.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), `<video controls src="recording-1.mp4"`)
	assert.Contains(t, string(html), "UI dump at the failure")

	// A passing run with --record keeps nothing by default.
	pass := filepath.Join(dir, "passing.yaml")
	require.NoError(t, os.WriteFile(pass, []byte("name: passing\nsteps:\n  - launch: com.android.settings\n"), 0o644))
	out2 := t.TempDir()
	code, stdout, stderr = playMain(t, s.Serial(), "play", pass, "--output", out2, "--record")
	require.Equal(t, ExitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	videos, _ := filepath.Glob(filepath.Join(out2, "*", "*.mp4"))
	assert.Empty(t, videos)
	left, err := s.Phone().Files().ReadDir("/sdcard")
	require.NoError(t, err)
	for _, f := range left {
		assert.NotContains(t, f.Name, "openpocket-rec", "chunks are deleted from the device")
	}
}

func TestMP4DurationRejectsNonMP4(t *testing.T) {
	d, err := MP4Duration(android.EncodeMP4(1080, 2400, 2500*time.Millisecond))
	require.NoError(t, err)
	assert.Equal(t, 2500*time.Millisecond, d)
	for _, bad := range [][]byte{nil, []byte("hello world!"), []byte("\x00\x00\x00\x10ftypisom\x00\x00\x00\x00")} {
		_, err := MP4Duration(bad)
		assert.Error(t, err)
	}
}

// TestRecordingIsChunkedAndBounded: past the per-recording limit (180 s on
// Android, 1 s here) a new chunk starts; --record-limit bounds the total.
func TestRecordingIsChunkedAndBounded(t *testing.T) {
	old := maxChunk
	maxChunk = time.Second
	t.Cleanup(func() { maxChunk = old })
	s := simtest.Start(t)
	pb := filepath.Join(t.TempDir(), "long.yaml")
	require.NoError(t, os.WriteFile(pb, []byte("name: long\nsteps:\n  - launch: com.android.settings\n  - sleep: 2600ms\n"), 0o644))

	out := t.TempDir()
	code, stdout, stderr := playMain(t, s.Serial(), "play", pb, "--output", out, "--record", "--record-keep", "always")
	require.Equal(t, ExitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	videos, _ := filepath.Glob(filepath.Join(out, "*", "recording-*.mp4"))
	require.GreaterOrEqual(t, len(videos), 3, "a 2.6 s run in 1 s chunks")
	var total time.Duration
	for _, v := range videos {
		b, err := os.ReadFile(v)
		require.NoError(t, err)
		d, err := MP4Duration(b)
		require.NoError(t, err, v)
		assert.LessOrEqual(t, d, 1100*time.Millisecond, "no chunk is longer than the limit")
		total += d
	}
	assert.Greater(t, total, 2*time.Second, "the chunks cover the run")

	out = t.TempDir()
	code, _, _ = playMain(t, s.Serial(), "play", pb, "--output", out, "--record", "--record-keep", "always", "--record-limit", "1500ms")
	require.Equal(t, ExitOK, code)
	videos, _ = filepath.Glob(filepath.Join(out, "*", "recording-*.mp4"))
	assert.Len(t, videos, 1, "--record-limit stops recording")
}

// TestAssertScreenshotWithoutReferenceWarns: the first run of an
// assert_screenshot records the reference and says "recorded, not
// compared" as a warning (! on the terminal, warned in JUnit), not ✓.
func TestAssertScreenshotWithoutReferenceWarns(t *testing.T) {
	s := simtest.Start(t)
	dir, out := t.TempDir(), t.TempDir()
	pb := filepath.Join(dir, "ref.yaml")
	require.NoError(t, os.WriteFile(pb, []byte("name: ref\napp: com.android.settings\nsteps:\n  - launch: {stop: true}\n  - assert_screenshot: refs/home.png\n"), 0o644))
	junit := filepath.Join(out, "junit.xml")
	code, stdout, stderr := playMain(t, s.Serial(), "play", pb, "--output", out, "--report", junit)
	require.Equal(t, ExitOK, code, "a warning does not fail the run: %s%s", stdout, stderr)
	assert.Contains(t, stdout, "! assert screenshot matches refs/home.png")
	assert.Contains(t, stdout, "recorded, not compared")
	assert.NotContains(t, stdout, "✓ assert screenshot")
	x, err := os.ReadFile(junit)
	require.NoError(t, err)
	assert.Contains(t, string(x), "warned assert screenshot matches refs/home.png")
	assert.Contains(t, string(x), "recorded, not compared")
	assert.FileExists(t, filepath.Join(dir, "refs", "home.png"))

	// The second run compares: ✓.
	code, stdout, _ = playMain(t, s.Serial(), "play", pb, "--output", out)
	require.Equal(t, ExitOK, code)
	assert.Contains(t, stdout, "✓ assert screenshot matches refs/home.png")
}
