package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// The tool set's limits are a value in Deps: a tool set built with smaller
// ones shows less, says where it cut, and the defaults stand for the zero
// value.
func TestLimitsAreAValue(t *testing.T) {
	env := newTestEnv(t)
	var sb strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	writeRootFile(t, env, "a.txt", sb.String())
	run := func(lim Limits) string {
		ts := New(Deps{WS: env.WS, Resolver: env.Resolver, Limits: lim})
		res, err := ts.Run(context.Background(), "read", []byte(`{"path":"a.txt"}`), Call{Transport: "cli"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Text
	}
	if got := run(Limits{}); !strings.Contains(got, "\n40:line 40") {
		t.Fatalf("default limits cut a 40-line read:\n%s", got)
	}
	got := run(Limits{ReadLines: 10})
	if !strings.Contains(got, "\n10:line 10") || strings.Contains(got, "\n11:line 11") || !strings.Contains(got, "10-line limit") {
		t.Fatalf("ReadLines 10:\n%s", got)
	}
	got = run(Limits{ReadBytes: 64})
	if strings.Contains(got, "\n20:line 20") || !strings.Contains(got, "limit") {
		t.Fatalf("ReadBytes 64:\n%s", got)
	}
	// A search page of 2 files.
	for i := 0; i < 5; i++ {
		writeRootFile(t, env, fmt.Sprintf("s/f%d.txt", i), "needle\n")
	}
	ts := New(Deps{WS: env.WS, Limits: Limits{SearchFiles: 2}})
	res, err := ts.Run(context.Background(), "search", []byte(`{"pattern":"needle","paths":["s"]}`), Call{Transport: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(res.Text, "¶s/f"); n != 2 {
		t.Fatalf("SearchFiles 2 showed %d files:\n%s", n, res.Text)
	}
	if d := (Limits{ReadLines: 7}).orDefault(); d.ReadLines != 7 || d.ReadBytes != DefaultLimits().ReadBytes {
		t.Fatalf("a partly set Limits: %+v", d)
	}
}

// A search page rendered ahead in parallel is the page rendered one file at
// a time: files in order, each showing at most the per-file cap, and the
// call's budget of matches cut where it runs out (files rendered ahead with
// the per-file cap are rendered again with what the budget leaves them).
func TestSearchPageBudget(t *testing.T) {
	env := newTestEnv(t)
	// 120 files × 20 shown > the 2000 budget; the first file's 7 matches make
	// the budget run out in the middle of a file.
	const files, per, first = 120, 25, 7
	count := func(i int) int {
		if i == 0 {
			return first
		}
		return per
	}
	for i := 0; i < files; i++ {
		var sb strings.Builder
		for j := 0; j < count(i); j++ {
			fmt.Fprintf(&sb, "needle %d\n", j)
		}
		writeRootFile(t, env, fmt.Sprintf("s/f%03d.txt", i), sb.String())
	}
	ts := New(Deps{WS: env.WS, Limits: Limits{SearchFiles: files, SearchBytes: 1 << 24}})
	res, err := ts.Run(context.Background(), "search", []byte(`{"pattern":"needle","paths":["s"]}`), Call{Transport: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Details.(*searchDetails)
	if d.MatchCount != searchInternalCap || d.TotalMatches != first+(files-1)*per {
		t.Fatalf("shown %d of %d matches, want %d of %d", d.MatchCount, d.TotalMatches, searchInternalCap, first+(files-1)*per)
	}
	shown := 0
	for i, f := range d.Files {
		want := min(count(i), searchPerFileMulti, searchInternalCap-shown)
		if f != fmt.Sprintf("s/f%03d.txt", i) {
			t.Fatalf("file %d is %s: out of order", i, f)
		}
		sec := res.Text[strings.Index(res.Text, "¶"+f+"#"):]
		if k := strings.Index(sec[1:], "¶"); k >= 0 {
			sec = sec[:k+1]
		}
		if got := strings.Count(sec, "\n*"); got != want {
			t.Fatalf("%s shows %d matching rows, want %d", f, got, want)
		}
		shown += want
	}
	if shown != searchInternalCap {
		t.Fatalf("the files show %d matches, want %d", shown, searchInternalCap)
	}
}
