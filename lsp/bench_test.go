package lsp

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// rssKB returns this process's resident set size (Linux; 0 elsewhere).
func rssKB() int {
	return procRSSKB("/proc/self/status")
}

func procRSSKB(statusFile string) int {
	b, err := os.ReadFile(statusFile)
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return 0
}

func thousandLines() string {
	var b strings.Builder
	b.WriteString("package big\n\n")
	for i := 0; b.Len() < 1<<20 && strings.Count(b.String(), "\n") < 998; i++ {
		fmt.Fprintf(&b, "// F%d does a thing.\nfunc F%d(x int) int {\n\treturn x + %d\n}\n\n", i, i, i)
	}
	lines := strings.SplitAfter(b.String(), "\n")
	return strings.Join(lines[:1000], "")
}

// TestSoak runs 10,000 requests (didChange + documentSymbol, and a
// hashls.read every tenth) through one connection and reports RSS and heap
// before and after; goroutines must not leak.
func TestSoak(t *testing.T) {
	c := newTestClient(t, testOptions())
	c.initialize(nil)
	lines := strings.SplitAfter(thousandLines(), "\n")
	u := c.open("soak.go", "", strings.Join(lines[:200], ""))
	runtime.GC()
	rss0, g0 := rssKB(), runtime.NumGoroutine()
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	start := time.Now()
	const n = 10000
	for i := 0; i < n; i++ {
		switch {
		case i%10 == 0:
			if err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.read", "arguments": []any{map[string]any{"path": "soak.go:1-20"}}}, nil); err != nil {
				t.Fatalf("request %d: %v", i, err)
			}
		case i%10 == 1:
			c.change(u, lspRange(2, 3, 2, 4), string(rune('A'+i%26)))
			fallthrough
		default:
			if err := c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": u}}, nil); err != nil {
				t.Fatalf("request %d: %v", i, err)
			}
		}
	}
	elapsed := time.Since(start)
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	rss1, g1 := rssKB(), runtime.NumGoroutine()
	var ms1 runtime.MemStats
	runtime.ReadMemStats(&ms1)
	t.Logf("soak: %d requests in %v (%.0f/s); RSS %d kB -> %d kB; heap in use %d kB -> %d kB; goroutines %d -> %d",
		n, elapsed.Round(time.Millisecond), n/elapsed.Seconds(), rss0, rss1, ms0.HeapInuse>>10, ms1.HeapInuse>>10, g0, g1)
	if got, want := c.clientText(u), func() string { s, _ := c.serverText(u); return s }(); got != want {
		t.Fatal("texts diverged during the soak")
	}
	if g1 > g0+5 {
		t.Errorf("goroutines leaked: %d -> %d", g0, g1)
	}
	if ms1.HeapInuse > ms0.HeapInuse+64<<20 {
		t.Errorf("heap grew by %d MB", (ms1.HeapInuse-ms0.HeapInuse)>>20)
	}
}

// BenchmarkReadOpenDocument: hashls.read of a whole open 1,000-line document
// over the pipe, request to reply; reports p50 and p99.
func BenchmarkReadOpenDocument(b *testing.B) {
	c := newTestClient(b, testOptions())
	c.initialize(nil)
	c.open("big.go", "", thousandLines())
	args := map[string]any{"command": "hashls.read", "arguments": []any{map[string]any{"path": "big.go"}}}
	if err := c.call("workspace/executeCommand", args, nil); err != nil {
		b.Fatal(err)
	}
	durs := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := time.Now()
		if err := c.call("workspace/executeCommand", args, nil); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(s))
	}
	b.StopTimer()
	reportPercentiles(b, durs)
}

// BenchmarkDocumentSymbol: documentSymbol of an open 1,000-line Go file.
func BenchmarkDocumentSymbol(b *testing.B) {
	c := newTestClient(b, testOptions())
	c.initialize(nil)
	u := c.open("big.go", "", thousandLines())
	params := map[string]any{"textDocument": map[string]any{"uri": u}}
	durs := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := time.Now()
		if err := c.call("textDocument/documentSymbol", params, nil); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(s))
	}
	b.StopTimer()
	reportPercentiles(b, durs)
}

// BenchmarkDidChange: one incremental keystroke on a 1,000-line document
// (notification plus a barrier request).
func BenchmarkDidChange(b *testing.B) {
	c := newTestClient(b, testOptions())
	c.initialize(nil)
	u := c.open("big.go", "", thousandLines())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.change(u, lspRange(500, 0, 500, 1), string(rune('a'+i%26)))
	}
	c.barrier()
}

// BenchmarkDidChangeLarge: one incremental keystroke on a 10,000-line
// (190 KB) document: the line index is updated, not rebuilt.
func BenchmarkDidChangeLarge(b *testing.B) {
	c := newTestClient(b, testOptions())
	c.initialize(nil)
	var sb strings.Builder
	sb.WriteString("package big\n\n")
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&sb, "// F%d does a thing.\nfunc F%d(x int) int {\n\treturn x + %d\n}\n\n", i, i, i)
	}
	u := c.open("big.txt", "", sb.String())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.change(u, lspRange(5000, 0, 5000, 1), string(rune('a'+i%26)))
		c.barrier()
	}
}

