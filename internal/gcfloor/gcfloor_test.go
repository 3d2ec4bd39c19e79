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
		{6 * mb, 16 * mb, 166},   // 6 MB × 2.66 ≈ 16 MB
		{8 * mb, 16 * mb, 100},   // half the floor: Go's default reaches it
		{100 * mb, 16 * mb, 100}, // large heap: the default, untouched
		{1 * mb, 64 * mb, 1600},
		{1 << 40, 16 * mb, 100},
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
		runtime.GC()
		deadline := time.Now().Add(10 * time.Second)
		for gogc() != 400 && time.Now().Before(deadline) {
			runtime.GC() // the finalizer goroutine runs after the cycle; nudge it
			time.Sleep(time.Millisecond)
		}
		if got := gogc(); got != 400 {
			t.Fatalf("round %d: GOGC is %d after a collection with a live heap under 3 MB, want 400", round, got)
		}
	}
}
