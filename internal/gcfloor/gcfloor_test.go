package gcfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live, floor uint64
		want        int
	}{
		{0, 16 * mb, 400},        // not known yet: Go's minimum heap is the floor
		{1 * mb, 16 * mb, 400},   // tiny heap: capped where 4 MB × GOGC/100 = 16 MB
		{4 * mb, 16 * mb, 300},   // 4 MB × (1 + 3) = 16 MB
		{6 * mb, 16 * mb, 167},   // rounded up: 6 MB × 2.67 ≥ 16 MB
		{8 * mb, 16 * mb, 100},   // half the floor: Go's default reaches it
		{100 * mb, 16 * mb, 100}, // large heap: the default, untouched
		{1 * mb, 64 * mb, 1600},
		{1 << 40, 16 * mb, 100},
		{3 * mb, 16 * mb, 400},      // 16/3 - 1 = 433%: capped
		{16*mb/5 + 1, 16 * mb, 400}, // just over 3.2 MB: 400 still reaches the floor (rounded up)
	} {
		if got := Percent(c.live, c.floor); got != c.want {
			t.Errorf("Percent(%d MB, %d MB) = %d, want %d", c.live/mb, c.floor/mb, got, c.want)
		}
	}
}

func gogc() uint64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestLiveBound: while a call allocates, the heap in use at the hook
// overstates the live heap; the goal the collection set bounds it better.
func TestLiveBound(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		heapAlloc, nextGC uint64
		gogc              int64
		want              uint64
		percent           int // Percent(want, 16 MB)
	}{
		{10 * mb, 16 * mb, 400, 16 * mb / 5, 400}, // allocating: the goal at Go's minimum says at most 3.2 MB live
		{2 * mb, 16 * mb, 400, 2 * mb, 400},       // idle: the heap in use is the smaller
		{40 * mb, 40 * mb, 100, 20 * mb, 100},     // a large heap at Go's default
		{30 * mb, 24 * mb, 200, 8 * mb, 100},      // goal 3× live: 8 MB live, half the floor
	} {
		got := liveBound(c.heapAlloc, c.nextGC, c.gogc)
		if got != c.want || Percent(got, 16*mb) != c.percent {
			t.Errorf("liveBound(%d, %d, %d) = %d (GOGC %d), want %d (GOGC %d)", c.heapAlloc, c.nextGC, c.gogc, got, Percent(got, 16*mb), c.want, c.percent)
		}
	}
}

// TestStartRetunesAfterEachCollection checks the hook: whatever GOGC is
// when a collection ends, Start's hook sets it for the live heap.
func TestStartRetunesAfterEachCollection(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	if !Start(Default) {
		t.Fatal("Start did nothing with GOGC and GOMEMLIMIT unset")
	}
	for round := range 3 {
		debug.SetGCPercent(100)
		before := retunes.Load()
		runtime.GC()
		deadline := time.Now().Add(10 * time.Second)
		for retunes.Load() == before && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond) // the finalizer goroutine runs after the cycle
		}
		if got := gogc(); got != 400 {
			t.Fatalf("round %d: GOGC is %d after a collection with a live heap under 3 MB, want 400", round, got)
		}
	}
}
