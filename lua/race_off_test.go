//go:build !race

package lua

// rssFactor scales memory bounds in tests (1 without the race detector).
const rssFactor = 1
