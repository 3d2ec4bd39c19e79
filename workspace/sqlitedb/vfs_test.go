package sqlitedb

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// subdirFile is the database name in the directory sub of parent, opened
// as the workspace opens directories (relative to an open parent: on
// Windows it may then be renamed while open).
func subdirFile(t *testing.T, parent, sub, name string) File {
	t.Helper()
	p, err := os.OpenRoot(parent)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	dir, err := p.OpenRoot(sub)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dir.Close() })
	return File{Dir: dir, Name: name}
}

// bothWays runs test with the databases named through their directory's
// descriptor (where the system can) and by their path, checked.
func bothWays(t *testing.T, test func(*testing.T)) {
	for _, pin := range []bool{true, false} {
		t.Run(map[bool]string{true: "pinned", false: "checked"}[pin], func(t *testing.T) {
			defer func(p bool) { pinning = p }(pinning)
			pinning = pin
			test(t)
		})
	}
}

func countRows(t *testing.T, db *sql.DB, table string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFileWAL: a database in WAL mode, with rows only in its write-ahead
// log (another connection holds it open, no checkpoint), is read through
// its directory with those rows, written, and read again by the other
// connection; a big cell is read through the second (blob) connection.
func TestFileWAL(t *testing.T) { bothWays(t, testFileWAL) }

func testFileWAL(t *testing.T) {
	abs := makeDB(t)
	other, err := sql.Open("sqlite", abs)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.SetMaxOpenConns(1)
	for _, s := range []string{`PRAGMA journal_mode=WAL`, `PRAGMA wal_autocheckpoint=0`, `INSERT INTO log VALUES ('in the log')`} {
		if _, err := other.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	if fi, err := os.Stat(abs + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("no write-ahead log: %v", err)
	}
	f := subdirFile(t, filepath.Dir(filepath.Dir(abs)), filepath.Base(filepath.Dir(abs)), "app.db")
	ro, err := OpenReadOnly(f)
	if err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, ro, "log"); n != 3 {
		t.Errorf("read-only: %d rows in log, want 3", n)
	}
	sel, err := ParseSelector(":users:1?col=avatar")
	if err != nil {
		t.Fatal(err)
	}
	if text, _, err := Read(context.Background(), ro, "app.db", sel); err != nil || !strings.Contains(text, "00ff") {
		t.Errorf("cell read: %v\n%s", err, text)
	}
	ro.Close()
	rw, err := OpenReadWrite(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rw.Exec(`INSERT INTO log VALUES ('written')`); err != nil {
		t.Fatal(err)
	}
	rw.Close()
	if n := countRows(t, other, "log"); n != 4 {
		t.Errorf("after the write: %d rows in log, want 4", n)
	}
}

// TestFileJournalRemoved: a write in rollback-journal mode removes its
// journal (through the directory: vfsDelete) and leaves nothing beside the
// database.
func TestFileJournalRemoved(t *testing.T) { bothWays(t, testFileJournalRemoved) }

func testFileJournalRemoved(t *testing.T) {
	abs := makeDB(t)
	db, err := OpenReadWrite(fileAt(t, abs))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := db.Exec(`INSERT INTO log VALUES ('x')`); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	ents, _ := os.ReadDir(filepath.Dir(abs))
	if len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("beside the database: %v", names)
	}
}

// TestFileIsItsDirectorys: a database's directory renamed and another put
// at its path after the caller opened it: the database read is the one in
// the directory opened (Linux, through its descriptor), or the read is
// refused (the check alone, as on macOS and Windows), never the other.
func TestFileIsItsDirectorys(t *testing.T) {
	for _, pin := range []bool{true, false} {
		t.Run(map[bool]string{true: "pinned", false: "checked"}[pin], func(t *testing.T) {
			defer func(p bool) { pinning = p }(pinning)
			pinning = pin
			base := t.TempDir()
			os.Mkdir(filepath.Join(base, "a"), 0o755)
			abs := makeDB(t)
			b, _ := os.ReadFile(abs)
			os.WriteFile(filepath.Join(base, "a", "app.db"), b, 0o644)
			f := subdirFile(t, base, "a", "app.db")
			if err := os.Rename(filepath.Join(base, "a"), filepath.Join(base, "moved")); err != nil {
				t.Skip("this system cannot rename an open directory:", err)
			}
			os.Mkdir(filepath.Join(base, "a"), 0o755)
			other, err := sql.Open("sqlite", filepath.Join(base, "a", "app.db"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := other.Exec(`CREATE TABLE other(x)`); err != nil {
				t.Fatal(err)
			}
			other.Close()
			db, err := OpenReadOnly(f)
			switch {
			case pin && canPin(f):
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				if n := countRows(t, db, "users"); n != 30 {
					t.Errorf("read %d users, want the 30 of the directory opened", n)
				}
			case err == nil:
				db.Close()
				t.Fatal("read the database now at the path, not the directory's")
			case !strings.Contains(err.Error(), "is not the one in its directory"):
				t.Errorf("refused, but saying %v", err)
			}
		})
	}
}

// canPin reports whether this system names f through its directory.
func canPin(f File) bool {
	name, unpin := pinned(f.Dir, f.Name)
	unpin()
	return name != ""
}
