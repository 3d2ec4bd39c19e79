package workspace

import (
	"fmt"
	"testing"
)

// TestStatementsPreparedOnSecondRun checks the statement cache: nothing is
// prepared for reuse by a statement's first run (a one-shot process pays
// nothing extra), the writer's and the readers' statements are from the
// second run on, and results stay right through them.
func TestStatementsPreparedOnSecondRun(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	count := func(c *stmtCache) int {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.prepared)
	}
	if err := s.Record("/k", "T0", []byte("v0")); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.Lookup("/k", "T0"); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if w, r := count(&s.wstmts), count(&s.rstmts); w != 0 || r != 0 {
		t.Fatalf("after one run of each statement: %d writer and %d reader statements prepared, want none", w, r)
	}
	for i := 1; i <= 5; i++ {
		content := fmt.Appendf(nil, "v%d", i)
		if err := s.Record("/k", fmt.Sprintf("T%d", i), content); err != nil {
			t.Fatal(err)
		}
		for j := 0; j <= i; j++ {
			snap, ok, err := s.Lookup("/k", fmt.Sprintf("T%d", j))
			if err != nil || !ok || snap.Head != (j == i) {
				t.Fatalf("Lookup(T%d) after version %d: %+v %v %v", j, i, snap, ok, err)
			}
			got, kept, err := s.SnapshotContent(snap.ID)
			if err != nil || !kept || string(got) != fmt.Sprintf("v%d", j) {
				t.Fatalf("content of T%d: %q %v %v", j, got, kept, err)
			}
		}
	}
	if w, r := count(&s.wstmts), count(&s.rstmts); w == 0 || r == 0 {
		t.Fatalf("after repeated runs: %d writer and %d reader statements prepared, want some of each", w, r)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
