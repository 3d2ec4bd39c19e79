package workspace

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
// n earlier versions, each trashed by the edit after it (so pinned by a
// trash entry), as n edits leave them, and n audit rows. A commit's store
// work must not grow with the history (compare the two in one run).
func BenchmarkCommitLongHistory(b *testing.B) {
	for _, n := range []int{0, 20000} {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			root := b.TempDir()
			ws, err := Open(root, Options{StateDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer ws.Close()
			p, err := ws.Resolve("f.go")
			if err != nil {
				b.Fatal(err)
			}
			fabricateHistory(b, ws.Store(), p.Abs, n)
			body := bytes.Repeat([]byte("some line of code in the file\n"), 170)
			var cur []byte
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				next := append(fmt.Appendf(nil, "// version %d\n", i), body...)
				base := BaseAbsent()
				if cur != nil {
					base = BaseOf(cur)
				}
				if _, err := ws.Commit(ctx, "edit", []Change{{Path: p, Base: base, New: next, NewTag: "BBBB"}}, CommitOptions{}); err != nil {
					b.Fatal(err)
				}
				cur = next
			}
		})
	}
}

// fabricateHistory writes into s what n edits of key leave behind, without
// running them: n snapshots of 5 KB (all but the newest trashed, so pinned)
// with their trash entries and audit rows.
func fabricateHistory(tb testing.TB, s *Store, key string, n int) {
	if n == 0 {
		return
	}
	err := s.write(func(tx wtx) error {
		for i := 0; i < n; i++ {
			res, err := tx.Exec(`INSERT INTO snapshots(key, tag, sha256, content, size, time) VALUES (?, ?, ?, zeroblob(5000), 5000, ?)`,
				key, fmt.Sprintf("%04X", i%65536), fmt.Appendf(nil, "%032d", i), i)
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
		_, err := tx.Exec(`UPDATE meta SET value = value + ? WHERE name = 'content_bytes'`, 5000*n)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
}
