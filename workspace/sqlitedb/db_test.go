package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// makeDB creates a small database in a temp directory and returns its path.
func makeDB(t testing.TB) string {
	t.Helper()
	abs := filepath.Join(t.TempDir(), "app.db")
	db, err := sql.Open("sqlite", abs)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts := []string{
		`CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, active INT DEFAULT 1, avatar BLOB)`,
		`CREATE TABLE tags(label TEXT PRIMARY KEY, n INT)`,
		`CREATE TABLE log(msg TEXT)`,
		`CREATE TABLE pair(a INT, b INT, v TEXT, PRIMARY KEY(a, b)) WITHOUT ROWID`,
		`CREATE VIEW active_users AS SELECT id, name FROM users WHERE active = 1`,
		`INSERT INTO tags VALUES ('go', 3), ('sql', 1)`,
		`INSERT INTO log VALUES ('first'), ('second')`,
		`INSERT INTO pair VALUES (1, 2, 'x')`,
	}
	for i := 1; i <= 30; i++ {
		stmts = append(stmts, fmt.Sprintf(`INSERT INTO users(name, email, active, avatar) VALUES ('user%02d', 'u%d@x', %d, x'00ff')`, i, i, i%2))
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return abs
}

func read(t *testing.T, abs, rest string) (string, ReadInfo, error) {
	t.Helper()
	sel, err := ParseSelector(rest)
	if err != nil {
		return "", ReadInfo{}, err
	}
	db, err := OpenReadOnly(fileAt(t, abs))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return Read(context.Background(), db, "app.db", sel)
}

func TestIsSQLiteFile(t *testing.T) {
	abs := makeDB(t)
	if !IsSQLiteFile(fileAt(t, abs)) {
		t.Error("real database not detected")
	}
	plain := filepath.Join(t.TempDir(), "x.db")
	os.WriteFile(plain, []byte("not sqlite\n"), 0o644)
	if IsSQLiteFile(fileAt(t, plain)) || IsSQLiteFile(fileAt(t, filepath.Join(t.TempDir(), "missing.db"))) || IsSQLiteFile(fileAt(t, t.TempDir())) {
		t.Error("non-SQLite detected as SQLite")
	}
}

func TestRead(t *testing.T) {
	abs := makeDB(t)
	cases := []struct {
		rest string
		want []string
		not  []string
		err  string
		kind string
	}{
		{rest: "", want: []string{"app.db: 4 tables", "| users | 30", "| tags  | 2", "| pair  | 1"}, not: []string{"active_users", "sqlite_"}},
		{rest: ":users", want: []string{"CREATE TABLE users", "30 rows; sample of 5", "user05", "<blob 2 bytes>", "More: app.db:users?limit=20&offset=5"}, not: []string{"user06"}},
		{rest: ":active_users", want: []string{"CREATE VIEW", "15 rows"}},
		{rest: ":users:7", want: []string{"users row id = 7", "name:   user07", "email:  u7@x"}},
		{rest: ":tags:go", want: []string{"tags row label = go", "n:     3"}},
		{rest: ":log:2", want: []string{"log row rowid = 2", "msg: second"}},
		{rest: ":users?limit=3&offset=2&order=name:desc", want: []string{"users: rows 3-5 of 30", "user28", "user26", "[More rows: use app.db:users?limit=3&offset=5&order=name:desc]"}, not: []string{"user29"}},
		{rest: ":users?where=active=0 AND id<6", want: []string{"rows 1-2 of 2", "user02", "user04"}, not: []string{"More rows"}},
		{rest: ":users?limit=1000", want: []string{"rows 1-30 of 30", "[limit capped at 500]"}},
		{rest: ":users?offset=100", want: []string{"no rows at offset 100 (30 matching)"}},
		{rest: "?q=SELECT count(*) AS n FROM users WHERE active = 1", want: []string{"1 row", "| n  |", "| 15 |"}},
		{rest: "?q=WITH x(v) AS (VALUES (1), (2)) SELECT v FROM x", want: []string{"2 rows"}},
		// errors
		{rest: ":nope", err: `no table "nope" (tables: log, pair, tags, users)`, kind: KindNotFound},
		{rest: ":users:999", err: "no row with id = 999", kind: KindNotFound},
		{rest: ":log:abc", err: "not an integer", kind: KindUsage},
		{rest: ":pair:1", err: "WITHOUT ROWID", kind: KindUsage},
		{rest: ":active_users:1", err: "view", kind: KindUsage},
		{rest: ":users?order=nope", err: "no such column (columns: id, name", kind: KindUsage},
		{rest: ":users?where=nope = 1", err: "no such column", kind: KindUsage},
		{rest: "?q=SELECT * FROM nope", err: "no such table", kind: KindUsage},
		{rest: "?q=DELETE FROM users", err: "read-only statements only", kind: KindUsage},
		{rest: "?q=WITH x AS (SELECT 1) DELETE FROM users", err: "read-only", kind: KindUsage},
		{rest: "?q=SELECT 1; DROP TABLE users", err: "one statement", kind: KindUsage},
	}
	for _, c := range cases {
		t.Run(c.rest, func(t *testing.T) {
			out, _, err := read(t, abs, c.rest)
			if c.err != "" {
				var e *Error
				if err == nil || !strings.Contains(err.Error(), c.err) || !errors.As(err, &e) || e.Kind != c.kind {
					t.Fatalf("err %v, want %s %q", err, c.kind, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("missing %q in:\n%s", w, out)
				}
			}
			for _, n := range c.not {
				if strings.Contains(out, n) {
					t.Errorf("unexpected %q in:\n%s", n, out)
				}
			}
		})
	}
	// The database is unchanged after the rejected writes.
	out, _, _ := read(t, abs, "")
	if !strings.Contains(out, "| users | 30") {
		t.Errorf("database changed:\n%s", out)
	}
}

func TestReadOnlyConnection(t *testing.T) {
	abs := makeDB(t)
	db, err := OpenReadOnly(fileAt(t, abs))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Even a statement that slips past ValidateRaw cannot write.
	if _, err := db.Exec(`DELETE FROM users`); err == nil {
		t.Fatal("read-only connection wrote")
	}
	if _, err := OpenReadOnly(fileAt(t, filepath.Join(t.TempDir(), "missing.db"))); err == nil {
		t.Error("opening a missing database read-only succeeded")
	}
	missing := filepath.Join(t.TempDir(), "missing.db")
	if _, err := OpenReadWrite(fileAt(t, missing)); err == nil {
		t.Error("OpenReadWrite created a database")
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("a database file was created")
	}
}

func write(t *testing.T, abs, table, key string, hasKey bool, content string) (WriteResult, error) {
	t.Helper()
	db, err := OpenReadWrite(fileAt(t, abs))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return Write(context.Background(), db, "app.db", table, key, hasKey, content, nil)
}

func TestWrite(t *testing.T) {
	abs := makeDB(t)
	r, err := write(t, abs, "users", "", false, `{name: 'Ada', email: "ada@x", active: true,}`)
	if err != nil || r.Op != "insert" || r.RowID != 31 || r.Text != "Inserted row into users (id = 31)" || !strings.Contains(string(r.NewRow), `"name":"Ada"`) {
		t.Fatalf("insert: %+v %v", r, err)
	}
	r, err = write(t, abs, "log", "", false, `{}`)
	if err != nil || r.Text != "Inserted row into log (rowid 3)" {
		t.Fatalf("default values: %+v %v", r, err)
	}
	r, err = write(t, abs, "users", "31", true, `{email: 'new@x'}`)
	if err != nil || r.Op != "update" || r.Text != "Updated row '31' in users" || !strings.Contains(string(r.OldRow), `"email":"ada@x"`) || !strings.Contains(string(r.NewRow), `"email":"new@x"`) {
		t.Fatalf("update: %+v %v", r, err)
	}
	r, err = write(t, abs, "tags", "go", true, `{n: 4}`)
	if err != nil || r.Op != "update" {
		t.Fatalf("update by text key: %+v %v", r, err)
	}
	r, err = write(t, abs, "users", "999", true, `{email: 'x'}`)
	if e, ok := err.(*Error); !ok || e.Kind != KindNotFound || !strings.HasPrefix(e.Msg, "no row updated") {
		t.Fatalf("update missing: %+v %v", r, err)
	}
	r, err = write(t, abs, "users", "31", true, "  \n")
	if err != nil || r.Op != "delete" || r.Text != "Deleted row '31' from users" || !strings.Contains(string(r.OldRow), `"name":"Ada"`) {
		t.Fatalf("delete: %+v %v", r, err)
	}
	r, err = write(t, abs, "users", "31", true, "")
	if e, ok := err.(*Error); !ok || e.Kind != KindNotFound || !strings.HasPrefix(e.Msg, "no row deleted") {
		t.Fatalf("delete missing: %+v %v", r, err)
	}
	r, err = write(t, abs, "log", "1", true, "")
	if err != nil || r.Op != "delete" {
		t.Fatalf("delete by rowid: %+v %v", r, err)
	}
	errs := []struct {
		table, key string
		hasKey     bool
		content    string
		want       string
		kind       string
	}{
		{"nope", "", false, `{}`, `no table "nope"`, KindNotFound},
		{"users", "", false, `{nope: 1}`, `no column "nope"`, KindUsage},
		{"users", "", false, `{name: {a: 1}}`, "not an object or array", KindUsage},
		{"users", "", false, `{name: Infinity}`, "Infinity", KindUsage},
		{"users", "", false, `{email: 'x'}`, "NOT NULL constraint", KindUsage},
		{"users", "", false, `[1]`, "JSON5 object", KindUsage},
		{"users", "", false, `{name: 'a',`, "invalid JSON5", KindUsage},
		{"users", "", false, ``, "empty content inserts nothing", KindUsage},
		{"users", "1", true, `{}`, "update object is empty", KindUsage},
		{"users", "1", true, `{name: null}`, "NOT NULL", KindUsage},
		{"pair", "1", true, ``, "composite primary key", KindUsage},
		{"log", "x", true, ``, "not an integer", KindUsage},
		{"active_users", "", false, `{name: 'x'}`, "view", KindUsage},
	}
	for _, c := range errs {
		_, err := write(t, abs, c.table, c.key, c.hasKey, c.content)
		var e *Error
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &e) || e.Kind != c.kind {
			t.Errorf("%s:%s %q: err %v, want %s %q", c.table, c.key, c.content, err, c.kind, c.want)
		}
	}
	// Failed writes rolled back; the database is still usable.
	out, _, err := read(t, abs, "?q=SELECT count(*) AS n FROM users")
	if err != nil || !strings.Contains(out, "| 30 |") {
		t.Errorf("after failed writes: %s %v", out, err)
	}
}

// Keys are reported exactly: 64-bit integer keys digit for digit (past
// 2^53, where a float64 would round them), and WITHOUT ROWID tables by the
// primary key they were given.
func TestWriteKeysExact(t *testing.T) {
	abs := makeDB(t)
	db, err := sql.Open("sqlite", abs)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`CREATE TABLE kv(k TEXT PRIMARY KEY, v INT) WITHOUT ROWID`,
		`CREATE TABLE nk(k INTEGER PRIMARY KEY, v INT) WITHOUT ROWID`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	for _, c := range []struct {
		table, content, key, text string
		rowid                     int64
	}{
		{"users", `{id: 9007199254740995, name: 'big'}`, "9007199254740995", "Inserted row into users (id = 9007199254740995)", 9007199254740995},
		{"users", `{id: 9223372036854775807, name: 'max'}`, "9223372036854775807", "Inserted row into users (id = 9223372036854775807)", 9223372036854775807},
		{"kv", `{k: 'alpha', v: 1}`, "alpha", "Inserted row into kv (k = alpha)", 0},
		{"nk", `{k: 9007199254740993, v: 1}`, "9007199254740993", "Inserted row into nk (k = 9007199254740993)", 0},
	} {
		r, err := write(t, abs, c.table, "", false, c.content)
		if err != nil || r.Key != c.key || r.Text != c.text || r.RowID != c.rowid || r.NewRow == nil {
			t.Errorf("insert %s %s: %+v %v; want key %s", c.table, c.content, r, err, c.key)
			continue
		}
		// The reported key selects the row.
		u, err := write(t, abs, c.table, r.Key, true, `{v: 7}`)
		if c.table == "users" {
			u, err = write(t, abs, c.table, r.Key, true, `{email: 'e'}`)
		}
		if err != nil || u.Op != "update" || u.Key != c.key {
			t.Errorf("update %s:%s: %+v %v", c.table, r.Key, u, err)
		}
	}
}

// FuzzSelector runs arbitrary selectors and queries (db.sqlite:SEL,
// db.sqlite?q=…) against a real database file over the read-only
// connection: nothing may panic, and the file is byte-identical afterwards
// (a read can never write, whatever the query).
func FuzzSelector(f *testing.F) {
	for _, s := range []string{"", "users", "users:3", "users?limit=2&offset=1&order=name:desc", "users?where=active=1",
		"pair:1,2", "tags:go", "?q=SELECT * FROM users", "?q=DELETE FROM users", "?q=PRAGMA writable_schema=1",
		"users?where=1); DROP TABLE users; --", "?q=ATTACH 'x.db' AS x", "active_users", "users?order=nope",
		":users:3?col=name&byte=2", ":users:1?col=avatar", ":pair:1?col=v", ":tags:go?col=n&byte=0"} {
		f.Add(s)
	}
	abs := makeDB(f)
	want, err := os.ReadFile(abs)
	if err != nil {
		f.Fatal(err)
	}
	db, err := OpenReadOnly(fileAt(f, abs))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	f.Fuzz(func(t *testing.T, rest string) {
		sel, err := ParseSelector(rest)
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _, _ = Read(ctx, db, "app.db", sel)
		if sel.Kind == SelRaw {
			_ = ValidateRaw(sel.SQL)
		}
		got, err := os.ReadFile(abs)
		if err != nil || string(got) != string(want) {
			t.Fatalf("reading %q changed the database file", rest)
		}
		entries, _ := os.ReadDir(filepath.Dir(abs))
		for _, e := range entries {
			if e.Name() != "app.db" && !strings.HasPrefix(e.Name(), "app.db-") {
				t.Fatalf("reading %q created %s", rest, e.Name())
			}
		}
	})
}

// A runaway query returns within QueryBudget and says that it hit it: an
// endless recursive CTE behind an aggregate, or one that yields a row and
// then none, is a too_large error; an endless row source stops at the row
// budget and says so.
func TestQueryBudget(t *testing.T) {
	abs := makeDB(t)
	old := QueryBudget
	QueryBudget = 300 * time.Millisecond
	t.Cleanup(func() { QueryBudget = old })
	const endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) "
	cases := []struct {
		rest string
		want []string
		err  string
		kind string
	}{
		{rest: "?q=" + endless + "SELECT count(*) FROM c", err: "stopped after 300ms, the time budget", kind: KindTooLarge},
		{rest: "?q=" + endless + "SELECT x FROM c", want: []string{"500 rows", "[Showing the first 500 rows (the row budget of a query)"}},
		// One row, then none ever again: never a hang in the row loop.
		{rest: "?q=" + endless + "SELECT x FROM c WHERE x = 1 OR x > 1000000000000", err: "time budget", kind: KindTooLarge},
		{rest: "?q=" + endless + "SELECT x FROM c LIMIT 3; -- done", want: []string{"3 rows", "| x |"}},
		{rest: "?q=EXPLAIN SELECT 1", want: []string{"addr"}},
		{rest: ":users?where=(SELECT count(*) FROM users a, users b, users c, users d, users e WHERE a.id > users.id) >= 0", err: "time budget", kind: KindTooLarge},
	}
	for _, c := range cases {
		start := time.Now()
		text, _, err := read(t, abs, c.rest)
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: took %s", c.rest, d)
		}
		if c.err != "" {
			var e *Error
			if err == nil || !strings.Contains(err.Error(), c.err) || !errors.As(err, &e) || e.Kind != c.kind {
				t.Errorf("%s: err %v, want %q (%s)", c.rest, err, c.err, c.kind)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.rest, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: no %q in\n%s", c.rest, w, text[max(0, len(text)-400):])
			}
		}
	}
}

// fileAt is the database at abs as a File, its directory open for the
// test.
func fileAt(tb testing.TB, abs string) File {
	tb.Helper()
	dir, err := os.OpenRoot(filepath.Dir(abs))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { dir.Close() })
	return File{Dir: dir, Name: filepath.Base(abs)}
}
