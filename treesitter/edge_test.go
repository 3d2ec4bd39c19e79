package treesitter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

func TestBlockRangeEdges(t *testing.T) {
	goSrc := "package p\n\nfunc a() {\n\tx := 1\n\t_ = x\n}\n\nfunc b() {\n\tif true {\n}\n"
	tests := []struct {
		name, path, text string
		line             int
		ok               bool
		start, end       int
	}{
		{"unknown extension", "data.unknownext", "func a() {\n}\n", 1, false, 0, 0},
		{"no extension", "README", "x\n", 1, false, 0, 0},
		{"empty text", "a.go", "", 1, false, 0, 0},
		{"line 0", "a.go", goSrc, 0, false, 0, 0},
		{"negative line", "a.go", goSrc, -3, false, 0, 0},
		{"past the end", "a.go", goSrc, 99, false, 0, 0},
		{"blank line", "a.go", goSrc, 2, false, 0, 0},
		{"whitespace-only line", "a.go", "package p\n\t  \nvar x = 1\n", 2, false, 0, 0},
		{"CR-only line", "a.go", "package p\n\r\nvar x = 1\n", 2, false, 0, 0},
		{"closing brace", "a.go", goSrc, 6, false, 0, 0},
		{"valid func before a syntax error", "a.go", goSrc, 3, true, 3, 6},
		{"syntax error inside the node", "a.go", goSrc, 8, false, 0, 0},
		{"continuation line", "a.ts", "const x = 1\n  + 2;\n", 2, false, 0, 0},
		{"sentinel line", "a.go", "package p\n", 2, false, 0, 0},
		{"no final newline", "a.py", "def f():\n    return 1", 1, true, 1, 2},
		{"binary", "a.go", "\x00\x01\x02\xff\xfe\n\x00func", 1, false, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, e, ok := DefaultResolver.BlockRange(tc.path, tc.text, tc.line)
			if ok != tc.ok || s != tc.start || e != tc.end {
				t.Errorf("BlockRange(%s, line %d) = %d-%d ok=%v, want %d-%d ok=%v", tc.path, tc.line, s, e, ok, tc.start, tc.end, tc.ok)
			}
		})
	}
}

func TestSummarizeEdges(t *testing.T) {
	ctx := context.Background()
	long := func(n int) []byte {
		var b strings.Builder
		b.WriteString("package p\n")
		for i := 1; strings.Count(b.String(), "\n") < n; i++ {
			fmt.Fprintf(&b, "\nfunc f%d() {\n\ta := 1\n\tb := 2\n\t_ = a + b\n}\n", i)
		}
		return []byte(b.String())
	}
	t.Run("unknown extension", func(t *testing.T) {
		s, err := Summarize(ctx, "x.unknownext", long(200), DefaultSummaryOptions())
		if err != nil || s.Parsed || s.Elided {
			t.Fatalf("got %+v, %v", s, err)
		}
	})
	t.Run("empty", func(t *testing.T) {
		s, err := Summarize(ctx, "x.go", nil, DefaultSummaryOptions())
		if err != nil || s.Parsed || s.Lines != 0 {
			t.Fatalf("got %+v, %v", s, err)
		}
	})
	t.Run("syntax error anywhere", func(t *testing.T) {
		s, err := Summarize(ctx, "x.go", append(long(200), "func broken( {\n"...), DefaultSummaryOptions())
		if err != nil || s.Parsed {
			t.Fatalf("got parsed=%v, %v", s.Parsed, err)
		}
	})
	t.Run("binary", func(t *testing.T) {
		bin := make([]byte, 4096)
		rand.New(rand.NewSource(1)).Read(bin)
		s, err := Summarize(ctx, "x.go", bin, DefaultSummaryOptions())
		if err != nil || s.Parsed {
			t.Fatalf("got parsed=%v, %v", s.Parsed, err)
		}
	})
	t.Run("20001 lines", func(t *testing.T) {
		// The 20,000-line limit belongs to the read tool; the engine still
		// summarises (and covers every line).
		text := long(20001)
		s, err := Summarize(ctx, "x.go", text, DefaultSummaryOptions())
		if err != nil || !s.Parsed || !s.Elided || s.Lines != countLines(text) {
			t.Fatalf("got parsed=%v elided=%v lines=%d, %v", s.Parsed, s.Elided, s.Lines, err)
		}
		checkSegments(t, s)
	})
	t.Run("over 2 MiB", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("package p\n")
		for i := 0; b.Len() < 2<<20+1000; i++ {
			fmt.Fprintf(&b, "\nfunc f%d() {\n\ts := %q\n\t_ = s\n\t_ = s\n}\n", i, strings.Repeat("y", 400))
		}
		s, err := Summarize(ctx, "x.go", []byte(b.String()), DefaultSummaryOptions())
		if err != nil || !s.Parsed || !s.Elided {
			t.Fatalf("got %+v, %v", s, err)
		}
		checkSegments(t, s)
	})
	t.Run("unfoldUntil 0 folds only roots", func(t *testing.T) {
		o := DefaultSummaryOptions()
		o.UnfoldUntil = 0
		s, err := Summarize(ctx, "x.go", long(200), o)
		if err != nil || !s.Elided {
			t.Fatal(s, err)
		}
		for _, seg := range s.Segments {
			if seg.Elided && seg.End-seg.Start+1 != 3 {
				t.Errorf("segment %+v: want only function bodies (3 lines)", seg)
			}
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		c, cancel := context.WithCancel(ctx)
		cancel()
		text := append(long(3000), "// uncached\n"...)
		if _, err := Summarize(c, "x.go", text, DefaultSummaryOptions()); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		// The pooled parser must not resume the cancelled parse.
		s, err := Summarize(ctx, "x.go", text, DefaultSummaryOptions())
		if err != nil || !s.Parsed || s.Lines != countLines(text) {
			t.Fatalf("after cancel: %+v, %v", s, err)
		}
	})
}

