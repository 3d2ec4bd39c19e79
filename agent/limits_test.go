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
