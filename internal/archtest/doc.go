// Package archtest holds no code: its test enforces the layout in
// docs/architecture.md — which package may import which — over the whole
// module, so a wrong-way import fails `make test` instead of a review.
package archtest
