// Package gcfloor puts a floor under the garbage collector's heap goal in
// the long-lived hashls processes (`serve`, `mcp`). The entry point is
// Start.
//
// Why: such a process keeps a small live heap (about 1 MB for `mcp` on
// one root) while each call allocates a few megabytes that die with it (a
// 50-hunk edit of a 480 KB file: the file read twice, the new content,
// its line index, the protocol's buffers). With Go's defaults the heap goal
// is then its 4 MB minimum, so nearly every call runs a whole collection,
// and the scavenger hands the freed pages back to the kernel, so the next
// call faults them in again (a page fault costs about 25 µs on the virtual
// machines we measure on). A floor of 16 MB lets a few calls' garbage pile
// up before a collection and keeps those pages mapped: bench/mcp.sh's MCP
// edit p50 went from 14.5 to 9.7 ms, its read from 3.5 to 2.4 ms
// (BENCHMARKS.md).
//
// How: after every collection Start's hook estimates the live heap
// (runtime.ReadMemStats, see retune) and sets GOGC so that the next goal
// is at least the floor: GOGC = floor/live - 1 (in per cent), between 100
// (Go's default, for heaps already past half the floor) and the value at
// which Go's own minimum heap, 4 MB × GOGC/100, reaches the floor (for
// tiny heaps). A large heap therefore behaves exactly as by default: the
// floor costs at most floor bytes of memory and never more. Nothing is
// done when the user set GOGC or GOMEMLIMIT: their settings win.
package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// Default is the floor the hashls servers use.
const Default = 16 << 20

// goMinimumHeap is Go's minimum heap goal at GOGC=100 (the runtime's
// defaultHeapMinimum); at GOGC=g it is goMinimumHeap × g / 100.
const goMinimumHeap = 4 << 20

var (
	once    sync.Once
	active  bool
	current atomic.Int64 // the GOGC the hook set last
	retunes atomic.Int64 // how many times the hook ran (for tests)
)

// Start keeps the heap goal of this process at or above floor bytes from
// the next collection on. It does nothing when GOGC or GOMEMLIMIT is set
// in the environment (to anything, "off" included: the user chose) or
// when floor is under 8 MB (twice Go's own 4 MB minimum: not worth a
// hook). It reports whether the floor is in force. Only the first call
// decides; later calls report what it did.
func Start(floor uint64) bool {
	once.Do(func() {
		if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" || floor < 2*goMinimumHeap {
			return
		}
		active = true
		p := Percent(0, floor)
		current.Store(int64(p))
		debug.SetGCPercent(p)
		arm(floor)
	})
	return active
}

// arm runs retune after the next collection (a finalizer runs once the
// collector has found its object unreachable) and re-arms itself there.
func arm(floor uint64) {
	sentinel := new([16]byte) // not tiny-allocated: its finalizer is reliable
	runtime.SetFinalizer(sentinel, func(*[16]byte) {
		retune(floor)
		arm(floor)
	})
}

// retune sets GOGC for the live heap the last collection left. Two upper
// bounds of it are at hand, and the smaller is used: the heap in use as
// the finalizers run (the live heap plus what was allocated since, which
// overstates it while a call is allocating) and the goal that collection
// set, NextGC, divided by 1 + GOGC/100 (exact when the goal is above Go's
// minimum; at the minimum it gives the largest live heap that minimum
// applies to, for which Percent keeps GOGC where it is). runtime/metrics
// would tell the live heap exactly, but its package init costs every
// hashls process, one-shot ones included, up to 0.6 ms; ReadMemStats stops
// the world for microseconds once per collection.
func retune(floor uint64) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	p := Percent(liveBound(m.HeapAlloc, m.NextGC, current.Load()), floor)
	current.Store(int64(p))
	debug.SetGCPercent(p)
	retunes.Add(1)
}

// liveBound is the smaller of two upper bounds of the live heap: the heap
// in use, and the goal divided by 1 + gogc/100 (see retune).
func liveBound(heapAlloc, nextGC uint64, gogc int64) uint64 {
	return min(heapAlloc, nextGC*100/uint64(100+max(gogc, 0)))
}

// Percent is the GOGC that makes the heap goal after a collection leaving
// live bytes at least floor: live × (1 + GOGC/100) ≥ floor, between Go's
// default 100 and the value at which Go's minimum heap goal is the floor
// (400 for a 16 MB floor). live 0 means not yet known: the maximum.
func Percent(live, floor uint64) int {
	hi := int(floor * 100 / goMinimumHeap)
	if live == 0 {
		return hi
	}
	p := int(min((floor*100+live-1)/live, uint64(hi)+100)) - 100 // rounded up: the goal reaches the floor
	return max(100, min(p, hi))
}
