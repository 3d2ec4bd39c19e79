package workspace

import (
	"fmt"
	"sync"
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

// TestStatementsNotPreparedAfterTheLastWrite: statements that run many
// times in one process's only write transaction (a one-shot search
// recording its page) are noted, not prepared: the process may never write
// again.
func TestStatementsNotPreparedAfterTheLastWrite(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	var recs []Recording
	for i := range 10 {
		recs = append(recs, Recording{Key: fmt.Sprintf("/f%d", i), Tag: "T", Content: fmt.Appendf(nil, "file %d", i)})
	}
	if err := s.RecordAll(recs); err != nil {
		t.Fatal(err)
	}
	s.wstmts.mu.Lock()
	prepared, wanted := len(s.wstmts.prepared), len(s.wstmts.wanted)
	s.wstmts.mu.Unlock()
	if prepared != 0 || wanted == 0 {
		t.Fatalf("after one transaction: %d statements prepared and %d noted, want none prepared and some noted", prepared, wanted)
	}
	seen := map[string]bool{}
	for _, q := range s.wstmts.wanted {
		if seen[q] {
			t.Fatalf("noted twice: %s", q)
		}
		seen[q] = true
	}
}

// TestStatementsConcurrent runs the store's statements from several
// goroutines at once, so that statements are prepared while others run
// (the writer's after each transaction, the readers' on the spot): every
// result must stay right (and `go test -race ./workspace -run Statements`
// finds no race).
func TestStatementsConcurrent(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := fmt.Sprintf("/g%d", g)
			for i := range 30 {
				tag := fmt.Sprintf("T%d", i)
				content := fmt.Appendf(nil, "goroutine %d version %d", g, i)
				if err := s.Record(key, tag, content); err != nil {
					errs <- err
					return
				}
				snap, ok, err := s.Lookup(key, tag)
				if err != nil || !ok || !snap.Head {
					errs <- fmt.Errorf("Lookup(%s, %s) = %+v, %v, %v", key, tag, snap, ok, err)
					return
				}
				got, kept, err := s.SnapshotContent(snap.ID)
				if err != nil || !kept || string(got) != string(content) {
					errs <- fmt.Errorf("content of %s %s: %q, %v, %v", key, tag, got, kept, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
