package workspace

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashls/hashls/workspace/sqlitedb"
)

// A SQLite database under the root left in the middle of a write (a hot
// journal: a writer killed mid-transaction) cannot be read; doctor reports
// it, and --fix rolls it back, after which it reads as before the write.
func TestDoctorHotJournal(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	w := openHealthWS(t, root, state, 1)
	defer w.Close()
	src := filepath.Join(t.TempDir(), "src.db")
	db, err := sql.Open("sqlite", src)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range []string{`PRAGMA journal_mode=DELETE`, `CREATE TABLE t(v TEXT)`, `INSERT INTO t VALUES ('kept')`,
		`PRAGMA cache_size=2`, `BEGIN IMMEDIATE`, `UPDATE t SET v = 'changed'`,
		`INSERT INTO t SELECT hex(randomblob(2000)) FROM (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c LIMIT 200) SELECT n FROM c)`} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	dst := filepath.Join(root, "data", "app.db")
	os.MkdirAll(filepath.Dir(dst), 0o755)
	for _, p := range [][2]string{{src, dst}, {src + "-journal", dst + "-journal"}} {
		b, err := os.ReadFile(p[0])
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(p[1], b, 0o644)
	}
	db.Exec(`ROLLBACK`)
	if _, err := sqlitedb.OpenReadOnly(dbAt(t, w, "data/app.db")); err == nil || !strings.Contains(err.Error(), "hashls doctor --fix") {
		t.Fatalf("a read of the copy: %v", err)
	}

	r, err := w.Doctor(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	text := r.Text()
	for _, want := range []string{"sqlite      1 database(s) left in the middle of a write", "  data/app.db\n", "roll back the unfinished write transaction of 1 SQLite database(s)"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	r, err = w.Doctor(context.Background(), true)
	if err != nil || !strings.Contains(r.Text(), "fixed: rolled back the unfinished transaction of data/app.db") {
		t.Fatalf("fix: %v\n%s", err, r.Text())
	}
	rdb, err := sqlitedb.OpenReadOnly(dbAt(t, w, "data/app.db"))
	if err != nil {
		t.Fatalf("a read after the fix: %v", err)
	}
	defer rdb.Close()
	var n int
	var v string
	if err := rdb.QueryRow(`SELECT count(*), min(v) FROM t`).Scan(&n, &v); err != nil || n != 1 || v != "kept" {
		t.Errorf("after the rollback: %d %q %v", n, v, err)
	}
	if r, _ := w.Doctor(context.Background(), false); len(r.HotJournals) != 0 {
		t.Errorf("still reported: %v", r.HotJournals)
	}
}

// dbAt is the SQLite database rel of w as sqlitedb opens it.
func dbAt(t *testing.T, w *Workspace, rel string) sqlitedb.File {
	t.Helper()
	dir, name, err := w.OpenParent(Path{Rel: rel})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dir.Close() })
	return sqlitedb.File{Dir: dir, Name: name}
}
