// Command floor measures a lower bound of what a process must take to do
// what the one-shot goals of issue 16 item 2 time under the design
// (DESIGN.md), so that bench/edit.sh prints those floors beside hashls's
// own figures:
//
//	floor start             links what the design chooses for the engine
//	                        (modernc's SQLite, the tree-sitter grammars) and
//	                        exits: no hashls binary starts faster
//	floor init DIR          creates DIR/floor.db and records DIR/big.txt
//	floor edit DIR TAG [R]  a 50-hunk edit of DIR/big.txt doing only part
//	                        of what the design requires: open the store,
//	                        read the file, prove TAG by its sha256, apply,
//	                        hash and tag the new content, write it
//	                        atomically (temp file, fsync, rename, directory
//	                        fsync), record the new snapshot (once per
//	                        content), a trash row and an audit row in one
//	                        transaction; R > 0 puts the round in the
//	                        changed lines, so the new content is new
//	floor loop DIR TAG N    the edit N times in one process, the file put
//	                        back before each (a running hub's least work),
//	                        statements prepared once: prints the median ms
//
// It hashes the old and the new content on a second goroutine beside the
// rest, as hashls does, and leaves out what the design requires beyond
// that (the file lock, the journal's intent before the write, the
// seen-lines check) and what hashls adds (the diff and the preview, path
// confinement, the argument checks), so each figure is below what any
// implementation of the design can reach: a ratio goal below its floor
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
CREATE TABLE IF NOT EXISTS audit(id INTEGER PRIMARY KEY, path TEXT NOT NULL, before BLOB, after BLOB, time INTEGER NOT NULL);
PRAGMA user_version = 1;`

// The statements of an edit, prepared once by loop.
const (
	qLookup = `SELECT id, sha256 FROM snapshots WHERE key = ? AND tag = ? ORDER BY id DESC LIMIT 1`
	qRecord = `INSERT INTO snapshots(key, tag, sha256, content) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`
	qTrash  = `INSERT INTO trash(key, snapshot_id, time) VALUES (?, ?, ?)`
	qAudit  = `INSERT INTO audit(path, before, after, time) VALUES (?, ?, ?, ?)`
)

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
		return errors.New("usage: floor start | init DIR | edit DIR TAG [ROUND] | loop DIR TAG N")
	}
	dir := args[1]
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "floor.db")+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	file := filepath.Join(dir, "big.txt")
	switch {
	case args[0] == "init":
		if _, err := db.Exec(schema); err != nil {
			return err
		}
		b, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		_, err = db.Exec(qRecord, file, edit.Tag(b), sum[:], b)
		return err
	case args[0] == "edit" && (len(args) == 3 || len(args) == 4):
		round := 0
		if len(args) == 4 {
			if round, err = strconv.Atoi(args[3]); err != nil {
				return fmt.Errorf("edit: %q is not a round", args[3])
			}
		}
		tag, err := editOnce(plain{db}, file, args[2], round)
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
		p, err := prepare(db)
		if err != nil {
			return err
		}
		var ds []time.Duration
		for range n {
			if err := os.WriteFile(file, orig, 0o644); err != nil {
				return err
			}
			t := time.Now()
			if _, err := editOnce(p, file, args[2], 0); err != nil {
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

// stmts runs an edit's statements: on the database (plain), or prepared
// once (prepared).
type stmts interface {
	lookup(key, tag string) (int64, []byte, error)
	record(tx *sql.Tx, args ...any) error
	trash(tx *sql.Tx, args ...any) error
	audit(tx *sql.Tx, args ...any) error
	begin() (*sql.Tx, error)
}

type plain struct{ db *sql.DB }

func (p plain) lookup(key, tag string) (id int64, sum []byte, err error) {
	err = p.db.QueryRow(qLookup, key, tag).Scan(&id, &sum)
	return id, sum, err
}
func (p plain) record(tx *sql.Tx, args ...any) error { _, err := tx.Exec(qRecord, args...); return err }
func (p plain) trash(tx *sql.Tx, args ...any) error  { _, err := tx.Exec(qTrash, args...); return err }
func (p plain) audit(tx *sql.Tx, args ...any) error  { _, err := tx.Exec(qAudit, args...); return err }
func (p plain) begin() (*sql.Tx, error)              { return p.db.Begin() }

type prepared struct {
	db                      *sql.DB
	lk, rec, trashQ, auditQ *sql.Stmt
}

func prepare(db *sql.DB) (*prepared, error) {
	p := &prepared{db: db}
	for _, s := range []struct {
		dst **sql.Stmt
		q   string
	}{{&p.lk, qLookup}, {&p.rec, qRecord}, {&p.trashQ, qTrash}, {&p.auditQ, qAudit}} {
		st, err := db.Prepare(s.q)
		if err != nil {
			return nil, err
		}
		*s.dst = st
	}
	return p, nil
}

func (p *prepared) lookup(key, tag string) (id int64, sum []byte, err error) {
	err = p.lk.QueryRow(key, tag).Scan(&id, &sum)
	return id, sum, err
}
func (p *prepared) record(tx *sql.Tx, args ...any) error {
	_, err := tx.Stmt(p.rec).Exec(args...)
	return err
}
func (p *prepared) trash(tx *sql.Tx, args ...any) error {
	_, err := tx.Stmt(p.trashQ).Exec(args...)
	return err
}
func (p *prepared) audit(tx *sql.Tx, args ...any) error {
	_, err := tx.Stmt(p.auditQ).Exec(args...)
	return err
}
func (p *prepared) begin() (*sql.Tx, error) { return p.db.Begin() }

// sumAsync hashes b on another goroutine; the returned func waits for it.
func sumAsync(b []byte) func() [32]byte {
	var s [32]byte
	done := make(chan struct{})
	go func() {
		s = sha256.Sum256(b)
		close(done)
	}()
	return func() [32]byte { <-done; return s }
}

// editOnce replaces lines 1, 201, 401, ... (50 of them) of file, whose
// content tag names, with "changed N" (and " round R" when round > 0), as
// bench/edit.sh's edit does.
func editOnce(q stmts, file, tag string, round int) (string, error) {
	old, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	oldSum := sumAsync(old) // beside the lookup
	snapID, want, err := q.lookup(file, tag)
	if err != nil {
		return "", fmt.Errorf("tag %s: %w", tag, err)
	}
	proof := oldSum()
	if !bytes.Equal(want, proof[:]) {
		return "", fmt.Errorf("stale: %s does not hold the content tagged %s", file, tag)
	}
	suffix := "\n"
	if round > 0 {
		suffix = " round " + strconv.Itoa(round) + "\n"
	}
	out := make([]byte, 0, len(old)+1024)
	for i, line, hunk := 0, 1, 0; i < len(old); line++ {
		end := len(old)
		if j := bytes.IndexByte(old[i:], '\n'); j >= 0 {
			end = i + j + 1
		}
		if (line-1)%200 == 0 && hunk < 50 {
			out = append(out, "changed "+strconv.Itoa(hunk)+suffix...)
			hunk++
		} else {
			out = append(out, old[i:end]...)
		}
		i = end
	}
	newSum := sumAsync(out) // beside the tag and the write
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
	sum := newSum()
	tx, err := q.begin()
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	now := time.Now().UnixNano()
	if err := q.record(tx, file, newTag, sum[:], out); err != nil {
		return "", err
	}
	if err := q.trash(tx, file, snapID, now); err != nil {
		return "", err
	}
	if err := q.audit(tx, file, proof[:], sum[:], now); err != nil {
		return "", err
	}
	return newTag, tx.Commit()
}
