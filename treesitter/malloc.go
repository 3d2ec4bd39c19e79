package treesitter

/*
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
static int hl_glibc(void) { return 1; }
// Run by the loader, before the Go runtime starts any thread.
static int hl_fastbins_result;
__attribute__((constructor)) static void hl_no_fastbins(void) { hl_fastbins_result = mallopt(M_MXFAST, 0); }
static int hl_fastbins_off(void) { return hl_fastbins_result; }
#else
static int hl_glibc(void) { return 0; }
static int hl_fastbins_off(void) { return 0; }
#endif
*/
import "C"

// fastbinsOff reports whether glibc's fastbins were turned off for the
// process (tests): tree-sitter allocates and frees a node at a time, and
// with fastbins the nodes of a freed tree wait, unmerged, until the next
// large allocation, or the next that the free lists cannot serve, merges
// all of them at once: after a 10,000-line tree was freed, the next
// keystroke's reparse or symbols walk paid 0.3–2 ms for it (perf:
// malloc_consolidate under calloc, realloc and malloc). Without fastbins a
// freed chunk is merged as it is freed, by whoever frees it. Whole parses
// did not get slower (BENCHMARKS.md). Other C libraries (macOS, Windows,
// musl) have no fastbins: nothing is done there.
//
// glibc's mallopt is MT-Unsafe: it must not run while another thread may
// be in malloc (as a parse on another goroutine would be, were it asked
// at the first grammar's use, or the runtime starting a thread could be,
// during package initialization). So it is one C call (hl_no_fastbins) in
// a constructor, which the loader runs before main, on the only thread.
func fastbinsOff() bool { return C.hl_fastbins_off() == 1 }

// glibc reports whether this binary's C library is glibc (tests).
func glibc() bool { return C.hl_glibc() == 1 }
