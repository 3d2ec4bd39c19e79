package treesitter

import "testing"

// TestNoFastbins: with glibc, the first grammar used turns fastbins off
// (malloc.go); elsewhere nothing is asked of the C library.
func TestNoFastbins(t *testing.T) {
	LanguageFor("a.go").init()
	if got := noFastbins(); got != glibc() {
		t.Fatalf("noFastbins() = %v with glibc %v: mallopt(M_MXFAST, 0) failed", got, glibc())
	}
}
