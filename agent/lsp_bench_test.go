package agent

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hashls/hashls/internal/lsptest"
)

// BenchmarkDiagnosticsAfterEdit measures, on a warm gopls, a small write
// alone and the same write with diagnostics (the option waits for the
// server's diagnostics of the changed file), interleaved in one run: the
// p50 of each and their ratio (the machine varies; the ratio is the
// figure). Each round is a one-character change of main.go.
//
//	go test -run '^$' -bench DiagnosticsAfterEdit -benchtime 30x ./agent
func BenchmarkDiagnosticsAfterEdit(b *testing.B) {
	lsptest.NeedGopls(b)
	e := newLSPEnv(b, nil)
	base := e.file(b, "main.go")
	content := func(i int) string {
		return strings.Replace(base, "Side: 2", "Side: "+string(rune('3'+i%5)), 1)
	}
	// Warm: the server is started and the module loaded.
	e.run(b, "write", map[string]any{"path": "main.go", "content": content(0), "diagnostics": 30000})
	var plain, diag, wait []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		e.run(b, "write", map[string]any{"path": "main.go", "content": content(2*i + 1)})
		t1 := time.Now()
		res := e.run(b, "write", map[string]any{"path": "main.go", "content": content(2*i + 2), "diagnostics": 30000})
		t2 := time.Now()
		if res.Diagnostics == nil || !res.Diagnostics.Fresh {
			b.Fatalf("no fresh diagnostics: %+v", res.Diagnostics)
		}
		plain = append(plain, t1.Sub(t0))
		diag = append(diag, t2.Sub(t1))
		wait = append(wait, t2.Sub(t1)-t1.Sub(t0))
	}
	b.StopTimer()
	p50 := func(d []time.Duration) time.Duration {
		s := append([]time.Duration(nil), d...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return s[len(s)/2]
	}
	b.ReportMetric(float64(p50(plain).Microseconds())/1000, "edit-p50-ms")
	b.ReportMetric(float64(p50(diag).Microseconds())/1000, "edit+diag-p50-ms")
	b.ReportMetric(float64(p50(wait).Microseconds())/1000, "diag-roundtrip-p50-ms")
	b.ReportMetric(float64(p50(diag))/float64(p50(plain)), "ratio")
}
