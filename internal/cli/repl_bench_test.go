//go:build linux

package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/openpocket/openpocket/internal/termmode"
)

// BenchmarkReplPaste pastes one line of n characters into the REPL's line
// editor through a real pty, as one write from the terminal side, then
// presses Enter, and waits for the editor to return the line. It reports
// ns per pasted character, the bytes the editor drew per character, and
// the ratio to a floor measured in the same run: the same bytes read by a
// plain bufio reader through the same pty. A linear editor keeps ns/char
// and x-floor roughly flat as n grows; a quadratic one grows them with n.
//
//	go test -run '^$' -bench ReplPaste -benchtime 3x -count 1 ./internal/cli/
func BenchmarkReplPaste(b *testing.B) {
	for _, n := range []int{1000, 4000, 16000} {
		b.Run(fmt.Sprintf("chars=%d", n), func(b *testing.B) { benchPaste(b, n) })
	}
}

func benchPaste(b *testing.B, n int) {
	text := pasteText(n)
	master, slave := openPTY(b)
	ft := newFakeTerminal(master, false)
	floor := floorPerChar(b, ft, slave, text, max(b.N, 50))

	cmd := &ReplCmd{NoHistory: true, tty: slave}
	rl, err := openLineReader(cmd.readlineConfig(io.Discard, nil, slave), cmd.ttyFd())
	if err != nil {
		b.Fatal(err)
	}
	defer rl.Close()
	// One typed line first: by the time it returns, the terminal has
	// seen everything the editor set up (bracketed paste, the prompt).
	go ft.key("warm\r")
	if line, err := rl.ReadLine(); err != nil || line != "warm" {
		b.Fatalf("warm-up line %q: %v", line, err)
	}
	drawn := settledDrawn(ft)
	for len(ft.prompted) > 0 {
		<-ft.prompted
	}

	b.ResetTimer()
	start := time.Now()
	for range b.N {
		go func() {
			<-ft.prompted // paste at the prompt, as a person does
			ft.paste(text)
			ft.key("\r")
		}()
		line, err := rl.ReadLine()
		if err != nil || line != text {
			b.Fatalf("read %d chars (%v), want %d", len(line), err, n)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	perChar := float64(elapsed.Nanoseconds()) / float64(b.N*n)
	b.ReportMetric(perChar, "ns/char")
	b.ReportMetric(floor, "floor-ns/char")
	b.ReportMetric(perChar/floor, "x-floor")
	b.ReportMetric(float64(settledDrawn(ft)-drawn)/float64(b.N*n), "drawn-B/char")
}

// floorPerChar is the cost per character of moving the paste through the
// pty alone: the same writes, read back by a bufio reader in raw mode.
func floorPerChar(b *testing.B, ft *fakeTerminal, slave *os.File, text string, reps int) float64 {
	b.Helper()
	m, err := termmode.New(fdOf(slave))
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Raw(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = m.Restore() }()
	r := bufio.NewReader(slave)
	start := time.Now()
	for range reps {
		go func() {
			ft.paste(text)
			ft.key("\r")
		}()
		line, err := r.ReadString('\r')
		if err != nil || len(line) != len(text)+1 {
			b.Fatalf("floor read %d bytes (%v), want %d", len(line), err, len(text)+1)
		}
	}
	return float64(time.Since(start).Nanoseconds()) / float64(reps*len(text))
}

// settledDrawn is the terminal's drawn-byte count once output stops.
func settledDrawn(ft *fakeTerminal) int64 {
	n := ft.drawnBytes()
	for {
		time.Sleep(50 * time.Millisecond)
		m := ft.drawnBytes()
		if m == n {
			return n
		}
		n = m
	}
}

// pasteText is n characters of Lua-looking ASCII: words, digits, quotes,
// operators and spaces, no tabs or newlines (one line).
func pasteText(n int) string {
	const alphabet = `local x = {a = "b", n = 42} -- ok; f(x.a .. 'z') + 7 * y / 3 ~= nil and true or false `
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[(i*7+i/len(alphabet))%len(alphabet)]
	}
	return string(b)
}
