package screen

import (
	"sort"
	"testing"
)

// upstreamMedianChars is upstream OpenPocket's median element block over
// the 70 real screens issue 29 measured (ours then: 2,105).
const upstreamMedianChars = 2317

// blockSizes is the size in characters of the block the model reads
// (elements and notes) for every saved screen, sorted.
func blockSizes(t testing.TB) []int {
	var sizes []int
	for _, c := range append(append([]screenCase{}, screenCases...), classCases...) {
		sel := selectCase(t, c)
		sizes = append(sizes, len([]rune(ElementBlock(sel.Elements, sel.Notes))))
	}
	sort.Ints(sizes)
	return sizes
}

func median(s []int) float64 {
	n := len(s)
	if n%2 == 1 {
		return float64(s[n/2])
	}
	return float64(s[n/2-1]+s[n/2]) / 2
}

// TestElementBlockStaysLean: listing disabled controls, long-press
// containers and small toggles must not make the block longer than
// upstream's on the median screen.
func TestElementBlockStaysLean(t *testing.T) {
	sizes := blockSizes(t)
	m := median(sizes)
	t.Logf("element block over %d screens: median %.0f characters, max %d", len(sizes), m, sizes[len(sizes)-1])
	if m > upstreamMedianChars {
		t.Errorf("median element block %.0f characters > upstream's %d", m, upstreamMedianChars)
	}
	for _, n := range sizes {
		if n > DefaultElementBudget+400 {
			t.Errorf("a block of %d characters: the budget (%d) plus its notes must bound it", n, DefaultElementBudget)
		}
	}
}

// BenchmarkElementBlockChars reports the median characters per screen
// over the saved screens (median-chars; target ≤ upstream's 2,317) and the
// selection time.
func BenchmarkElementBlockChars(b *testing.B) {
	var sizes []int
	for i := 0; i < b.N; i++ {
		sizes = blockSizes(b)
	}
	b.ReportMetric(median(sizes), "median-chars")
	b.ReportMetric(float64(upstreamMedianChars), "upstream-chars")
	b.ReportMetric(median(sizes)/upstreamMedianChars, "ratio")
}
