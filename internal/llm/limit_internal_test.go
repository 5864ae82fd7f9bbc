package llm

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestLimitedBodyExactAndOver: a body of exactly the limit reads whole
// and ends with EOF; one byte more is ErrReplyTooLarge, not a cut body.
func TestLimitedBodyExactAndOver(t *testing.T) {
	exact := &limitedBody{rc: io.NopCloser(strings.NewReader("abcdef")), left: 6, max: 6}
	got, err := io.ReadAll(exact)
	if err != nil || string(got) != "abcdef" {
		t.Fatalf("exact: %q, %v", got, err)
	}
	over := &limitedBody{rc: io.NopCloser(strings.NewReader("abcdefg")), left: 6, max: 6}
	_, err = io.ReadAll(over)
	if !errors.Is(err, ErrReplyTooLarge) {
		t.Fatalf("over: %v, want ErrReplyTooLarge", err)
	}
}
