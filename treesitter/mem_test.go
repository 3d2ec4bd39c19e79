package treesitter

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
)

func rssMB() int {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			var kb int
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(l, "VmRSS:")), "%d", &kb)
			return kb / 1024
		}
	}
	return 0
}

// TestMemoryBounded parses 100 distinct ~200 KB files (summary and block
// op each): with every C tree closed and the cache bounded, RSS stays far
// below the 1.36 GB an unclosed loop reached. Linux only.
func TestMemoryBounded(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil || testing.Short() {
		t.Skip("needs /proc; skipped in -short")
	}
	_, base := genSource("go", 9000)
	before := rssMB()
	peak := before
	for i := 0; i < 100; i++ {
		text := append([]byte(fmt.Sprintf("// variant %d\n", i)), base...)
		if _, err := Summarize(context.Background(), "m.go", text, DefaultSummaryOptions()); err != nil {
			t.Fatal(err)
		}
		DefaultResolver.BlockRange("m.go", string(text), 40)
		if i%25 == 0 {
			runtime.GC()
			peak = max(peak, rssMB())
		}
	}
	runtime.GC()
	peak = max(peak, rssMB())
	t.Logf("text %d KB, RSS before %d MB, peak %d MB", len(base)/1024, before, peak)
	if peak-before > 700 {
		t.Errorf("RSS grew by %d MB", peak-before)
	}
	defaultCache.purge()
}
