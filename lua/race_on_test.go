//go:build race

package lua

// rssFactor scales memory bounds in tests: the race detector's shadow
// memory multiplies a process's resident size several times over.
const rssFactor = 4
