package sqlitedb

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// shrink sets the read and write budgets small for one test: a cell over
// 1 KiB is big, no value over 64 KiB may be made or loaded, so that a
// read that loaded a big cell would fail, not pass unnoticed.
func shrink(t *testing.T) {
	t.Helper()
	oc, om, og, ow := CellCap, MaxValue, GrowthBudget, WriteBudget
	CellCap, MaxValue, GrowthBudget, WriteBudget = 1<<10, 64<<10, 1<<20, 2*time.Second
	t.Cleanup(func() { CellCap, MaxValue, GrowthBudget, WriteBudget = oc, om, og, ow })
}

// bigText is a text of about n bytes whose runes of 1 to 4 bytes fall
// across every page boundary, with no character that tables escape.
func bigText(n int) string {
	var b strings.Builder
	b.WriteString("HEAD:")
	for i := 0; b.Len() < n; i++ {
		b.WriteString([]string{"a", "é", "日本", "😀", "z"}[i%5])
		fmt.Fprintf(&b, "%d", i%10)
	}
	return b.String()
}

func execAll(t *testing.T, abs string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", abs)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%.80s: %v", s, err)
		}
	}
}

func insertText(t *testing.T, abs, stmt string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite", abs)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(stmt, args...); err != nil {
		t.Fatal(err)
	}
}

