package treesitter

/*
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
static int hl_glibc(void) { return 1; }
static int hl_no_fastbins(void) { return mallopt(M_MXFAST, 0); }
#else
static int hl_glibc(void) { return 0; }
static int hl_no_fastbins(void) { return 0; }
#endif
*/
import "C"

import "sync"

// noFastbins turns glibc's fastbins off for the process, once, before the
// first grammar is used (Language.init): tree-sitter allocates and frees a
// node at a time, and with fastbins the nodes of a freed tree wait,
// unmerged, until the next large allocation, or the next that the free
// lists cannot serve, merges all of them at once: after a 10,000-line tree
// was freed, the next keystroke's reparse or symbols walk paid 0.3–2 ms
// for it (perf: malloc_consolidate under calloc, realloc and malloc).
// Without fastbins a freed chunk is merged as it is freed, by whoever frees
// it. Whole parses did not get slower (BENCHMARKS.md). Other C libraries
// (macOS, Windows, musl) have no fastbins: nothing is done there.
var noFastbins = sync.OnceValue(func() bool { return C.hl_no_fastbins() == 1 })

// glibc reports whether this binary's C library is glibc (tests).
func glibc() bool { return C.hl_glibc() == 1 }
