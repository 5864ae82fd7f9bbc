package textpos

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestLineColCountsCharacters(t *testing.T) {
	data := []byte("{\n  \"név\": ü,\n}")
	cases := []struct {
		off       int64
		line, col int
	}{
		{0, 1, 1},
		{2, 2, 1},
		{11, 2, 9}, // "  \"név\": " is 10 bytes and 9 characters before ü
		{-5, 1, 1},
		{999, 3, 2},
	}
	for _, c := range cases {
		if l, col := LineCol(data, c.off); l != c.line || col != c.col {
			t.Errorf("LineCol(%d) = %d:%d, want %d:%d", c.off, l, col, c.line, c.col)
		}
	}
}

func TestJSONSyntaxOffset(t *testing.T) {
	bad := []byte("{\"a\": 1,}")
	var v any
	err := json.Unmarshal(bad, &v)
	off, ok := JSONSyntaxOffset(bad, err)
	if !ok || bad[off] != '}' {
		t.Fatalf("offset %d ok=%v, want the trailing '}'", off, ok)
	}
	short := []byte("{\"a\": [1, 2\n\n")
	off, ok = JSONSyntaxOffset(short, json.Unmarshal(short, &v))
	if !ok || off != 11 {
		t.Fatalf("unexpected end: offset %d ok=%v, want 11 (end of content)", off, ok)
	}
	if _, ok := JSONSyntaxOffset(bad, errors.New("other")); ok {
		t.Fatal("a non-syntax error has no offset")
	}
}

func TestNearestRanksTranspositionsAsOneEdit(t *testing.T) {
	if got := Nearest("tpa", []string{"lua", "tap"}); got != "tap" {
		t.Errorf("Nearest(tpa) = %q, want tap", got)
	}
	if got := Nearest("defaultModle", []string{"defaultModel", "models"}); got != "defaultModel" {
		t.Errorf("got %q", got)
	}
	if got := Nearest("zzzzzz", []string{"tap", "swipe"}); got != "" {
		t.Errorf("a far name gets no suggestion, got %q", got)
	}
	if got := DidYouMean("Tapp", []string{"tap"}); got != `; did you mean "tap"?` {
		t.Errorf("got %q", got)
	}
	if Distance("abc", "abc") != 0 || Distance("ab", "ba") != 1 || Distance("kitten", "sitting") != 3 {
		t.Error("distance")
	}
}
