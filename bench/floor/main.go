// Command floor measures the least a process can take that does what the
// one-shot goals of issue 16 item 2 time, under the design (DESIGN.md), so
// that bench/edit.sh prints those floors beside hashls's own figures:
//
//	floor start         links what the design chooses for the engine
//	                    (modernc's SQLite, the tree-sitter grammars) and
//	                    exits: no hashls binary starts faster
//	floor init DIR      creates DIR/floor.db and records DIR/big.txt
//	floor edit DIR TAG  the least a 50-hunk edit of DIR/big.txt must do:
//	                    open the store, read the file, prove TAG by
//	                    its sha256, apply, hash and tag the new content,
//	                    write it atomically (temp file, fsync, rename,
//	                    directory fsync), record the new snapshot (once per
//	                    content), a trash row and an audit row
//	floor loop DIR TAG N  the edit N times in one process, the file put
//	                    back before each (what a running hub must do at
//	                    least): prints the median in ms
//
// It leaves out what hashls adds to that minimum (the file lock, the
// seen-lines check, the journal, the diff and the preview, path
// confinement, the argument checks), so each figure is a lower bound: a ratio goal below a floor
// cannot be met without changing the design.
package main

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/hashls/hashls/edit"
	_ "github.com/hashls/hashls/treesitter"
	_ "modernc.org/sqlite"
)

const schema = `
CREATE TABLE IF NOT EXISTS snapshots(id INTEGER PRIMARY KEY, key TEXT NOT NULL, tag TEXT NOT NULL, sha256 BLOB NOT NULL, content BLOB, UNIQUE(key, sha256));
CREATE INDEX IF NOT EXISTS snapshots_tag ON snapshots(key, tag);
CREATE TABLE IF NOT EXISTS trash(id INTEGER PRIMARY KEY, key TEXT NOT NULL, snapshot_id INTEGER NOT NULL, time INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS audit(id INTEGER PRIMARY KEY, path TEXT NOT NULL, before BLOB, after BLOB, time INTEGER NOT NULL);`

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 1 && args[0] == "start" {
		return nil
	}
	if len(args) < 2 {
		return errors.New("usage: floor start | init DIR | edit DIR TAG | loop DIR TAG N")
	}
	dir := args[1]
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "floor.db")+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(schema); err != nil {
		return err
	}
	file := filepath.Join(dir, "big.txt")
	switch {
	case args[0] == "init":
		b, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		_, err = db.Exec(`INSERT INTO snapshots(key, tag, sha256, content) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`, file, edit.Tag(b), sum[:], b)
		return err
	case args[0] == "edit" && len(args) == 3:
		tag, err := editOnce(db, file, args[2])
		if err == nil {
			fmt.Printf("¶big.txt#%s\n", tag)
		}
		return err
	case args[0] == "loop" && len(args) == 4:
		n, err := strconv.Atoi(args[3])
		if err != nil || n < 1 {
			return fmt.Errorf("loop: %q is not a count", args[3])
		}
		orig, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		var ds []time.Duration
		for range n {
			if err := os.WriteFile(file, orig, 0o644); err != nil {
				return err
			}
			t := time.Now()
			if _, err := editOnce(db, file, args[2]); err != nil {
				return err
			}
			ds = append(ds, time.Since(t))
		}
		slices.Sort(ds)
		fmt.Printf("%.3f\n", float64(ds[len(ds)/2].Microseconds())/1000)
		return nil
	}
	return fmt.Errorf("unknown command %q", args)
}

// editOnce replaces lines 1, 201, 401, ... (50 of them) of file, whose
// content tag names, with "changed N", as bench/edit.sh's edit does.
func editOnce(db *sql.DB, file, tag string) (string, error) {
	old, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	oldSum := sha256.Sum256(old)
	var snapID int64
	var want []byte
	if err := db.QueryRow(`SELECT id, sha256 FROM snapshots WHERE key = ? AND tag = ? ORDER BY id DESC LIMIT 1`, file, tag).Scan(&snapID, &want); err != nil {
		return "", fmt.Errorf("tag %s: %w", tag, err)
	}
	if !bytes.Equal(want, oldSum[:]) {
		return "", fmt.Errorf("stale: %s does not hold the content tagged %s", file, tag)
	}
	out := make([]byte, 0, len(old)+1024)
	for i, line, hunk := 0, 1, 0; i < len(old); line++ {
		end := len(old)
		if j := bytes.IndexByte(old[i:], '\n'); j >= 0 {
			end = i + j + 1
		}
		if (line-1)%200 == 0 && hunk < 50 {
			out = append(out, "changed "+strconv.Itoa(hunk)+"\n"...)
			hunk++
		} else {
			out = append(out, old[i:end]...)
		}
		i = end
	}
	newSum := sha256.Sum256(out)
	newTag := edit.Tag(out)
	tmp := filepath.Join(filepath.Dir(file), ".big.txt.floor.tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(out); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, file); err != nil {
		return "", err
	}
	d, err := os.Open(filepath.Dir(file))
	if err != nil {
		return "", err
	}
	err = d.Sync()
	d.Close()
	if err != nil {
		return "", err
	}
	tx, err := db.Begin()
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	now := time.Now().UnixNano()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO snapshots(key, tag, sha256, content) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`, []any{file, newTag, newSum[:], out}},
		{`INSERT INTO trash(key, snapshot_id, time) VALUES (?, ?, ?)`, []any{file, snapID, now}},
		{`INSERT INTO audit(path, before, after, time) VALUES (?, ?, ?, ?)`, []any{file, oldSum[:], newSum[:], now}},
	} {
		if _, err := tx.Exec(q.sql, q.args...); err != nil {
			return "", err
		}
	}
	return newTag, tx.Commit()
}