// BenchmarkInitialize: a whole session handshake in-process (pipe, Serve,
// initialize with a workspace and store, shutdown).
func BenchmarkInitialize(b *testing.B) {
	for i := 0; i < b.N; i++ {
		c := newTestClient(b, testOptions())
		c.initialize(nil)
		_ = c.call("shutdown", nil, nil)
		_ = c.conn.Close()
		<-c.served
		c.served <- nil
	}
}

func reportPercentiles(b *testing.B, durs []time.Duration) {
	if len(durs) == 0 {
		return
	}
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(durs[len(durs)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkEditOpenDocument: hashls.edit of bench/edit.sh's 50-hunk edit to
// an open 10,000-line document, request to reply: the buffer is edited
// through workspace/applyEdit and the test client answers with one
// didChange holding the 50 changes last first, as editors send them.
// Reports the edit's mean time (edit-ms); each round opens the document
// again with its original text and reads the lines the edit changes.
func BenchmarkEditOpenDocument(b *testing.B) {
	c := newTestClient(b, testOptions())
	c.initialize(nil)
	var lines []string
	for i := 1; i <= 10000; i++ {
		lines = append(lines, fmt.Sprintf("line %d: some text for the benchmark file", i))
	}
	orig := strings.Join(lines, "\n") + "\n"
	var sel []string
	for i := 0; i < 50; i++ {
		sel = append(sel, fmt.Sprintf("%d-%d", i*200+1, i*200+1))
	}
	var ops []string
	for j := 0; j < 50; j++ {
		ops = append(ops, fmt.Sprintf("replace %d..%d:\n+changed %d", j*200+1, j*200+1, j))
	}
	var total time.Duration
	for i := 0; i < b.N; i++ {
		u := c.open("big.txt", orig, orig)
		var read struct {
			Details struct {
				Tag string `json:"tag"`
			} `json:"details"`
		}
		if err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.read", "arguments": []any{map[string]any{"path": "big.txt:" + strings.Join(sel, ",")}}}, &read); err != nil || read.Details.Tag == "" {
			b.Fatalf("read: %v (tag %q)", err, read.Details.Tag)
		}
		input := "¶big.txt#" + read.Details.Tag + "\n" + strings.Join(ops, "\n")
		var res map[string]any
		t0 := time.Now()
		if err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.edit", "arguments": []any{map[string]any{"input": input}}}, &res); err != nil {
			b.Fatal(err)
		}
		total += time.Since(t0)
		c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
		c.barrier()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "edit-ms")
}

// BenchmarkTypeThenSymbols: a letter typed in an open 10,000-line Python
// file, then textDocument/documentSymbol, as an editor's outline asks
// after each keystroke; keystroke to reply, p50 and p99. "blockstart"
// types before the first token of a block's first statement, where
// upstream tree-sitter's reparse reused nothing after the change;
// "expression" types inside an expression.
func BenchmarkTypeThenSymbols(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("import os\n\n\n")
	for i := 0; i < 480; i++ {
		fmt.Fprintf(&sb, "class Item%d:\n    \"\"\"A generated class.\"\"\"\n\n    def __init__(self, name, count=0):\n        self.name = name\n        self.count = count\n\n", i)
		sb.WriteString("    @property\n    def label(self) -> str:\n        parts = [p.upper() for p in self.name.split(\"_\")]\n        return \"-\".join(parts)\n\n")
		sb.WriteString("    def render(self, sep=\",\"):\n        data = {\"name\": self.name, \"count\": self.count}\n        for k in list(data):\n            if not data[k]:\n                del data[k]\n        return data\n\n\n")
	}
	text := sb.String()
	for _, c := range []struct{ name, at string }{{"blockstart", "        parts = "}, {"expression", ".join(parts)"}} {
		b.Run(c.name, func(b *testing.B) {
			var spots []protocol.Position // where the letter goes, one per class
			for i, ln := range strings.Split(text, "\n") {
				if k := strings.Index(ln, c.at); k >= 0 {
					col := k + len(c.at) - len(strings.TrimLeft(c.at, " ")) // the token's start
					if c.name == "expression" {
						col = k + len(".join(") + 1
					}
					spots = append(spots, protocol.Position{Line: uint32(i), Character: uint32(col)})
				}
			}
			cl := newTestClient(b, testOptions())
			cl.initialize(nil)
			u := cl.open("big.py", "", text)
			params := map[string]any{"textDocument": map[string]any{"uri": u}}
			if err := cl.call("textDocument/documentSymbol", params, nil); err != nil { // the whole parse
				b.Fatal(err)
			}
			// Typing starts once the file is on screen. When the text was
			// cached (this benchmark's earlier runs in the process), the
			// outline above came from the cache and the document's own
			// tree is parsed in the background meanwhile (treesitter's
			// OpenDocument); a keystroke sooner waits for that parse.
			time.Sleep(300 * time.Millisecond)
			durs := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p := spots[(i*37)%len(spots)]
				s := time.Now()
				cl.change(u, lspRange(p.Line, p.Character, p.Line, p.Character), "x")
				if err := cl.call("textDocument/documentSymbol", params, nil); err != nil {
					b.Fatal(err)
				}
				durs = append(durs, time.Since(s))
			}
			b.StopTimer()
			reportPercentiles(b, durs)
		})
	}
}