// A table with cells many times over the cap is read within the page: the
// cells are never loaded (the length limit would refuse it), they are
// shown by type, size and start, and a cell's pages rebuild it exactly.
func TestBigCells(t *testing.T) {
	shrink(t)
	abs := filepath.Join(t.TempDir(), "app.db")
	body := bigText(200 << 10)
	execAll(t, abs,
		`CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT, data BLOB)`,
		`CREATE TABLE kv(k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID`,
		`CREATE VIEW bodies AS SELECT id, body FROM docs`,
		`INSERT INTO docs VALUES (2, 'small', x'0102')`)
	insertText(t, abs, `INSERT INTO docs VALUES (1, ?, zeroblob(300000))`, body)
	insertText(t, abs, `INSERT INTO kv VALUES ('big', ?)`, body)

	out, info, err := read(t, abs, ":docs")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"<text " + fmt.Sprint(len(body)) + " bytes> HEAD:a0", "<blob 300000 bytes>", "| small", "2 cells over 1 KiB shown by type, size and start", "app.db:docs:KEY?col=COLUMN&byte=0"} {
		if !strings.Contains(out, w) {
			t.Errorf(":docs: no %q in\n%s", w, out)
		}
	}
	if info.BigCells != 2 {
		t.Errorf("BigCells %d, want 2", info.BigCells)
	}
	for _, rest := range []string{":docs?limit=5&order=id", ":bodies", ":kv"} {
		out, _, err := read(t, abs, rest)
		if err != nil || !strings.Contains(out, fmt.Sprintf("<text %d bytes>", len(body))) {
			t.Errorf("%s: %v\n%s", rest, err, out)
		}
	}

	// A row: its start, and where to read on.
	out, _, err = read(t, abs, ":docs:1")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\[body: text of (\d+) bytes, the first (\d+) bytes shown; read on with app\.db:docs:1\?col=body&byte=(\d+)\]`).FindStringSubmatch(out)
	if m == nil || m[1] != fmt.Sprint(len(body)) || m[2] != m[3] {
		t.Fatalf(":docs:1 names no next byte:\n%.600s", out[max(0, len(out)-600):])
	}
	if !strings.Contains(out, "[data: a blob of 300000 bytes; read its bytes (hex) with app.db:docs:1?col=data]") {
		t.Errorf(":docs:1 says nothing of the blob:\n%s", out[max(0, len(out)-600):])
	}

	// Page through the cell: the pages rebuild it exactly.
	var got strings.Builder
	next := ":docs:1?col=body&byte=0"
	for pages := 0; next != ""; pages++ {
		if pages > 100 {
			t.Fatal("paging does not end")
		}
		out, info, err := read(t, abs, next)
		if err != nil {
			t.Fatalf("%s: %v", next, err)
		}
		_, text, _ := strings.Cut(out, ":\n")
		text, _, _ = strings.Cut(text, "\n[")
		got.WriteString(text)
		next = strings.TrimPrefix(info.Next, "app.db")
		if next == "" && !strings.HasSuffix(out, "[End of the cell.]\n") {
			t.Fatalf("last page does not say so:\n%s", out[max(0, len(out)-200):])
		}
	}
	if got.String() != body {
		t.Errorf("the pages do not rebuild the cell: %d bytes, want %d", got.Len(), len(body))
	}
	// A page that starts inside a rune starts at the next one.
	out, _, err = read(t, abs, ":docs:1?col=body&byte=8") // inside the "é" at 7
	if err != nil || !strings.HasPrefix(out, "docs row id = 1, column body: text of") || !strings.Contains(out, "bytes 9-") {
		t.Errorf("mid-rune page: %v\n%.200s", err, out)
	}
	out, _, err = read(t, abs, ":docs:1?col=data&byte=299990")
	if err != nil || !strings.Contains(out, "bytes 299990-300000 in hex:\n000493d6  00000000000000000000\n[End of the cell.]") {
		t.Errorf("blob page: %v\n%s", err, out)
	}
	if _, _, err := read(t, abs, ":docs:1?col=body&byte=999999999"); err == nil || !strings.Contains(err.Error(), "past the end of the cell") {
		t.Errorf("byte past the end: %v", err)
	}
	out, _, err = read(t, abs, ":docs:2?col=id")
	if err != nil || out != "docs row id = 2, column id (integer): 2\n" {
		t.Errorf("a number cell: %q %v", out, err)
	}

	// SQL that would load a big cell is refused by the length limit,
	// with the way to read it.
	for _, rest := range []string{"?q=SELECT length(body) FROM docs", ":docs?where=body LIKE 'x%'", ":docs?order=body"} {
		_, _, err := read(t, abs, rest)
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindTooLarge || !strings.Contains(e.Msg, "octet_length(col)") {
			t.Errorf("%s: %v", rest, err)
		}
	}
	out, _, err = read(t, abs, "?q=SELECT id, octet_length(body) AS n FROM docs ORDER BY id")
	if err != nil || !strings.Contains(out, fmt.Sprintf("| 1  | %d |", len(body))) {
		t.Errorf("octet_length: %v\n%s", err, out)
	}
	// WITHOUT ROWID: no rowid to read a big cell in pieces.
	if _, _, err := read(t, abs, ":kv:big?col=v"); err == nil || !strings.Contains(err.Error(), "no rowid to read it in pieces") {
		t.Errorf("WITHOUT ROWID big cell: %v", err)
	}
}

// A write whose trigger runs away is stopped by its budgets and rolled
// back; the database stays readable and writable.
func TestWriteBudgets(t *testing.T) {
	shrink(t)
	abs := filepath.Join(t.TempDir(), "app.db")
	execAll(t, abs,
		`CREATE TABLE grow(v TEXT)`, `CREATE TABLE junk(x)`, `CREATE TABLE spin(v TEXT)`, `CREATE TABLE huge(v TEXT)`, `CREATE TABLE ok(v TEXT)`,
		`CREATE TRIGGER grow_t AFTER INSERT ON grow BEGIN INSERT INTO junk WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c) SELECT randomblob(1000) FROM c; END`,
		`CREATE TRIGGER spin_t AFTER INSERT ON spin BEGIN INSERT INTO junk WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c) SELECT count(*) FROM c; END`,
		`CREATE TRIGGER huge_t AFTER INSERT ON huge BEGIN INSERT INTO junk VALUES (zeroblob(100000000)); END`,
	)
	size := func() int64 {
		st, err := os.Stat(abs)
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	before := size()
	for _, c := range []struct{ table, want string }{
		{"grow", "growth budget of one SQLite write"},
		{"spin", "the time budget of a SQLite write"},
		{"huge", "made or loaded a value over 64 KiB"},
	} {
		start := time.Now()
		_, err := write(t, abs, c.table, "", false, `{v: 'x'}`)
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindTooLarge || !strings.Contains(e.Msg, c.want) || !strings.Contains(e.Msg, "nothing was changed") {
			t.Errorf("%s: %v", c.table, err)
		}
		if d := time.Since(start); d > WriteBudget+3*time.Second {
			t.Errorf("%s: took %s", c.table, d)
		}
		if grown := size() - before; grown > GrowthBudget+(1<<20) {
			t.Errorf("%s: the file grew by %d bytes", c.table, grown)
		}
		if _, err := os.Stat(JournalPath(abs)); err == nil {
			t.Errorf("%s: a journal was left behind", c.table)
		}
	}
	out, _, err := read(t, abs, "?q=SELECT (SELECT count(*) FROM junk) AS junk, (SELECT count(*) FROM grow) AS grow")
	if err != nil || !strings.Contains(out, "| 0    | 0    |") {
		t.Errorf("after the stopped writes: %v\n%s", err, out)
	}
	if r, err := write(t, abs, "ok", "", false, `{v: 'fine'}`); err != nil || r.Op != "insert" {
		t.Errorf("a write after them: %+v %v", r, err)
	}
}

// A hot journal (a writer killed mid-transaction) makes a read-only read
// fail: the read says so and how to repair, and RollBackJournal repairs.
func TestHotJournal(t *testing.T) {
	dir := t.TempDir()
	abs := filepath.Join(dir, "app.db")
	execAll(t, abs, `PRAGMA journal_mode=DELETE`, `CREATE TABLE t(v TEXT)`, `INSERT INTO t VALUES ('kept')`)
	copyHot(t, abs, filepath.Join(dir, "hot.db"))
	hot := filepath.Join(dir, "hot.db")
	if !HotJournal(fileAt(t, hot)) {
		t.Fatal("the copy has no hot journal")
	}
	_, err := OpenReadOnly(fileAt(t, hot))
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Msg, "a write transaction was left unfinished") || !strings.Contains(e.Msg, "hashls doctor --fix") {
		t.Fatalf("read of a database with a hot journal: %v", err)
	}
	if ok, err := RollBackJournal(fileAt(t, hot)); !ok || err != nil {
		t.Fatalf("RollBackJournal: %v %v", ok, err)
	}
	out, _, err := read(t, hot, "?q=SELECT count(*) AS n, min(v) AS v FROM t")
	if err != nil || !strings.Contains(out, "| 1 | kept |") {
		t.Errorf("after the rollback: %v\n%s", err, out)
	}
}

// copyHot copies the database at abs to dst in the middle of a write
// transaction whose changes have spilled into the file, with its
// journal: the copy has a hot journal no process holds a lock on.
func copyHot(t *testing.T, abs, dst string) {
	t.Helper()
	db, err := sql.Open("sqlite", abs)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range []string{`PRAGMA cache_size=2`, `BEGIN IMMEDIATE`, `UPDATE t SET v = 'changed'`,
		`INSERT INTO t SELECT hex(randomblob(2000)) FROM (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c LIMIT 200) SELECT n FROM c)`} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	for _, p := range [][2]string{{abs, dst}, {JournalPath(abs), JournalPath(dst)}} {
		in, err := os.Open(p[0])
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(p[1])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		in.Close()
		out.Close()
	}
	if _, err := db.Exec(`ROLLBACK`); err != nil {
		t.Fatal(err)
	}
}
