package cli

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/internal/atomicfile"
)

// play --record: the device's own screenrecord runs for the whole playbook.
// Android stops screenrecord after 3 minutes, so the recorder starts a new
// chunk whenever one ends, up to the --record-limit; at the end it
// interrupts the running chunk (SIGINT makes screenrecord finish the
// file), pulls every chunk, checks it is an MP4 with a duration, deletes it
// from the device, and keeps it as recording-N.mp4 among the run's
// artifacts.

// startRecording starts the screen recorder when --record asked for one.
func (o playOptions) startRecording(sess *engine.Session, logf func(string, ...any)) *screenRecorder {
	if !o.record {
		return nil
	}
	phone, err := sess.Phone()
	if err != nil {
		logf("record: %v", err)
		return nil
	}
	return startScreenRecord(sess.Context(), phone.Transport(), o.recordLimit)
}

// finishRecording stops the recorder and returns the mp4 files to keep:
// those of a failed run, or of every run with --record-keep always.
func (o playOptions) finishRecording(r *screenRecorder, fr FlowReport, logf func(string, ...any)) []string {
	if r == nil {
		return nil
	}
	videos, err := r.stop(fr.OutputDir)
	if err != nil {
		logf("record: %v", err)
	}
	if fr.Status == "passed" && !o.recordAll {
		for _, v := range videos {
			_ = os.Remove(v)
		}
		return nil
	}
	return videos
}

// maxChunk is Android's screenrecord time limit (a variable so tests can
// exercise chunking without recording for minutes).
var maxChunk = 180 * time.Second

type screenRecorder struct {
	t      device.Transport
	stamp  string
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	chunks []string // device paths, in order
	err    error
}

// startScreenRecord starts recording; limit bounds the total length.
func startScreenRecord(ctx context.Context, t device.Transport, limit time.Duration) *screenRecorder {
	rctx, cancel := context.WithCancel(ctx)
	r := &screenRecorder{t: t, stamp: time.Now().Format("150405.000"), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		deadline := time.Now().Add(limit)
		for i := 1; rctx.Err() == nil; i++ {
			left := time.Until(deadline)
			if left < time.Second {
				return
			}
			chunk := min(left, maxChunk)
			path := fmt.Sprintf("/sdcard/openpocket-rec-%s-%d.mp4", r.stamp, i)
			r.mu.Lock()
			r.chunks = append(r.chunks, path)
			r.mu.Unlock()
			res, err := t.Shell(rctx, fmt.Sprintf("screenrecord --time-limit %d %s", int(chunk.Seconds()), path))
			if err == nil && res.ExitCode != 0 {
				err = fmt.Errorf("screenrecord exited %d: %s", res.ExitCode, res.Stderr)
			}
			if err != nil && rctx.Err() == nil {
				r.mu.Lock()
				r.err = err
				r.mu.Unlock()
				return
			}
		}
	}()
	return r
}

// stop ends the recording and pulls the chunks into dir.
func (r *screenRecorder) stop(dir string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _ = r.t.Shell(ctx, "pkill -INT screenrecord")
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		r.cancel()
		<-r.done
	}
	r.cancel()
	r.mu.Lock()
	chunks, recErr := append([]string(nil), r.chunks...), r.err
	r.mu.Unlock()
	var out []string
	var errs []error
	if recErr != nil {
		errs = append(errs, recErr)
	}
	for i, c := range chunks {
		data, err := r.t.Pull(ctx, c)
		if err != nil {
			errs = append(errs, fmt.Errorf("pull %s: %w", c, err))
			continue
		}
		_, _ = r.t.Shell(ctx, "rm -f "+c)
		if _, err := MP4Duration(data); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c, err))
			continue
		}
		p := filepath.Join(dir, fmt.Sprintf("recording-%d.mp4", i+1))
		if err := atomicfile.WriteFile(p, data, 0o644); err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, p)
	}
	return out, errors.Join(errs...)
}

// MP4Duration reads an MP4's duration from moov/mvhd; it fails unless the
// file starts with an ftyp box and has a well-formed mvhd.
func MP4Duration(data []byte) (time.Duration, error) {
	if len(data) < 8 || string(data[4:8]) != "ftyp" {
		return 0, errors.New("not an MP4 file: no ftyp box")
	}
	for i := 0; i+8 <= len(data); {
		size := int(binary.BigEndian.Uint32(data[i:]))
		typ := string(data[i+4 : i+8])
		if size < 8 || i+size > len(data) {
			return 0, fmt.Errorf("not an MP4 file: box %q has size %d", typ, size)
		}
		switch typ {
		case "moov":
			i += 8 // descend
			continue
		case "mvhd":
			body := data[i+8 : i+size]
			var scale, dur uint64
			switch {
			case len(body) >= 20 && body[0] == 0:
				scale, dur = uint64(binary.BigEndian.Uint32(body[12:])), uint64(binary.BigEndian.Uint32(body[16:]))
			case len(body) >= 32 && body[0] == 1:
				scale, dur = uint64(binary.BigEndian.Uint32(body[20:])), binary.BigEndian.Uint64(body[24:])
			default:
				return 0, errors.New("not an MP4 file: short mvhd")
			}
			if scale == 0 {
				return 0, errors.New("not an MP4 file: mvhd timescale 0")
			}
			return time.Duration(dur * uint64(time.Second) / scale), nil
		}
		i += size
	}
	return 0, errors.New("not an MP4 file: no moov/mvhd box")
}
