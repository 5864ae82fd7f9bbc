package device_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/engine/device"
)

// slowFake delays each screencap path by a set time.
type slowFake struct {
	device.Transport
	mu    sync.Mutex
	delay map[string]time.Duration // "screencap -p", "screencap"
	calls map[string]int
}

func (s *slowFake) ExecOut(ctx context.Context, cmd string) ([]byte, error) {
	s.mu.Lock()
	d := s.delay[cmd]
	if s.calls == nil {
		s.calls = map[string]int{}
	}
	s.calls[cmd]++
	s.mu.Unlock()
	time.Sleep(d)
	return s.Transport.ExecOut(ctx, cmd)
}

func (s *slowFake) count(cmd string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[cmd]
}

func TestAutoCaptureMeasuresThenKeepsTheFasterPath(t *testing.T) {
	f, _ := fakeScreen(t)
	raw := rawOf(t, pngOf(t, 0, false))
	f.On("screencap", func(cmd string) (device.ShellResult, error) {
		return device.ShellResult{Stdout: raw}, nil
	})
	for _, tc := range []struct {
		slow, want string
	}{{"screencap -p", "raw"}, {"screencap", "png"}} {
		tr := &slowFake{Transport: f, delay: map[string]time.Duration{tc.slow: 80 * time.Millisecond}}
		p := device.NewPhone(tr, device.Options{CaptureProbes: 2})
		for i := 0; i < 4; i++ {
			_, err := p.Observe(context.Background())
			require.NoError(t, err)
		}
		path, decided := p.CaptureChoice()
		require.True(t, decided)
		assert.Equal(t, tc.want, path, "slow %q", tc.slow)
		assert.Equal(t, 2, tr.count("screencap -p"), "two probes per path")
		assert.Equal(t, 2, tr.count("screencap"))
		for i := 0; i < 3; i++ {
			_, err := p.Observe(context.Background())
			require.NoError(t, err)
		}
		assert.Equal(t, 5, tr.count(map[string]string{"raw": "screencap", "png": "screencap -p"}[tc.want]), "the choice sticks")
	}
}

func TestAutoCaptureDropsAFailingPath(t *testing.T) {
	f, _ := fakeScreen(t)
	f.On("screencap", func(cmd string) (device.ShellResult, error) {
		return device.ShellResult{Stdout: []byte("screencap: no raw output on this build\n")}, nil
	})
	p := device.NewPhone(f, device.Options{})
	for i := 0; i < 3; i++ {
		s, err := p.Capture(context.Background(), device.CaptureOptions{})
		require.NoError(t, err, "a broken raw path falls back to PNG within the same capture")
		assert.NotEmpty(t, s.Screenshot)
	}
	path, decided := p.CaptureChoice()
	assert.True(t, decided)
	assert.Equal(t, "png", path)
	assert.Len(t, f.CallsWithPrefix("screencap"), 4, "raw tried once, then PNG only (3 captures + the fallback)")
}

func TestForcedCaptureModeKeepsItsErrors(t *testing.T) {
	f, _ := fakeScreen(t)
	f.On("screencap", func(cmd string) (device.ShellResult, error) {
		if cmd == "screencap" {
			return device.ShellResult{}, errors.New("exec failed")
		}
		return device.ShellResult{Stdout: pngOf(t, 0, false)}, nil
	})
	p := device.NewPhone(f, device.Options{Capture: device.CaptureRaw})
	_, err := p.Capture(context.Background(), device.CaptureOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "screencap")
	assert.Empty(t, f.CallsWithPrefix("screencap -p"), "a forced raw mode does not switch to PNG")

	for in, want := range map[string]device.CaptureMode{"": device.CaptureAuto, "auto": device.CaptureAuto, "png": device.CapturePNG, "raw": device.CaptureRaw} {
		got, err := device.ParseCaptureMode(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err = device.ParseCaptureMode("jpeg")
	assert.ErrorContains(t, err, `expected "auto", "png" or "raw"`)
}

// lostOnce fails the first screencap with ErrDeviceLost.
type lostOnce struct {
	device.Transport
	failed atomic.Bool
}

func (l *lostOnce) ExecOut(ctx context.Context, cmd string) ([]byte, error) {
	if cmd == "screencap -p" && l.failed.CompareAndSwap(false, true) {
		return nil, fmt.Errorf("exec: %w", device.ErrDeviceLost)
	}
	return l.Transport.ExecOut(ctx, cmd)
}

func TestLostDeviceDoesNotDropACapturePath(t *testing.T) {
	f, _ := fakeScreen(t)
	p := device.NewPhone(&lostOnce{Transport: f}, device.Options{CaptureProbes: 1})
	_, err := p.Capture(context.Background(), device.CaptureOptions{})
	require.ErrorIs(t, err, device.ErrDeviceLost)
	_, decided := p.CaptureChoice()
	assert.False(t, decided, "a lost device is not evidence against the PNG path")
}
