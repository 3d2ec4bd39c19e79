package workspace

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
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

// TestStatementsThroughDurableCommits runs multi-file commits, whose intent
// is written by writeFull (a transaction on a *sql.Conn committed with
// synchronous=FULL), often enough for their statements to be prepared: no
// deadlock on the writer's single connection, and every commit lands.
func TestStatementsThroughDurableCommits(t *testing.T) {
	root := t.TempDir()
	w, err := Open(root, Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	a, b := mustResolve(t, w, "a.txt"), mustResolve(t, w, "b.txt")
	done := make(chan error, 1)
	go func() {
		var oldA, oldB []byte
		for i := range 6 {
			newA, newB := fmt.Appendf(nil, "a %d\n", i), fmt.Appendf(nil, "b %d\n", i)
			baseA, baseB := BaseAbsent(), BaseAbsent()
			if oldA != nil {
				baseA, baseB = BaseOf(oldA), BaseOf(oldB)
			}
			if _, err := w.Commit(context.Background(), "test", []Change{
				{Path: a, Base: baseA, New: newA, NewTag: "A"},
				{Path: b, Base: baseB, New: newB, NewTag: "B"},
			}, CommitOptions{}); err != nil {
				done <- fmt.Errorf("commit %d: %w", i, err)
				return
			}
			oldA, oldB = newA, newB
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("six two-file commits did not finish in 60 s: a deadlock on the writer's connection?")
	}
	s := w.Store()
	s.wstmts.mu.Lock()
	prepared := len(s.wstmts.prepared)
	s.wstmts.mu.Unlock()
	if prepared == 0 {
		t.Fatal("no writer statement prepared after six commits")
	}
	for p, want := range map[Path]string{a: "a 5\n", b: "b 5\n"} {
		if got, err := os.ReadFile(p.Abs); err != nil || string(got) != want {
			t.Fatalf("%s holds %q (%v), want %q", p.Rel, got, err, want)
		}
	}
}