// checkSegments verifies that segments alternate and cover 1..Lines.
func checkSegments(t *testing.T, s *Summary) {
	t.Helper()
	next := 1
	for i, seg := range s.Segments {
		if seg.Start != next || seg.End < seg.Start || (i > 0 && seg.Elided == s.Segments[i-1].Elided) {
			t.Fatalf("bad segment %d %+v in %v", i, seg, s.Segments)
		}
		next = seg.End + 1
	}
	if s.Lines > 0 && next != s.Lines+1 {
		t.Fatalf("segments end at %d, want %d", next-1, s.Lines)
	}
}

func TestUnsupported(t *testing.T) {
	ctx := context.Background()
	if Supported("a.unknownext") || !Supported("a.go") || !Supported("Dockerfile") || !Supported("x/Makefile.py") {
		t.Fatal("Supported is wrong")
	}
	if _, err := DocumentSymbols(ctx, "a.unknownext", []byte("x")); !errors.Is(err, ErrUnsupported) {
		t.Errorf("DocumentSymbols: %v", err)
	}
	if _, err := FoldingRanges(ctx, "a.unknownext", []byte("x")); !errors.Is(err, ErrUnsupported) {
		t.Errorf("FoldingRanges: %v", err)
	}
	if _, err := SelectionRanges(ctx, "a.unknownext", []byte("x"), []int{0}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("SelectionRanges: %v", err)
	}
}

func TestLanguageFor(t *testing.T) {
	tests := map[string]string{
		"a.go": "go", "A.GO": "go", "x/y/z.tsx": "tsx", "Dockerfile": "dockerfile", "Dockerfile.prod": "dockerfile",
		"api.dockerfile": "dockerfile", "Rakefile": "ruby", "Gemfile": "ruby", ".bashrc": "bash", "Jenkinsfile": "groovy",
		"main.tf": "hcl", "c:\\src\\main.rs": "rust", "x.h": "c", "x.hpp": "cpp", "README.md": "markdown",
		"Makefile": "", "a.unknownext": "", "noext": "", "CMakeLists.txt": "",
	}
	for p, want := range tests {
		got := ""
		if l := LanguageFor(p); l != nil {
			got = l.Name
		}
		if got != want {
			t.Errorf("LanguageFor(%q) = %q, want %q", p, got, want)
		}
	}
}

