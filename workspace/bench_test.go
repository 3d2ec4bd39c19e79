package workspace

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkStoreOpen opens and closes an existing store (what every
// `hashls tool` invocation pays), with one Lookup to force the reader open.
func BenchmarkStoreOpen(b *testing.B) {
	dir := b.TempDir()
	s, err := OpenStore(dir, "/bench")
	if err != nil {
		b.Fatal(err)
	}
	s.Record("/bench/a", "AAAA", []byte("x"))
	s.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := OpenStore(dir, "/bench")
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStoreOpenRecord is a whole short-lived process's store work:
// open, record one snapshot, look it up, close.
func BenchmarkStoreOpenRecord(b *testing.B) {
	dir := b.TempDir()
	content := bytes.Repeat([]byte("some line of code\n"), 500)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := OpenStore(dir, "/bench")
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Record("/bench/f", fmt.Sprintf("T%d", i%16), content[:len(content)-i%16]); err != nil {
			b.Fatal(err)
		}
		if _, ok, err := s.Lookup("/bench/f", fmt.Sprintf("T%d", i%16)); err != nil || !ok {
			b.Fatal(ok, err)
		}
		s.Close()
	}
}

// BenchmarkRecord records a new 9 KB version of one of 100 files.
func BenchmarkRecord(b *testing.B) {
	s := openTestStore(b, b.TempDir())
	content := bytes.Repeat([]byte("some line of code\n"), 500)
	b.SetBytes(int64(len(content)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		content[i%len(content)]++
		if err := s.Record(fmt.Sprintf("/bench/f%d", i%100), fmt.Sprintf("%04X", i%65536), content); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecordUnchanged re-records the head (the common read path).
func BenchmarkRecordUnchanged(b *testing.B) {
	s := openTestStore(b, b.TempDir())
	content := bytes.Repeat([]byte("some line of code\n"), 500)
	for i := 0; i < b.N; i++ {
		if err := s.Record("/bench/f", "ABCD", content); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLookup(b *testing.B) {
	s := openTestStore(b, b.TempDir())
	content := bytes.Repeat([]byte("some line of code\n"), 500)
	for i := 0; i < 8; i++ {
		s.Record("/bench/f", fmt.Sprintf("T%d", i), append(content, byte(i)))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok, err := s.Lookup("/bench/f", fmt.Sprintf("T%d", i%8)); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkResolve(b *testing.B) {
	root := b.TempDir()
	os.MkdirAll(filepath.Join(root, "a", "b", "c"), 0o755)
	w, err := Open(root, Options{NoStore: true})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if _, err := w.Resolve("a/b/c/new.go"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteFile(b *testing.B) {
	root := b.TempDir()
	w, err := Open(root, Options{NoStore: true})
	if err != nil {
		b.Fatal(err)
	}
	p, _ := w.Resolve("f.txt")
	content := []byte(strings.Repeat("some line of code\n", 500))
	if err := writeFile(w, context.Background(), p, nil, content, ""); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := writeFile(w, context.Background(), p, content, content, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecordAllPage re-records a search page: twenty unchanged 9 KB
// files with the lines shown, in one transaction.
func BenchmarkRecordAllPage(b *testing.B) {
	s := openTestStore(b, b.TempDir())
	content := bytes.Repeat([]byte("some line of code\n"), 500)
	recs := make([]Recording, 20)
	for i := range recs {
		recs[i] = Recording{Key: fmt.Sprintf("/bench/f%d", i), Tag: "ABCD", Content: content, Seen: []LineRange{{Start: 10, End: 14}}}
	}
	if err := s.RecordAll(recs); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := s.RecordAll(recs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommitLongHistory commits a one-line change of a 5 KB file on a
// fresh store and on one that already holds a long history of that file:
// n earlier versions kept as deltas (a whole copy every maxDeltaDepth+1),
// each trashed by the edit after it (so pinned by a trash entry), as n
// edits leave them, and n audit rows; n stays under the trash's entry cap,
// which would otherwise prune the history the first commits find. The two
// stores are committed to in turn in one loop, so that a shared machine's
// load hits both alike: a commit's store work must not grow with the
// history (history/fresh, the ratio of the medians, stays near 1).
func BenchmarkCommitLongHistory(b *testing.B) {
	n := DefaultLimits().MaxTrashEntries - 100
	ctx := context.Background()
	body := bytes.Repeat([]byte("some line of code in the file\n"), 170)
	type side struct {
		ws    *Workspace
		p     Path
		cur   []byte
		times []time.Duration
	}
	open := func(history int) *side {
		ws, err := Open(b.TempDir(), Options{StateDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { ws.Close() })
		p, err := ws.Resolve("f.go")
		if err != nil {
			b.Fatal(err)
		}
		fabricateHistory(b, ws.Store(), p.Abs, history)
		return &side{ws: ws, p: p}
	}
	sides := []*side{open(0), open(n)}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		for _, s := range sides {
			next := append(fmt.Appendf(nil, "// version %d\n", i), body...)
			base := BaseAbsent()
			if s.cur != nil {
				base = BaseOf(s.cur)
			}
			t := time.Now()
			if _, err := s.ws.Commit(ctx, "edit", []Change{{Path: s.p, Base: base, New: next, NewTag: "BBBB"}}, CommitOptions{}); err != nil {
				b.Fatal(err)
			}
			s.times = append(s.times, time.Since(t))
			s.cur = next
		}
	}
	median := func(d []time.Duration) float64 {
		d = slices.Clone(d)
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	fresh, long := median(sides[0].times), median(sides[1].times)
	b.ReportMetric(fresh, "fresh-ms")
	b.ReportMetric(long, "history-ms")
	b.ReportMetric(long/fresh, "history/fresh")
}

// fabricateHistory writes into s what n edits of key leave behind, without
// running them: n snapshots of 5 KB whose contents are kept as schema 8
// keeps them (a whole copy every maxDeltaDepth+1 versions, the others
// deltas of 60 bytes against the one before), all but the newest trashed
// (so pinned), with their trash entries and audit rows.
func fabricateHistory(tb testing.TB, s *Store, key string, n int) {
	if n == 0 {
		return
	}
	err := s.write(func(tx wtx) error {
		var prev int64
		for i := 0; i < n; i++ {
			depth := i % (maxDeltaDepth + 1)
			var base any
			size := 5000
			if depth > 0 {
				base, size = prev, 60
			}
			res, err := tx.Exec(`INSERT INTO contents(sha256, size, base, depth, data) VALUES (?, 5000, ?, ?, zeroblob(?))`,
				fmt.Appendf(nil, "%032d", i), base, depth, size)
			if err != nil {
				return err
			}
			prev, _ = res.LastInsertId()
			res, err = tx.Exec(`INSERT INTO snapshots(key, tag, sha256, size, time, content_id) VALUES (?, ?, ?, 5000, ?, ?)`,
				key, fmt.Sprintf("%04X", i%65536), fmt.Appendf(nil, "%032d", i), i, prev)
			if err != nil {
				return err
			}
			id, _ := res.LastInsertId() // pinned by its trash entry (the triggers)
			if _, err := tx.Exec(`INSERT INTO trash(key, content, size, reason, time, snapshot_id) VALUES (?, x'', 5000, 'edit', ?, ?)`, key, i, id); err != nil {
				return err
			}
			if _, err := tx.Exec(`INSERT INTO audit(tool, path, sha_before, sha_after, time, note) VALUES ('edit', 'f.go', '', '', ?, '')`, i); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}
