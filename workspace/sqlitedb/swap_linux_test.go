//go:build linux

package sqlitedb

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashls/hashls/internal/testsys"
)

// TestFileSwapRace: a loop swaps root/a, a directory, with root/link, a
// symlink to a directory outside the root (renameat2 RENAME_EXCHANGE),
// while databases in a/ (opened beneath the root, as the workspace opens
// them) are read, rows and a cell (the blob reader's second connection),
// and written: named through their directory (Linux) and by path with the
// check alone (as on macOS and Windows). The database outside holds
// OUTSIDE: no read shows it, no write changes it. It runs for
// HASHLS_SWAP_SECONDS per way (1 s with -short, else 5 s).
func TestFileSwapRace(t *testing.T) { bothWays(t, testFileSwapRace) }

func testFileSwapRace(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	for dir, word := range map[string]string{filepath.Join(root, "a"): "inside", outside: "OUTSIDE"} {
		os.MkdirAll(dir, 0o755)
		db, err := sql.Open("sqlite", filepath.Join(dir, "app.db"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`CREATE TABLE t(id INTEGER PRIMARY KEY, x TEXT); INSERT INTO t(x) VALUES ('` + word + `')`); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	before, err := testsys.TreeSums(outside)
	if err != nil {
		t.Fatal(err)
	}
	rootDir, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer rootDir.Close()
	stopSwapping, err := testsys.SwapLoop(filepath.Join(root, "a"), filepath.Join(root, "link"))
	if err != nil {
		t.Skip(err)
	}
	cell, err := ParseSelector(":t:1?col=x")
	if err != nil {
		t.Fatal(err)
	}
	d := testsys.RaceDuration("HASHLS_SWAP_SECONDS")
	var reads, writes, refused, shown atomic.Int64
	deadline := time.Now().Add(d)
	for i := 0; time.Now().Before(deadline); i++ {
		dir, err := rootDir.OpenRoot("a")
		if err != nil {
			continue // a was the link when opened: refused beneath the root
		}
		f := File{Dir: dir, Name: "app.db"}
		if i%4 == 3 {
			if db, err := OpenReadWrite(f); err != nil {
				refused.Add(1)
			} else {
				if _, err := db.Exec(`UPDATE t SET x = 'inside' WHERE id = 1`); err == nil {
					writes.Add(1)
				}
				db.Close()
			}
			dir.Close()
			continue
		}
		db, err := OpenReadOnly(f)
		dir.Close()
		if err != nil {
			refused.Add(1)
			continue
		}
		var x string
		if err := db.QueryRow(`SELECT x FROM t WHERE id = 1`).Scan(&x); err == nil {
			reads.Add(1)
			if strings.Contains(x, "OUTSIDE") {
				shown.Add(1)
			}
		}
		if text, _, err := Read(context.Background(), db, "a/app.db", cell); err == nil {
			reads.Add(1)
			if strings.Contains(text, "OUTSIDE") {
				shown.Add(1)
			}
		}
		db.Close()
	}
	swaps := stopSwapping()
	after, err := testsys.TreeSums(outside)
	if err != nil {
		t.Fatal(err)
	}
	changed := testsys.TreeChanges(before, after)
	t.Logf("%v: %d swaps, %d reads, %d writes, %d opens refused; outside: %d reads showed it, %d made or changed", d, swaps, reads.Load(), writes.Load(), refused.Load(), shown.Load(), len(changed))
	if shown.Load() > 0 || len(changed) > 0 {
		t.Fatalf("escaped the root: %d reads of outside content; %v", shown.Load(), changed)
	}
	if swaps == 0 || reads.Load() == 0 || writes.Load() == 0 {
		t.Fatalf("no race: %d swaps, %d reads, %d writes", swaps, reads.Load(), writes.Load())
	}
}
