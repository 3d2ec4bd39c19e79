package treesitter

import "testing"

// TestNoFastbins: with glibc, fastbins are off before the program starts
// (malloc.go); elsewhere nothing is asked of the C library.
func TestNoFastbins(t *testing.T) {
	if got := fastbinsOff(); got != glibc() {
		t.Fatalf("fastbinsOff() = %v with glibc %v: mallopt(M_MXFAST, 0) failed or did not run", got, glibc())
	}
}