// TestConcurrentUse hammers the pool and cache from many goroutines (run
// with -race): trees are immutable Go data, so sharing is safe.
func TestConcurrentUse(t *testing.T) {
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				src := fmt.Sprintf("package p\n\nfunc f%d() {\n\tx := %d\n\t_ = x\n}\n", i%5, i%3)
				if s, e, ok := DefaultResolver.BlockRange("a.go", src, 3); !ok || s != 3 || e != 6 {
					errs <- fmt.Errorf("goroutine %d: block %d-%d %v", g, s, e, ok)
					return
				}
				if _, err := DocumentSymbols(ctx, "a.go", []byte(src)); err != nil {
					errs <- err
					return
				}
				py := fmt.Sprintf("def f():\n    return %d\n", i%4)
				if _, err := Summarize(ctx, "a.py", []byte(py), DefaultSummaryOptions()); err != nil {
					errs <- err
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestCacheBounded(t *testing.T) {
	c := newTreeCache(3, 1000)
	lang := LanguageByName("go")
	texts := make([][]byte, 10)
	for i := range texts {
		texts[i] = []byte(fmt.Sprintf("package p%d\n%s", i, strings.Repeat(" ", 90)))
		e := c.entry(lang, texts[i])
		if _, err := e.get(context.Background(), 2); err != nil {
			t.Fatal(err)
		}
	}
	if c.len() != 3 || c.weight != 3*len(texts[0]) {
		t.Fatalf("len=%d weight=%d", c.len(), c.weight)
	}
	// The newest entry is still cached (same entry back), the oldest is not.
	if e1, e2 := c.entry(lang, texts[9]), c.entry(lang, texts[9]); e1 != e2 || e1.skel.Load() == nil {
		t.Fatal("newest entry not cached")
	}
	old := c.entry(lang, texts[0])
	if old.skel.Load() != nil {
		t.Fatal("evicted entry came back")
	}
	big := c.entry(lang, []byte(strings.Repeat("x", 2000))) // over budget: uncached
	if !big.closed || c.len() != 3 {
		t.Fatalf("oversized text cached (len=%d)", c.len())
	}
}

// TestSummaryThenBlockParsesOnce: a summary keeps the C tree, and the block
// op that follows resolves on that same C tree (no second parse, no full
// copy); a cold block op keeps its C tree for the next one.
func TestSummaryThenBlockParsesOnce(t *testing.T) {
	text := []byte("package p\n\nfunc a() {\n\tx := 1\n\t_ = x\n\t_ = x\n}\n// unique 7d1f\n")
	lang := LanguageByName("go")
	if _, err := Summarize(context.Background(), "a.go", text, DefaultSummaryOptions()); err != nil {
		t.Fatal(err)
	}
	e := defaultCache.entry(lang, text)
	e.mu.Lock()
	before := e.ctree
	e.mu.Unlock()
	if before == nil || e.skel.Load() == nil || e.skel.Load().pruneLines == 0 {
		t.Fatal("summary did not keep the C tree and a pruned skeleton")
	}
	if s, end, ok := DefaultResolver.BlockRange("a.go", string(text), 3); !ok || s != 3 || end != 7 {
		t.Fatalf("block %d-%d %v", s, end, ok)
	}
	e.mu.Lock()
	after := e.ctree
	e.mu.Unlock()
	if after != before || e.full.Load() != nil {
		t.Fatal("the block op did not reuse the summary's C tree")
	}

	cold := []byte("package q\n\nfunc b() {\n}\n// unique 91ac\n")
	if s, end, ok := DefaultResolver.BlockRange("b.go", string(cold), 3); !ok || s != 3 || end != 4 {
		t.Fatalf("cold block %d-%d %v", s, end, ok)
	}
	ce := defaultCache.entry(lang, cold)
	ce.mu.Lock()
	keptCold := ce.ctree != nil
	ce.mu.Unlock()
	if !keptCold || ce.full.Load() != nil {
		t.Fatal("a cold block op should resolve on the C tree and keep it")
	}
}

// TestBlockCMatchesFlattened: resolving on the C tree gives exactly what the
// flattened tree gives, for every line of every sample.
func TestBlockCMatchesFlattened(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/langs.txtar")
	if err != nil {
		t.Fatal(err)
	}
	type sample struct {
		name string
		text []byte
	}
	var samples []sample
	for _, f := range ar.Files {
		samples = append(samples, sample{f.Name, f.Data})
	}
	for _, c := range loadJSONL[struct {
		Name, Path, File string
	}](t, "../testdata/conformance/hashline/cases.jsonl") {
		samples = append(samples, sample{c.Path, []byte(c.File)})
	}
	checked := 0
	for _, smp := range samples {
		lang := LanguageFor(smp.name)
		if lang == nil || lang.trim {
			continue
		}
		full, err := parseFresh(context.Background(), lang, smp.text)
		if err != nil {
			continue
		}
		e := &entry{lang: lang, text: smp.text, closed: true}
		st, err := e.parseC(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range bytes.Split(smp.text, []byte("\n")) {
			col := firstContentColumn(l)
			if col < 0 {
				continue
			}
			ws, we, wok := 0, 0, false
			if n, ok := full.blockAt(uint32(i), uint32(col)); ok {
				ws, we, wok = int(full.nodes[n].StartRow)+1, full.lastRow(n)+1, true
			}
			gs, ge, gok := blockAtC(lang, st, uint32(i), uint32(col))
			if gs != ws || ge != we || gok != wok {
				t.Errorf("%s line %d: C tree %d-%d %v, flattened %d-%d %v", smp.name, i+1, gs, ge, gok, ws, we, wok)
			}
			checked++
		}
		st.Close()
	}
	if checked < 500 {
		t.Fatalf("only %d lines checked", checked)
	}
}

// TestSkeletonSummaryMatchesFull: summaries from a tree pruned as Summarize
// prunes it (below min(MinBodyLines, MinCommentLines) lines) equal those
// from the complete tree; a skeleton pruned for more lines is never used for
// options that need fewer.
func TestSkeletonSummaryMatchesFull(t *testing.T) {
	cases := loadJSONL[summaryCase](t, "../testdata/conformance/summary/cases.jsonl")
	for _, c := range cases {
		text := []byte(lfText(c.File))
		lang := LanguageFor(c.Path)
		full, err := parseFresh(context.Background(), lang, text)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []SummaryOptions{DefaultSummaryOptions(), {MinBodyLines: 2, MinCommentLines: 4, UnfoldUntil: 0}} {
			e := &entry{lang: lang, text: text, closed: true}
			skel, err := e.get(context.Background(), min(o.MinBodyLines, o.MinCommentLines))
			if err != nil {
				t.Fatal(err)
			}
			if skel.pruneLines == 0 || len(skel.nodes) >= len(full.nodes) {
				t.Errorf("%s: skeleton has %d nodes, full %d", c.Name, len(skel.nodes), len(full.nodes))
			}
			var r1, r2 []*fspan
			full.collectSpans(0, o, &r1, 0)
			skel.collectSpans(0, o, &r2, 0)
			s1, _ := segments(unfold(r1, c.Lines, o), c.Lines)
			s2, _ := segments(unfold(r2, c.Lines, o), c.Lines)
			if fmt.Sprint(s1) != fmt.Sprint(s2) {
				t.Errorf("%s %+v: skeleton %v != full %v", c.Name, o, s2, s1)
			}
		}
		e := &entry{lang: lang, text: text, closed: true}
		s4, _ := e.get(context.Background(), 4)
		s2, _ := e.get(context.Background(), 2)
		if s4.pruneLines != 4 || s2.pruneLines != 2 || len(s2.nodes) < len(s4.nodes) {
			t.Errorf("%s: skeletons for 4 and 2 lines: %d (%d nodes), %d (%d nodes)", c.Name, s4.pruneLines, len(s4.nodes), s2.pruneLines, len(s2.nodes))
		}
		if again, _ := e.get(context.Background(), 4); again != s2 {
			t.Errorf("%s: the finer skeleton is not reused for a coarser request", c.Name)
		}
	}
}

// TestConcurrentEviction mixes summaries (which keep C trees) and block ops
// on shared contents with a tiny cache, so entries are evicted and their C
// trees closed while other goroutines use them (run with -race).
func TestConcurrentEviction(t *testing.T) {
	saved := defaultCache
	defaultCache = newTreeCache(2, 1<<20)
	defer func() { defaultCache.purge(); defaultCache = saved }()
	var srcs [][]byte
	for i := 0; i < 5; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "package p\n// v%d\n", i)
		for j := 0; j < 30; j++ {
			fmt.Fprintf(&b, "\nfunc f%d() {\n\ta := %d\n\tb := a\n\t_ = b\n}\n", j, i)
		}
		srcs = append(srcs, []byte(b.String()))
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 30; i++ {
				src := srcs[(g+i)%len(srcs)]
				s, err := Summarize(context.Background(), "a.go", src, DefaultSummaryOptions())
				if err != nil || !s.Parsed {
					errs <- fmt.Errorf("summary: %v", err)
					return
				}
				if a, b, ok := DefaultResolver.BlockRange("a.go", string(src), 4); !ok || a != 4 || b != 8 {
					errs <- fmt.Errorf("block %d-%d %v", a, b, ok)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestRetainedCTreesBounded(t *testing.T) {
	saved := defaultCache
	defaultCache = newTreeCache(64, 4<<20)
	defer func() { defaultCache.purge(); defaultCache = saved }()
	var entries []*entry
	for i := 0; i < maxRetainedTrees+4; i++ {
		text := []byte(fmt.Sprintf("package p\n\nfunc f() {\n\t_ = %d\n}\n", i))
		if _, err := Summarize(context.Background(), "a.go", text, DefaultSummaryOptions()); err != nil {
			t.Fatal(err)
		}
		entries = append(entries, defaultCache.entry(LanguageByName("go"), text))
	}
	held := 0
	for i, e := range entries {
		e.mu.Lock()
		if e.ctree != nil {
			held++
			if i < 4 {
				t.Errorf("entry %d (oldest) still holds its C tree", i)
			}
		}
		e.mu.Unlock()
	}
	if held != maxRetainedTrees {
		t.Errorf("%d C trees held, want %d", held, maxRetainedTrees)
	}
	// An entry whose C tree was dropped re-parses for a full tree.
	if s, e, ok := DefaultResolver.BlockRange("a.go", "package p\n\nfunc f() {\n\t_ = 0\n}\n", 3); !ok || s != 3 || e != 5 {
		t.Fatalf("block %d-%d %v", s, e, ok)
	}
}
