package treesitter

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite testdata/langs.golden")

// describeSample renders, for one sample file, the block every line
// resolves to, the document symbols and the roots-only summary segments.
func describeSample(t *testing.T, name string, data []byte) (desc string, blocks, syms int, elided bool) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "== %s (%s)\n", name, LanguageFor(name).Name)
	for l := 1; l <= countLines(data); l++ {
		ln, _ := lineAt(data, l)
		s, e, ok := DefaultResolver.BlockRange(name, string(data), l)
		if ok {
			blocks++
			fmt.Fprintf(&b, "%3d %-44q block %d-%d\n", l, string(ln), s, e)
		} else {
			fmt.Fprintf(&b, "%3d %-44q -\n", l, string(ln))
		}
	}
	list, err := DocumentSymbols(context.Background(), name, data)
	if err != nil {
		t.Fatalf("%s: DocumentSymbols: %v", name, err)
	}
	var pr func(s []Symbol, ind string)
	pr = func(s []Symbol, ind string) {
		for _, x := range s {
			syms++
			fmt.Fprintf(&b, "symbol %s%s %q lines %d-%d\n", ind, x.Kind, x.Name, x.Range.StartPoint.Row+1, x.Range.EndPoint.Row+1)
			pr(x.Children, ind+"  ")
		}
	}
	pr(list, "")
	o := DefaultSummaryOptions()
	o.UnfoldUntil = 0
	sum, err := Summarize(context.Background(), name, data, o)
	if err != nil {
		t.Fatalf("%s: Summarize: %v", name, err)
	}
	fmt.Fprintf(&b, "summary parsed=%v elided=%v", sum.Parsed, sum.Elided)
	for _, s := range sum.Segments {
		if s.Elided {
			fmt.Fprintf(&b, " elided %d-%d", s.Start, s.End)
		}
	}
	b.WriteString("\n")
	return b.String(), blocks, syms, sum.Parsed && sum.Elided
}

// TestLanguages runs every sample in testdata/langs.txtar through block
// resolution, symbols and summaries and compares with testdata/langs.golden
// (reviewed by hand; regenerate with -update).
func TestLanguages(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/langs.txtar")
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	covered := map[string]bool{}
	full := 0
	for _, f := range ar.Files {
		lang := LanguageFor(f.Name)
		if lang == nil {
			t.Fatalf("%s: no language", f.Name)
		}
		tr, err := parse(context.Background(), lang, f.Data)
		if err != nil || tr.hasError() {
			t.Errorf("%s: does not parse cleanly (err=%v)", f.Name, err)
			continue
		}
		desc, blocks, syms, elided := describeSample(t, f.Name, f.Data)
		all.WriteString(desc)
		covered[lang.Name] = true
		if blocks > 0 && syms > 0 && elided {
			full++
		} else {
			t.Logf("%s: blocks=%d symbols=%d elided=%v", f.Name, blocks, syms, elided)
		}
	}
	for _, name := range Languages() {
		if !covered[name] {
			t.Errorf("language %s has no sample", name)
		}
	}
	if full < 25 {
		t.Errorf("only %d languages have blocks, symbols and an elided summary; want ≥ 25", full)
	}
	if *update {
		if err := os.WriteFile("testdata/langs.golden", []byte(all.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("testdata/langs.golden")
	if err != nil {
		t.Fatalf("%v (run go test -run TestLanguages -update)", err)
	}
	if got := all.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("golden mismatch at line %d:\n got %s\nwant %s", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("golden mismatch: %d lines vs %d", len(gl), len(wl))
	}
}
