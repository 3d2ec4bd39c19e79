package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Limits are the store's retention limits, a value given when the store is
// opened (Options.Limits); DefaultLimits are used otherwise.
type Limits struct {
	// MaxContentBytes is the largest content Record keeps; bigger content
	// is recorded by sha256 and size only.
	MaxContentBytes int
	// MaxVersions is how many snapshots are kept per key.
	MaxVersions int
	// MaxTotalContentBytes bounds the content kept over all snapshots; the
	// oldest content is dropped first (the rows stay, so tags still check).
	MaxTotalContentBytes int64
	// MaxTrashBytes bounds the trash; the oldest entries are dropped first,
	// never those a change is adding.
	MaxTrashBytes int64
	// MaxTrashEntries bounds the trash's entries (those pointing at a
	// content another entry keeps already add no bytes); the oldest go
	// first, never those a change is adding. 0: DefaultLimits'.
	MaxTrashEntries int
}

// DefaultLimits returns the limits a store uses unless told otherwise.
func DefaultLimits() Limits {
	return Limits{MaxContentBytes: 16 << 20, MaxVersions: 8, MaxTotalContentBytes: 256 << 20, MaxTrashBytes: 512 << 20, MaxTrashEntries: 10000}
}

// busyTimeoutMS is how long a store connection waits for another
// connection's lock before failing.
var busyTimeoutMS = 10000

// walFoldPages bounds the write-ahead log between processes. The first
// connection of a process that opens the store while no other has it open
// (every one-shot CLI call: it leaves the store open at exit, so that no
// checkpoint runs on its hot path) rebuilds the log's index by reading every
// frame written since the log last restarted, one read per page, and takes
// none of them for checkpointed, so its first commit over SQLite's
// autocheckpoint (1000 pages) copies them all again. After a commit that
// leaves the log longer than this many pages, the writer copies the log into
// the database and truncates it (foldLog): the next open reads nothing and
// copies nothing again (bench/edit.sh: 422-514 frames read per open on
// average before, about 100 after).
const walFoldPages = 256

// schemaVersion is the store's PRAGMA user_version.
const schemaVersion = 10

// schemaV1 creates the version 1 schema.
const schemaV1 = `
CREATE TABLE IF NOT EXISTS snapshots(
	id      INTEGER PRIMARY KEY,
	key     TEXT NOT NULL,
	tag     TEXT NOT NULL,
	sha256  BLOB NOT NULL,
	content BLOB,
	size    INTEGER NOT NULL,
	time    INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS snapshots_key_tag ON snapshots(key, tag);
CREATE INDEX IF NOT EXISTS snapshots_key_id ON snapshots(key, id);
CREATE TABLE IF NOT EXISTS audit(
	id         INTEGER PRIMARY KEY,
	tool       TEXT NOT NULL,
	path       TEXT NOT NULL,
	sha_before TEXT NOT NULL,
	sha_after  TEXT NOT NULL,
	time       INTEGER NOT NULL,
	note       TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS trash(
	id      INTEGER PRIMARY KEY,
	key     TEXT NOT NULL,
	content BLOB NOT NULL,
	size    INTEGER NOT NULL,
	reason  TEXT NOT NULL,
	time    INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS trash_key ON trash(key, id);
CREATE TABLE IF NOT EXISTS noop(
	key         TEXT PRIMARY KEY,
	payload_sha TEXT NOT NULL,
	count       INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS meta(
	name  TEXT PRIMARY KEY,
	value INTEGER NOT NULL
);
INSERT OR IGNORE INTO meta(name, value) VALUES ('content_bytes', 0);
`

// schemaV2 lets the trash point at a snapshot that holds the same content
// instead of copying it (an edit trashes exactly the content its read
// recorded). A pinned snapshot is never dropped by retention while a trash
// entry points at it.
const schemaV2 = `
ALTER TABLE trash ADD COLUMN snapshot_id INTEGER;
CREATE INDEX IF NOT EXISTS trash_snapshot ON trash(snapshot_id);
CREATE TABLE IF NOT EXISTS pins(snapshot_id INTEGER PRIMARY KEY);
`

// schemaV3 adds the commit journal (see the package doc: "Committing a
// change") and the transport that made each audited change.
const schemaV3 = `
CREATE TABLE IF NOT EXISTS intents(
	id   INTEGER PRIMARY KEY,
	tool TEXT NOT NULL,
	pid  INTEGER NOT NULL,
	time INTEGER NOT NULL,
	body TEXT NOT NULL
);
ALTER TABLE audit ADD COLUMN transport TEXT NOT NULL DEFAULT '';
`

// schemaV4 adds the seen lines: which lines of each snapshot the tools
// displayed (see seen.go).
const schemaV4 = `
CREATE TABLE IF NOT EXISTS seen(
	key    TEXT NOT NULL,
	sha256 BLOB NOT NULL,
	ranges TEXT NOT NULL,
	time   INTEGER NOT NULL,
	PRIMARY KEY(key, sha256)
);
CREATE INDEX IF NOT EXISTS seen_key_time ON seen(key, time);
`

// schemaV5 records which call made each audited change: the call id a
// transport gives a tool run (a hub forward and its direct retry share it), so
// a retried call that was already applied is found and not applied twice.
const schemaV5 = `
ALTER TABLE audit ADD COLUMN call TEXT NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS audit_call ON audit(call) WHERE call != '';
`

// schemaV6 keeps what retention needs per commit without reading the whole
// history. Before it a commit's store work grew with the history
// (BenchmarkCommitLongHistory: 1.7 ms fresh, 66 ms after 20,000 edits of
// one file): the trash's budget summed the whole trash and every snapshot
// it pins, and per-key retention walked every version of the file to find
// the few no trash entry pins. Now:
//
//   - unpinned lists the snapshots no trash entry points at, by key:
//     per-key retention and the content budget look only there, not at
//     the thousands of versions a long-edited file leaves pinned;
//   - meta trash_bytes is the trash's size (its own blobs plus the content
//     of the snapshots it pins), a running total;
//   - snapshots_key_sha finds the snapshot a trashed content is (an edit's
//     read) without walking the file's versions.
//
// Triggers keep unpinned, trash_bytes and pins exact whoever writes the
// tables, so no code path can forget them, and a hashls of schema 5 still
// running when a newer one migrates the store (an editor's server) goes
// on working: it reads pins, which is kept for it; nothing of schema 6
// reads pins. Every snapshot is either in unpinned or pointed at by a
// trash entry, never both (TestTrashRetentionBookkeeping).
const schemaV6 = `
CREATE TABLE IF NOT EXISTS unpinned(
	snapshot_id INTEGER PRIMARY KEY,
	key         TEXT NOT NULL
);
INSERT OR IGNORE INTO unpinned(snapshot_id, key)
	SELECT id, key FROM snapshots WHERE id NOT IN (SELECT snapshot_id FROM trash WHERE snapshot_id IS NOT NULL);
CREATE INDEX IF NOT EXISTS unpinned_key ON unpinned(key, snapshot_id);
CREATE INDEX IF NOT EXISTS snapshots_key_sha ON snapshots(key, sha256);
DELETE FROM pins;
INSERT OR IGNORE INTO pins(snapshot_id) SELECT snapshot_id FROM trash WHERE snapshot_id IS NOT NULL;
INSERT OR REPLACE INTO meta(name, value) VALUES ('trash_bytes',
	(SELECT coalesce(sum(length(content)), 0) FROM trash) +
	(SELECT coalesce(sum(length(content)), 0) FROM snapshots WHERE id IN (SELECT snapshot_id FROM pins)));
CREATE TRIGGER IF NOT EXISTS snapshot_added AFTER INSERT ON snapshots BEGIN
	INSERT OR IGNORE INTO unpinned(snapshot_id, key) VALUES (NEW.id, NEW.key);
END;
CREATE TRIGGER IF NOT EXISTS snapshot_dropped AFTER DELETE ON snapshots BEGIN
	DELETE FROM unpinned WHERE snapshot_id = OLD.id;
END;
CREATE TRIGGER IF NOT EXISTS trash_added AFTER INSERT ON trash BEGIN
	UPDATE meta SET value = value + length(NEW.content) + coalesce(
		(SELECT length(s.content) FROM unpinned u JOIN snapshots s ON s.id = u.snapshot_id WHERE u.snapshot_id = NEW.snapshot_id), 0)
		WHERE name = 'trash_bytes';
	DELETE FROM unpinned WHERE snapshot_id = NEW.snapshot_id;
	INSERT OR IGNORE INTO pins(snapshot_id) SELECT NEW.snapshot_id WHERE NEW.snapshot_id IS NOT NULL;
END;
CREATE TRIGGER IF NOT EXISTS trash_dropped AFTER DELETE ON trash BEGIN
	UPDATE meta SET value = max(0, value - length(OLD.content) - coalesce(
		(SELECT length(content) FROM snapshots WHERE id = OLD.snapshot_id
			AND NOT EXISTS (SELECT 1 FROM trash WHERE snapshot_id = OLD.snapshot_id)), 0))
		WHERE name = 'trash_bytes';
	INSERT OR IGNORE INTO unpinned(snapshot_id, key) SELECT id, key FROM snapshots WHERE id = OLD.snapshot_id
		AND NOT EXISTS (SELECT 1 FROM trash WHERE snapshot_id = OLD.snapshot_id);
	DELETE FROM pins WHERE snapshot_id = OLD.snapshot_id
		AND NOT EXISTS (SELECT 1 FROM trash WHERE snapshot_id = OLD.snapshot_id);
END;
`

// schemaV7 makes intent ids never reused (AUTOINCREMENT, which needs the
// table made anew) and records each intent's owner (see process.go): a
// process recovers only the intents of owners that are gone. With ids
// reused, a process that listed an intent and then found "it" still in the
// journal could take another live process's new intent for it. A hashls of
// schema 6 still running when the store is migrated goes on writing
// intents (their owner is empty: their pid decides).
const schemaV7 = `
CREATE TABLE intents_v7(
	id    INTEGER PRIMARY KEY AUTOINCREMENT,
	tool  TEXT NOT NULL,
	pid   INTEGER NOT NULL,
	time  INTEGER NOT NULL,
	body  TEXT NOT NULL,
	owner TEXT NOT NULL DEFAULT ''
);
INSERT INTO intents_v7(id, tool, pid, time, body) SELECT id, tool, pid, time, body FROM intents;
DROP TABLE intents;
ALTER TABLE intents_v7 RENAME TO intents;
`

// schemaV8 keeps each kept content once, apart from the snapshots that
// name it, and most of them as a delta against the version they were made
// from (content.go: what is kept, and why deltas and not chunks):
//
//   - contents holds one row per content (by sha256): the content whole
//     (base NULL, depth 0), or a delta against the content base (depth:
//     deltas between it and a whole copy). Its rows are never updated (an
//     update rewrites the whole row, a whole copy's blob included);
//   - content_refs counts, per content, the snapshots that name it and
//     the deltas made against it; a content no longer named (refs 0) is
//     dropped by the writer that unnamed it (collectContents);
//   - snapshots.content_id names a snapshot's content there; its content
//     column, which a hashls of schema 6 or 7 reads, stays NULL for them
//     (to such a process those versions are not kept, which it handles).
//
// The triggers keep content_refs and meta content_bytes (the bytes of
// every kept content, as stored: a delta counts its own size) whoever
// writes, as schemaV6's keep trash_bytes, now counting a pinned snapshot's
// stored bytes. The migration (migrateContents) moves every content into
// contents, a file's versions as deltas against the one before, streaming
// one version at a time.
const schemaV8 = `
CREATE TABLE IF NOT EXISTS contents(
	id     INTEGER PRIMARY KEY,
	sha256 BLOB NOT NULL,
	size   INTEGER NOT NULL,
	base   INTEGER,
	depth  INTEGER NOT NULL,
	data   BLOB NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS contents_sha ON contents(sha256);
CREATE TABLE IF NOT EXISTS content_refs(
	content_id INTEGER PRIMARY KEY,
	refs       INTEGER NOT NULL
);
ALTER TABLE snapshots ADD COLUMN content_id INTEGER;
CREATE TRIGGER IF NOT EXISTS content_added AFTER INSERT ON contents BEGIN
	INSERT INTO content_refs(content_id, refs) VALUES (NEW.id, 0);
	UPDATE content_refs SET refs = refs + 1 WHERE content_id = NEW.base;
	UPDATE meta SET value = value + length(NEW.data) WHERE name = 'content_bytes';
END;
CREATE TRIGGER IF NOT EXISTS content_dropped AFTER DELETE ON contents BEGIN
	DELETE FROM content_refs WHERE content_id = OLD.id;
	UPDATE content_refs SET refs = refs - 1 WHERE content_id = OLD.base;
	UPDATE meta SET value = max(0, value - length(OLD.data)) WHERE name = 'content_bytes';
END;
DROP TRIGGER IF EXISTS snapshot_added;
CREATE TRIGGER snapshot_added AFTER INSERT ON snapshots BEGIN
	INSERT OR IGNORE INTO unpinned(snapshot_id, key) VALUES (NEW.id, NEW.key);
	UPDATE content_refs SET refs = refs + 1 WHERE content_id = NEW.content_id;
END;
DROP TRIGGER IF EXISTS snapshot_dropped;
CREATE TRIGGER snapshot_dropped AFTER DELETE ON snapshots BEGIN
	DELETE FROM unpinned WHERE snapshot_id = OLD.id;
	UPDATE content_refs SET refs = refs - 1 WHERE content_id = OLD.content_id;
END;
CREATE TRIGGER IF NOT EXISTS snapshot_content_changed AFTER UPDATE OF content_id ON snapshots BEGIN
	UPDATE content_refs SET refs = refs - 1 WHERE content_id = OLD.content_id;
	UPDATE content_refs SET refs = refs + 1 WHERE content_id = NEW.content_id;
END;
DROP TRIGGER IF EXISTS trash_added;
CREATE TRIGGER trash_added AFTER INSERT ON trash BEGIN
	UPDATE meta SET value = value + length(NEW.content) + coalesce(
		(SELECT coalesce(length(s.content), (SELECT length(data) FROM contents WHERE id = s.content_id))
			FROM unpinned u JOIN snapshots s ON s.id = u.snapshot_id WHERE u.snapshot_id = NEW.snapshot_id), 0)
		WHERE name = 'trash_bytes';
	DELETE FROM unpinned WHERE snapshot_id = NEW.snapshot_id;
	INSERT OR IGNORE INTO pins(snapshot_id) SELECT NEW.snapshot_id WHERE NEW.snapshot_id IS NOT NULL;
END;
DROP TRIGGER IF EXISTS trash_dropped;
CREATE TRIGGER trash_dropped AFTER DELETE ON trash BEGIN
	UPDATE meta SET value = max(0, value - length(OLD.content) - coalesce(
		(SELECT coalesce(length(s.content), (SELECT length(data) FROM contents WHERE id = s.content_id)) FROM snapshots s WHERE s.id = OLD.snapshot_id
			AND NOT EXISTS (SELECT 1 FROM trash WHERE snapshot_id = OLD.snapshot_id)), 0))
		WHERE name = 'trash_bytes';
	INSERT OR IGNORE INTO unpinned(snapshot_id, key) SELECT id, key FROM snapshots WHERE id = OLD.snapshot_id
		AND NOT EXISTS (SELECT 1 FROM trash WHERE snapshot_id = OLD.snapshot_id);
	DELETE FROM pins WHERE snapshot_id = OLD.snapshot_id
		AND NOT EXISTS (SELECT 1 FROM trash WHERE snapshot_id = OLD.snapshot_id);
END;
`

// schemaV9 records who made each audited change and groups the changes
// into turns (see Attribution): the agent's name (an MCP client's
// clientInfo.name, HASHLS_AGENT for the CLI; "" for the person at the
// editor), the session its calls came from, and the turn. The editor's
// review panel groups by turn and "Undo this turn" reverts one
// (Store.AuditByTurn); a session's next change continues its newest turn
// unless a quiet gap passed (Store.LastTurn).
const schemaV9 = `
ALTER TABLE audit ADD COLUMN agent TEXT NOT NULL DEFAULT '';
ALTER TABLE audit ADD COLUMN session TEXT NOT NULL DEFAULT '';
ALTER TABLE audit ADD COLUMN turn TEXT NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS audit_turn ON audit(turn) WHERE turn != '';
CREATE INDEX IF NOT EXISTS audit_session ON audit(session) WHERE session != '';
`

// schemaV10 keeps a replaced content over the content limit
// (MaxContentBytes) in the trash in pieces (trashchunks.go): trash_chunks
// holds it in rows of trashChunk bytes, written and read one at a time, so
// that neither hashls nor SQLite holds it whole (a 200 MB content bound as
// one blob was copied twice more in SQLite's heap). Its trash row holds no
// content (an empty blob) and points at snapshot -1 (chunkedTrash), which no
// snapshot is: a hashls of schema 9 finds no content there and refuses the
// entry, never reads it as empty. The triggers count the chunks in meta
// trash_bytes as they are added and drop an entry's chunks with it,
// whoever writes, taking its size (the sum of its chunks') off the total:
// a chunk's blob is not read again to be counted.
const schemaV10 = `
CREATE TABLE IF NOT EXISTS trash_chunks(
	trash_id INTEGER NOT NULL,
	seq      INTEGER NOT NULL,
	data     BLOB NOT NULL,
	PRIMARY KEY(trash_id, seq)
);
CREATE TRIGGER IF NOT EXISTS trash_chunk_added AFTER INSERT ON trash_chunks BEGIN
	UPDATE meta SET value = value + length(NEW.data) WHERE name = 'trash_bytes';
END;
CREATE TRIGGER IF NOT EXISTS trash_chunks_dropped AFTER DELETE ON trash WHEN OLD.snapshot_id = -1 BEGIN
	DELETE FROM trash_chunks WHERE trash_id = OLD.id;
	UPDATE meta SET value = max(0, value - OLD.size) WHERE name = 'trash_bytes';
END;
`

// Store is the persistent record: snapshots, audit log and trash. It is one
// SQLite database (WAL) per workspace root, shared by every hashls process on
// that root: one writer connection (immediate transactions) and a read-only
// reader pool. Its methods are safe for concurrent use.
type Store struct {
	path   string
	limits Limits
	w      *sql.DB // the single writer connection
	r      *sql.DB // read-only connections

	wstmts, rstmts stmtCache // statements prepared for reuse (stmts.go)

	swept atomic.Bool // dropOldContent has collected what schema 6 or 7 left unnamed

	created int64  // when the store was first made (its marker; see health.go)
	notice  string // what opening found wrong (a lost or rolled-back store), for Workspace.Notices
}

// OpenStore opens (creating if needed) the store for root under stateDir.
// A store that cannot be used (corrupt, locked, unwritable) is a KindStore
// error naming the file.
func OpenStore(stateDir, root string) (*Store, error) {
	path := StorePath(stateDir, root)
	return openStoreFile(path, DefaultLimits())
}

// openStoreFile opens the store database at path.
func openStoreFile(path string, limits Limits) (*Store, error) {
	if err := ensureStateSub(filepath.Dir(path)); err != nil {
		return nil, err
	}
	// Creating the database and switching it to WAL can fail with
	// SQLITE_BUSY (without waiting) when several processes do it at once, so
	// opening is serialised across processes by a lock file.
	release, err := lockFile(path+".open.lock", time.Duration(busyTimeoutMS)*time.Millisecond)
	if err != nil {
		return nil, storeErr(path, err)
	}
	defer release()
	// The store's files are the user's alone (private.go); a new store is
	// made 0600, and SQLite gives its -wal and -shm the database's mode.
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		if err := checkOwnFile(f); err != nil {
			return nil, err
		}
	}
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.Close()
	}
	existed := false
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
		existed = true
	}
	s := &Store{path: path, limits: limits}
	bt := strconv.Itoa(busyTimeoutMS)
	name := "file:" + uriPath(path)
	wal := "&_pragma=journal_mode(WAL)"
	if existed && inWALMode(path) {
		wal = "" // the mode is kept in the file: setting it again costs a statement
	}
	w, err := sql.Open("sqlite", name+"?_pragma=busy_timeout("+bt+")"+wal+"&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		return nil, storeErr(path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	s.w = w
	persistWAL(w)
	if err := s.migrate(); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sql.Open("sqlite", name+"?mode=ro&_pragma=busy_timeout("+bt+")&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return nil, storeErr(path, err)
	}
	r.SetMaxOpenConns(4)
	r.SetMaxIdleConns(2)
	s.r = r
	s.notice = s.checkMarker(existed)
	return s, nil
}

// inWALMode reports whether the database file at path says it is in WAL
// mode (its header's read and write versions are 2), which SQLite keeps
// until it is told otherwise.
func inWALMode(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var h [20]byte
	_, err = io.ReadFull(f, h[:])
	return err == nil && string(h[:16]) == "SQLite format 3\x00" && h[18] == 2 && h[19] == 2
}

// readOnWriter makes the store read on its writer connection instead of
// a second one: for a process that makes one call and exits (the CLI),
// where a second connection's open, pragmas and parse of the schema cost
// as much as the reads it serves. The reader pool is never connected.
func (s *Store) readOnWriter() {
	if s.r != s.w {
		s.r.Close()
		s.r = s.w
	}
}

// persistWAL asks SQLite to keep the -wal file when the writer closes, so a
// short-lived process does not pay for recreating and deleting it. Failure
// only costs speed.
func persistWAL(db *sql.DB) {
	c, err := db.Conn(context.Background())
	if err != nil {
		return
	}
	defer c.Close()
	_ = c.Raw(func(dc any) error {
		if p, ok := dc.(interface {
			FileControlPersistWAL(string, int) (int, error)
		}); ok {
			_, err := p.FileControlPersistWAL("main", 1)
			return err
		}
		return nil
	})
}

// lockFile takes an exclusive flock on name, waiting up to timeout.
func lockFile(name string, timeout time.Duration) (release func(), err error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := flockWait(ctx, f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	return func() {
		unlockFile(f)
		f.Close()
	}, nil
}

// uriPath escapes the characters that end or escape the path of an SQLite
// URI filename.
func uriPath(p string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(p))
}

// storeErr is the error for every store failure.
func storeErr(path string, err error) *Error {
	var we *Error
	if errors.As(err, &we) && we.Kind == KindStore {
		return we
	}
	if cause := storeCause(err); cause != "" {
		return &Error{Kind: KindStore, Msg: fmt.Sprintf("state store at %s: %v: %s", path, err, cause), Err: err}
	}
	return &Error{Kind: KindStore, Msg: fmt.Sprintf("state store at %s is unusable: %v; move it aside or set HASHLS_STATE_DIR", path, err), Err: err}
}

func (s *Store) check() error {
	if s == nil || s.w == nil {
		return &Error{Kind: KindStore, Msg: "no state store is open (the workspace was opened without one)"}
	}
	return nil
}

// migrate brings the schema to schemaVersion.
func (s *Store) migrate() error {
	var v int
	if err := s.w.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		return storeErr(s.path, err)
	}
	if v == schemaVersion {
		return nil
	}
	if v > schemaVersion {
		return storeErr(s.path, fmt.Errorf("its schema version %d is newer than this hashls (%d); upgrade hashls", v, schemaVersion))
	}
	if v < 0 {
		return storeErr(s.path, fmt.Errorf("its schema version %d is not one hashls made; move it aside (hashls doctor names it) and start a new store", v))
	}
	tx, err := s.w.Begin()
	if err != nil {
		return storeErr(s.path, err)
	}
	defer tx.Rollback()
	if err := tx.QueryRow("PRAGMA user_version").Scan(&v); err != nil { // another process may have won
		return storeErr(s.path, err)
	}
	if v == schemaVersion {
		return nil
	}
	// Each step takes the schema from its index to the next version;
	// schema 8's moves the kept contents too.
	steps := []string{schemaV1, schemaV2, schemaV3, schemaV4, schemaV5, schemaV6, schemaV7, schemaV8, schemaV9, schemaV10}
	movedContents := false
	for ; v < schemaVersion; v++ {
		if _, err := tx.Exec(steps[v]); err != nil {
			return storeErr(s.path, err)
		}
		if v == 7 {
			if err := s.migrateContents(wtx{tx, &s.wstmts}); err != nil {
				return storeErr(s.path, fmt.Errorf("moving its contents to schema 8: %w", err))
			}
			movedContents = true
		}
	}
	if _, err := tx.Exec("PRAGMA user_version = " + strconv.Itoa(schemaVersion)); err != nil {
		return storeErr(s.path, err)
	}
	if err := tx.Commit(); err != nil {
		return storeErr(s.path, err)
	}
	if movedContents {
		// The versions kept whole before take a fraction of the room as
		// deltas: give the rest back to the disk once (best effort; doctor
		// --fix offers it again).
		_, _ = s.compact()
	}
	return nil
}

// compactMin is the free room in the database file, in bytes and as a
// share of the file, past which compacting it is worth its cost (a copy of
// what is kept).
const (
	compactMinBytes = 8 << 20
	compactMinShare = 4 // a quarter of the file
)

// freeBytes is the room in the database file that holds nothing (pages
// on SQLite's free list), and the file's size in pages' bytes.
func (s *Store) freeBytes() (free, size int64, err error) {
	var pages, freePages, pageSize int64
	err = s.w.QueryRow(`SELECT (SELECT page_count FROM pragma_page_count()), (SELECT freelist_count FROM pragma_freelist_count()),
		(SELECT page_size FROM pragma_page_size())`).Scan(&pages, &freePages, &pageSize)
	return freePages * pageSize, pages * pageSize, err
}

// compact rewrites the database without its free pages (VACUUM) when they
// are worth it, and folds the log; done reports whether it did. It does
// not wait for other connections: a busy store is left as it is.
func (s *Store) compact() (done bool, err error) {
	free, size, err := s.freeBytes()
	if err != nil || free < compactMinBytes || free < size/compactMinShare {
		return false, err
	}
	ctx := context.Background()
	c, err := s.w.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, `PRAGMA busy_timeout = 0`); err != nil {
		return false, err
	}
	defer c.ExecContext(ctx, `PRAGMA busy_timeout = `+strconv.Itoa(busyTimeoutMS))
	if _, err := c.ExecContext(ctx, `VACUUM`); err != nil {
		return false, err
	}
	var busy, logPages, folded int
	_ = c.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logPages, &folded)
	return true, nil
}

// Path returns the database file.
func (s *Store) Path() string { return s.path }

// Close closes the store's connections.
func (s *Store) Close() error {
	if s == nil || s.w == nil {
		return nil
	}
	// The last connection to close checkpoints and removes the WAL: keep
	// that apart from other processes opening the store.
	if release, lerr := lockFile(s.path+".open.lock", time.Duration(busyTimeoutMS)*time.Millisecond); lerr == nil {
		defer release()
	}
	s.wstmts.close()
	s.rstmts.close()
	var err error
	if s.r != nil && s.r != s.w {
		err = s.r.Close()
	}
	if werr := s.w.Close(); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		return storeErr(s.path, err)
	}
	return nil
}

// Snapshot is one recorded version of a file.
type Snapshot struct {
	ID      int64  // row id; SnapshotContent loads the content by it
	Key     string // canonical path key (absolute, symlinks resolved)
	Tag     string
	SHA256  [32]byte
	Content []byte // nil when not kept (over MaxContentBytes, or dropped by retention), or not loaded (LookupMeta)
	Kept    bool   // the store holds the content
	Size    int64
	Time    time.Time // when it was first recorded; zero from LookupMeta
	Head    bool
}

// Record records content for key with its tag (the caller computes it).
// Recording content (and tag) that is already the newest version records
// nothing (its time stays that of its first recording). Content over MaxContentBytes is not kept; at most
// MaxVersions snapshots are kept per key, and the oldest kept content is
// dropped when the total exceeds MaxTotalContentBytes.
func (s *Store) Record(key, tag string, content []byte) error {
	return s.RecordAll([]Recording{{Key: key, Tag: tag, Content: content}})
}

// Recording is one snapshot to record (see Record).
type Recording struct {
	Key, Tag string
	Content  []byte
	SHA256   *[32]byte // sha256 of Content when the caller has it; nil: computed
	// Size, when Content is nil, is the size of content the caller
	// streamed and does not hold (over ContentLimit): the snapshot is
	// recorded by SHA256 (required then) and Size only. 0: len(Content).
	Size int64
	// Seen, when not nil, is the line ranges of Content the caller
	// displayed, recorded with the snapshot in the same transaction (see
	// AddSeen); an empty non-nil list records the snapshot as tracked.
	Seen []LineRange
	// From, when not nil, is the content this version was made from (a
	// commit's old content), FromSHA256 its sha256 (required with it):
	// when the store keeps From, Content is kept as a delta against it
	// (content.go).
	From       []byte
	FromSHA256 *[32]byte
	fromDelta  func() []byte // Content as a delta against From, when the caller has begun it (deltaAsync)
}

// ContentLimit is the largest content a snapshot keeps (MaxContentBytes):
// a bigger file may be streamed and recorded by sha256 and size only
// (Recording.Size).
func (s *Store) ContentLimit() int { return s.limits.MaxContentBytes }

// RecordAll records several snapshots in one transaction, as Record does
// each: a search that shows twenty files pays for one commit, not twenty.
func (s *Store) RecordAll(recs []Recording) error {
	if err := s.check(); err != nil {
		return err
	}
	if len(recs) == 0 {
		return nil
	}
	now := time.Now().UnixNano()
	err := s.write(func(tx wtx) error {
		for _, r := range recs {
			if err := s.recordTx(tx, r, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return storeErr(s.path, err)
	}
	return nil
}

// recordTx records one snapshot inside a write transaction.
func (s *Store) recordTx(tx wtx, r Recording, now int64) error {
	if r.SHA256 == nil && r.Content == nil && r.Size > 0 {
		return &Error{Kind: KindInternal, Msg: "a streamed snapshot without its sha256 (a hashls bug)"}
	}
	if r.SHA256 == nil {
		sum := sha256.Sum256(r.Content)
		r.SHA256 = &sum
	}
	if err := s.recordSnapshotTx(tx, r, now); err != nil {
		return err
	}
	if r.Seen != nil {
		return addSeenTx(tx, r.Key, *r.SHA256, r.Seen, now)
	}
	return nil
}

// recordSnapshotTx records r's snapshot (r.SHA256 set).
func (s *Store) recordSnapshotTx(tx wtx, r Recording, now int64) error {
	key, tag, content := r.Key, r.Tag, r.Content
	var sum [32]byte
	if r.SHA256 != nil {
		sum = *r.SHA256
	} else {
		sum = sha256.Sum256(content)
	}
	var (
		headSHA []byte
		headTag string
	)
	err := tx.QueryRow(`SELECT sha256, tag FROM snapshots WHERE key = ? ORDER BY id DESC LIMIT 1`, key).Scan(&headSHA, &headTag)
	switch {
	case err == nil && headTag == tag && bytes.Equal(headSHA, sum[:]):
		// Already the newest version: nothing to record. (Refreshing its
		// time would rewrite the whole row, and SQLite reads every
		// overflow page of the content to do that: a re-read of an
		// unchanged 500 KB file cost 120 page reads.)
		return nil
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return err
	}
	size := int64(len(content))
	var contentID any // NULL: not kept
	if content == nil && r.Size > 0 {
		size = r.Size // streamed, not held: not kept
	} else if len(content) <= s.limits.MaxContentBytes {
		id, err := putContentTx(tx, content, sum, r.From, r.FromSHA256, r.fromDelta)
		if err != nil {
			return err
		}
		contentID = id
	}
	if _, err := tx.Exec(`INSERT INTO snapshots(key, tag, sha256, size, time, content_id) VALUES (?, ?, ?, ?, ?, ?)`,
		key, tag, sum[:], size, now, contentID); err != nil {
		return err
	}
	// Per-key retention, of the snapshots the trash does not point at
	// (the unpinned ones: schemaV6). Their contents go when nothing else
	// names them (collectContents); content kept in the row itself (by a
	// hashls of schema 6 or 7) is counted here.
	rows, err := tx.Query(`DELETE FROM snapshots WHERE id IN
		(SELECT snapshot_id FROM unpinned WHERE key = ? ORDER BY snapshot_id DESC LIMIT -1 OFFSET ?)
		RETURNING content_id, coalesce(length(content), 0)`, key, s.limits.MaxVersions)
	if err != nil {
		return err
	}
	var freed int64
	var dropped []int64
	for rows.Next() {
		var id sql.NullInt64
		var n int64
		if err := rows.Scan(&id, &n); err != nil {
			rows.Close()
			return err
		}
		if id.Valid {
			dropped = append(dropped, id.Int64)
		}
		freed += n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(dropped) > 0 {
		if err := collectContents(tx, dropped); err != nil {
			return err
		}
	}
	var total int64
	if err := tx.QueryRow(`UPDATE meta SET value = max(0, value - ?) WHERE name = 'content_bytes' RETURNING value`, freed).Scan(&total); err != nil {
		return err
	}
	if total > s.limits.MaxTotalContentBytes {
		return s.dropOldContent(tx, total)
	}
	return nil
}

// dropOldContent drops the oldest kept content of the snapshots no trash
// entry points at until the total is within MaxTotalContentBytes: a
// snapshot stops naming its content, which goes when nothing else needs it
// (collectContents; a whole copy goes with the last delta made against it).
func (s *Store) dropOldContent(tx wtx, total int64) error {
	// First what a hashls of schema 6 or 7 left unnamed (it deletes snapshots
	// without collecting their contents): once per process, since it reads
	// every content's count (a store kept over its budget by content the
	// trash pins comes here at every record).
	if !s.swept.Swap(true) {
		if err := collectContents(tx, nil); err != nil {
			s.swept.Store(false)
			return err
		}
		if err := tx.QueryRow(`SELECT value FROM meta WHERE name = 'content_bytes'`).Scan(&total); err != nil {
			return err
		}
	}
	for total > s.limits.MaxTotalContentBytes {
		rows, err := tx.Query(`SELECT s.id, coalesce(length(s.content), 0), s.content_id FROM unpinned u JOIN snapshots s ON s.id = u.snapshot_id
			WHERE length(s.content) IS NOT NULL OR s.content_id IS NOT NULL ORDER BY u.snapshot_id LIMIT 16`)
		if err != nil {
			return err
		}
		type drop struct {
			id, inline int64
			content    sql.NullInt64
		}
		var drops []drop
		for rows.Next() {
			var d drop
			if err := rows.Scan(&d.id, &d.inline, &d.content); err != nil {
				rows.Close()
				return err
			}
			drops = append(drops, d)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(drops) == 0 {
			return nil
		}
		for _, d := range drops {
			if total <= s.limits.MaxTotalContentBytes {
				return nil
			}
			if _, err := tx.Exec(`UPDATE snapshots SET content = NULL, content_id = NULL WHERE id = ?`, d.id); err != nil {
				return err
			}
			if d.content.Valid {
				if err := collectContents(tx, []int64{d.content.Int64}); err != nil {
					return err
				}
			}
			if err := tx.QueryRow(`UPDATE meta SET value = max(0, value - ?) WHERE name = 'content_bytes' RETURNING value`, d.inline).Scan(&total); err != nil {
				return err
			}
		}
	}
	return nil
}

// write runs f in an immediate write transaction.
func (s *Store) write(f func(tx wtx) error) error {
	s.wstmts.prepareWanted(s.w) // while the connection is free (stmts.go)
	tx, err := s.w.BeginTx(context.Background(), nil)
	if err != nil {
		return err
	}
	if err := f(wtx{tx, &s.wstmts}); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.foldLog()
	return nil
}

// foldLog copies the write-ahead log into the database and truncates it
// (PRAGMA wal_checkpoint(TRUNCATE): the log and the database are fsynced
// first, so nothing committed is lost) once it is longer than walFoldPages.
// It does not wait: when another connection reads or writes, it leaves the
// log for a later commit. Failure only costs speed.
func (s *Store) foldLog() {
	fi, err := os.Stat(s.path + "-wal")
	if err != nil || fi.Size() < walFoldPages*4096 {
		return
	}
	ctx := context.Background()
	c, err := s.w.Conn(ctx)
	if err != nil {
		return
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, `PRAGMA busy_timeout = 0`); err != nil {
		return
	}
	defer c.ExecContext(ctx, `PRAGMA busy_timeout = `+strconv.Itoa(busyTimeoutMS))
	var busy, logPages, done int
	_ = c.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logPages, &done)
}

// Lookup returns the newest snapshot of key with tag. Head reports whether it
// is also the newest snapshot of key.
func (s *Store) Lookup(key, tag string) (Snapshot, bool, error) {
	snap, ok, err := s.LookupMeta(key, tag)
	if err != nil || !ok {
		return snap, ok, err
	}
	var t int64
	if err := s.readRow(`SELECT time FROM snapshots WHERE id = ?`, snap.ID).Scan(&t); err != nil {
		return Snapshot{}, false, storeErr(s.path, err)
	}
	snap.Time = time.Unix(0, t)
	if snap.Kept {
		c, kept, err := s.SnapshotContent(snap.ID)
		if err != nil {
			return Snapshot{}, false, err
		}
		snap.Content, snap.Kept = c, kept
	}
	return snap, true, nil
}

// LookupMeta is Lookup without the content and the time: it reads only the
// record header of the content column (never the blob itself), so checking
// a tag against its sha256 stays cheap for large files. SnapshotContent loads
// the content when recovery needs it.
func (s *Store) LookupMeta(key, tag string) (Snapshot, bool, error) {
	if err := s.check(); err != nil {
		return Snapshot{}, false, err
	}
	var (
		id     int64
		sha    []byte
		isNull bool
		size   int64
		head   bool
	)
	// Columns after the content blob (size, time) would make SQLite walk
	// the blob's overflow pages; length(content) comes from the header.
	// So does length(content) IS NULL, while content IS NULL loads the
	// whole blob: every query that only asks whether a content is kept
	// says length(content) IS [NOT] NULL.
	err := s.readRow(`SELECT id, sha256, length(content) IS NULL AND content_id IS NULL,
			CASE WHEN length(content) IS NULL THEN size ELSE length(content) END,
			id = (SELECT max(id) FROM snapshots WHERE key = ?1)
		FROM snapshots WHERE key = ?1 AND tag = ?2 ORDER BY id DESC LIMIT 1`, key, tag).
		Scan(&id, &sha, &isNull, &size, &head)
	if errors.Is(err, sql.ErrNoRows) {
		return Snapshot{}, false, nil
	}
	if err != nil {
		return Snapshot{}, false, storeErr(s.path, err)
	}
	snap := Snapshot{ID: id, Key: key, Tag: tag, Size: size, Kept: !isNull, Head: head}
	copy(snap.SHA256[:], sha)
	return snap, true, nil
}

// SnapshotContent returns the content of the snapshot with row id; kept is
// false when the store no longer holds it (or the row is gone).
func (s *Store) SnapshotContent(id int64) (content []byte, kept bool, err error) {
	if err := s.check(); err != nil {
		return nil, false, err
	}
	var contentID sql.NullInt64
	err = s.readRow(`SELECT content, content_id FROM snapshots WHERE id = ?`, id).Scan(&content, &contentID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, false, nil
	case err != nil:
		return nil, false, storeErr(s.path, err)
	case content != nil: // kept in the row (a hashls of schema 6 or 7)
		return content, true, nil
	case !contentID.Valid:
		return nil, false, nil
	}
	content, err = s.loadContent(contentID.Int64)
	if err != nil {
		return nil, false, err
	}
	return content, true, nil
}

// loadContent rebuilds content id on the readers.
func (s *Store) loadContent(id int64) ([]byte, error) {
	c, err := loadContent(readQuerier{s}, id)
	if err != nil {
		return nil, storeErr(s.path, err)
	}
	return c, nil
}

// readQuerier runs queries on the store's readers, through readStmt.
type readQuerier struct{ s *Store }

func (q readQuerier) Query(query string, args ...any) (*sql.Rows, error) {
	return q.s.readRows(query, args...)
}

// Head returns the newest snapshot of key.
func (s *Store) Head(key string) (Snapshot, bool, error) {
	if err := s.check(); err != nil {
		return Snapshot{}, false, err
	}
	var tag string
	err := s.readRow(`SELECT tag FROM snapshots WHERE key = ? ORDER BY id DESC LIMIT 1`, key).Scan(&tag)
	if errors.Is(err, sql.ErrNoRows) {
		return Snapshot{}, false, nil
	}
	if err != nil {
		return Snapshot{}, false, storeErr(s.path, err)
	}
	return s.Lookup(key, tag)
}

// AuditEntry is one row of the audit log.
type AuditEntry struct {
	ID           int64
	Tool         string
	Path         string // root-relative
	SHA256Before string // hex, "" when the file did not exist
	SHA256After  string // hex, "" when the file was removed
	Time         time.Time
	Note         string
	Transport    string // "cli", "lsp", "mcp", "hub", "recovery"; "" when unknown
	Call         string // the call id of the tool run that made it; "" when none was given
	Agent        string // who made it (Attribution.Agent); "" for the person at the editor
	Session      string // Attribution.Session
	Turn         string // Attribution.Turn; "" when the change belongs to no turn
}

// Attribution says who made a change and which turn it belongs to. It is
// recorded with every audit row of the change (also when recovery rolls it
// forward).
type Attribution struct {
	// Agent names who asked: an MCP client's clientInfo.name, the CLI's
	// HASHLS_AGENT; "" for the person at the editor.
	Agent string `json:"agent,omitempty"`
	// Session names the stream of calls the change came from (an MCP
	// session, a CLI agent); turns are a session's changes between quiet
	// gaps.
	Session string `json:"session,omitempty"`
	// Turn groups the changes one agent made for one request ("" for
	// none): a group id the caller passed, else the session's turn.
	Turn string
}

// Audit appends an entry and returns its id. A zero Time means now.
func (s *Store) Audit(e AuditEntry) (int64, error) {
	if err := s.check(); err != nil {
		return 0, err
	}
	var id int64
	err := s.write(func(tx wtx) (err error) {
		id, err = auditTx(tx, e)
		return err
	})
	if err != nil {
		return 0, storeErr(s.path, err)
	}
	s.noteCommitted(id)
	return id, nil
}

// auditTx appends an audit row inside a write transaction.
func auditTx(tx wtx, e AuditEntry) (int64, error) {
	t := e.Time
	if t.IsZero() {
		t = time.Now()
	}
	res, err := tx.Exec(`INSERT INTO audit(tool, path, sha_before, sha_after, time, note, transport, call, agent, session, turn) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.Tool, e.Path, e.SHA256Before, e.SHA256After, t.UnixNano(), e.Note, e.Transport, e.Call, e.Agent, e.Session, e.Turn)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// AuditLog returns the newest limit entries, newest first (limit <= 0: all).
func (s *Store) AuditLog(limit int) ([]AuditEntry, error) {
	return s.AuditRows(AuditQuery{Limit: limit})
}

// AuditQuery selects audit rows: the row ID when it is set, else a page of
// the newest rows (newest first) with ids below Before and above Since
// (each 0: no bound), at most Limit of them (<= 0: all).
type AuditQuery struct {
	ID            int64
	Before, Since int64
	Limit         int
}

// AuditRows returns the rows q selects, newest first; a missing ID gives
// no rows, not an error.
func (s *Store) AuditRows(q AuditQuery) ([]AuditEntry, error) {
	if q.ID != 0 {
		return s.auditQuery(`WHERE id = ?`, q.ID)
	}
	limit, before := q.Limit, q.Before
	if limit <= 0 {
		limit = -1
	}
	if before <= 0 {
		before = math.MaxInt64
	}
	return s.auditQuery(`WHERE id < ? AND id > ? ORDER BY id DESC LIMIT ?`, before, q.Since, limit)
}

// AuditByCall returns the entries made by the tool run with call id call,
// oldest first: none when that call changed nothing (or never ran).
func (s *Store) AuditByCall(call string) ([]AuditEntry, error) {
	if call == "" {
		return nil, nil
	}
	return s.auditQuery(`WHERE call = ? ORDER BY id`, call)
}

// AuditByTurn returns the entries of turn, oldest first (none for "").
func (s *Store) AuditByTurn(turn string) ([]AuditEntry, error) {
	if turn == "" {
		return nil, nil
	}
	return s.auditQuery(`WHERE turn = ? AND turn != '' ORDER BY id`, turn)
}

// AuditAfter returns the entries of path newer than audit row id, oldest
// first, at most limit of them: what changed the file since.
func (s *Store) AuditAfter(path string, id int64, limit int) ([]AuditEntry, error) {
	return s.auditQuery(`WHERE path = ? AND id > ? ORDER BY id LIMIT ?`, path, id, limit)
}

// LastTurn returns the turn of session's newest audited change and when it
// was made; ok is false when the session changed nothing yet (or session
// is "").
func (s *Store) LastTurn(session string) (turn string, at time.Time, ok bool, err error) {
	if session == "" {
		return "", time.Time{}, false, nil
	}
	rows, err := s.auditQuery(`WHERE session = ? AND session != '' ORDER BY id DESC LIMIT 1`, session)
	if err != nil || len(rows) == 0 {
		return "", time.Time{}, false, err
	}
	return rows[0].Turn, rows[0].Time, true, nil
}

// auditColumns are the columns scanAudit reads, in order.
const auditColumns = `id, tool, path, sha_before, sha_after, time, note, transport, call, agent, session, turn`

// auditQuery runs SELECT auditColumns FROM audit <where> on the readers.
func (s *Store) auditQuery(where string, args ...any) ([]AuditEntry, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	rows, err := s.readRows(`SELECT `+auditColumns+` FROM audit `+where, args...)
	if err != nil {
		return nil, storeErr(s.path, err)
	}
	out, err := scanAudit(rows)
	if err != nil {
		return nil, storeErr(s.path, err)
	}
	return out, nil
}

// scanAudit reads audit rows selected as auditColumns, and closes rows.
func scanAudit(rows *sql.Rows) ([]AuditEntry, error) {
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var e AuditEntry
		var t int64
		if err := rows.Scan(&e.ID, &e.Tool, &e.Path, &e.SHA256Before, &e.SHA256After, &t, &e.Note, &e.Transport, &e.Call, &e.Agent, &e.Session, &e.Turn); err != nil {
			return nil, err
		}
		e.Time = time.Unix(0, t)
		out = append(out, e)
	}
	return out, rows.Err()
}

// ContentOf returns a content of key whose sha256 is sum, when the store
// still holds one: a kept snapshot (a read or a commit recorded it) or a
// trash entry (a change replaced it). ok is false when neither does: the
// snapshot's content was dropped by retention and no trash entry kept it.
func (s *Store) ContentOf(key string, sum [32]byte) (content []byte, ok bool, err error) {
	if err := s.check(); err != nil {
		return nil, false, err
	}
	var id int64
	err = s.readRow(`SELECT id FROM contents WHERE sha256 = ?`, sum[:]).Scan(&id)
	switch {
	case err == nil:
		c, err := s.loadContent(id)
		return c, err == nil, err
	case !errors.Is(err, sql.ErrNoRows):
		return nil, false, storeErr(s.path, err)
	}
	// A snapshot that keeps its content in its row (a hashls of schema 6 or 7).
	err = s.readRow(`SELECT id FROM snapshots WHERE key = ? AND sha256 = ? AND length(content) IS NOT NULL ORDER BY id DESC LIMIT 1`, key, sum[:]).Scan(&id)
	switch {
	case err == nil:
		return s.SnapshotContent(id)
	case !errors.Is(err, sql.ErrNoRows):
		return nil, false, storeErr(s.path, err)
	}
	// Trash entries that hold their own copy carry no sha256 column: hash
	// the key's newest ones (entries pointing at a snapshot were found above).
	rows, err := s.readRows(`SELECT content FROM trash WHERE key = ? AND snapshot_id IS NULL ORDER BY id DESC LIMIT ?`, key, maxTrashScan)
	if err != nil {
		return nil, false, storeErr(s.path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var c []byte
		if err := rows.Scan(&c); err != nil {
			return nil, false, storeErr(s.path, err)
		}
		if sha256.Sum256(c) == sum {
			if c == nil {
				c = []byte{}
			}
			return c, true, nil
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, storeErr(s.path, err)
	}
	return nil, false, nil
}

// maxTrashScan bounds how many of a file's own-copy trash entries ContentOf
// hashes looking for a content.
const maxTrashScan = 64

// Trash keeps content that a tool is about to replace or delete, returning an id.
func (s *Store) Trash(key string, content []byte, reason string) (int64, error) {
	if err := s.check(); err != nil {
		return 0, err
	}
	t := trashReq{key: key, content: content, reason: reason}
	err := s.write(func(tx wtx) error {
		if err := s.trashTx(tx, &t); err != nil {
			return err
		}
		return pruneTrash(tx, t.id, s.limits)
	})
	if err != nil {
		return 0, storeErr(s.path, err)
	}
	return t.id, nil
}

// trashTx adds trash entry t inside a write transaction, setting t.id;
// the caller prunes (pruneTrash) once all of its entries are in. A content
// over the content limit is kept in pieces (trashChunkedTx).
func (s *Store) trashTx(tx wtx, t *trashReq) error {
	// A content not held (t.open: the commit streams only a file over the
	// content limit) goes in chunks, as does a held one over the limit.
	if t.open != nil {
		return s.trashChunkedTx(tx, t, t.size)
	}
	if size := int64(len(t.content)); size > int64(s.limits.MaxContentBytes) {
		return s.trashChunkedTx(tx, t, size)
	}
	content := t.content
	if content == nil {
		content = []byte{}
	}
	sum := t.sum
	if sum == nil {
		s := sha256.Sum256(content)
		sum = &s
	}
	// The content is usually a recorded snapshot (the edit's read): point
	// at it and pin it instead of storing a second copy.
	var snapID int64
	err := tx.QueryRow(`SELECT id FROM snapshots WHERE key = ? AND sha256 = ? AND (length(content) IS NOT NULL OR content_id IS NOT NULL)
		ORDER BY id DESC LIMIT 1`, t.key, sum[:]).Scan(&snapID)
	// (The trash_added trigger pins it and counts it: schemaV6.)
	var res sql.Result
	switch {
	case err == nil:
		res, err = tx.Exec(`INSERT INTO trash(key, content, size, reason, time, snapshot_id) VALUES (?, x'', ?, ?, ?, ?)`,
			t.key, len(content), t.reason, time.Now().UnixNano(), snapID)
		if err != nil {
			return err
		}
	case errors.Is(err, sql.ErrNoRows):
		res, err = tx.Exec(`INSERT INTO trash(key, content, size, reason, time) VALUES (?, ?, ?, ?, ?)`,
			t.key, content, len(content), t.reason, time.Now().UnixNano())
		if err != nil {
			return err
		}
	default:
		return err
	}
	t.id, err = res.LastInsertId()
	return err
}

// trashBytesSQL counts the trash's size from the rows (what meta
// trash_bytes keeps as a running total): its own blobs plus the stored
// content of the snapshots it points at (as schema 8 did, whose migration
// uses it: trashChunksBytesSQL adds the chunks of schema 9).
const trashBytesSQL = `(SELECT coalesce(sum(length(content)), 0) FROM trash) +
	(SELECT coalesce(sum(coalesce(length(s.content), (SELECT length(data) FROM contents WHERE id = s.content_id), 0)), 0)
		FROM snapshots s WHERE s.id IN (SELECT snapshot_id FROM trash))`

// trashChunksBytesSQL is the size of the trash's chunks (schemaV10), which
// trash_bytes counts besides trashBytesSQL.
const trashChunksBytesSQL = `(SELECT coalesce(sum(length(data)), 0) FROM trash_chunks)`

// pruneTrash drops the oldest trash entries older than keepFrom (the first
// entry of the current transaction, which are all kept) beyond the newest
// MaxTrashEntries (a bound on entries that point at a snapshot another
// entry pins already, which add no bytes), and while the trash holds more
// than MaxTrashBytes: its own blobs plus the snapshots it pins (meta
// trash_bytes, which the trash triggers keep: dropping an entry unpins its
// snapshot when no other entry points at it, and the total drops by what
// left the trash). Each call drops at most 512 entries over the cap, so a
// store that had more than the cap is brought within it over a few
// commits, none of them slow. The entries keep names (those a commit is
// restoring, which it reads after this) are kept too.
func pruneTrash(tx wtx, keepFrom int64, limits Limits, keep ...int64) error {
	maxEntries := int64(limits.MaxTrashEntries)
	if maxEntries <= 0 {
		maxEntries = int64(DefaultLimits().MaxTrashEntries)
	}
	// One query for both bounds: ids only grow, so the newest maxEntries
	// entries are those above max(id) - maxEntries.
	var total sql.NullInt64
	var oldest, newest int64
	if err := tx.QueryRow(`SELECT (SELECT value FROM meta WHERE name = 'trash_bytes'),
		coalesce((SELECT min(id) FROM trash), 0), coalesce((SELECT max(id) FROM trash), 0)`).Scan(&total, &oldest, &newest); err != nil {
		return err
	}
	kept := "[]"
	if len(keep) > 0 {
		b, _ := json.Marshal(keep)
		kept = string(b)
	}
	if oldest <= newest-maxEntries {
		if _, err := tx.Exec(`DELETE FROM trash WHERE id IN (SELECT id FROM trash
			WHERE id <= ?1 AND id < ?2 AND id NOT IN (SELECT value FROM json_each(?3)) ORDER BY id LIMIT 512)`, newest-maxEntries, keepFrom, kept); err != nil {
			return err
		}
		total.Valid = false // read it again
	}
	count := func() (int64, error) {
		var n int64
		err := tx.QueryRow(`SELECT value FROM meta WHERE name = 'trash_bytes'`).Scan(&n)
		if errors.Is(err, sql.ErrNoRows) { // a store edited by hand: count it again
			err = tx.QueryRow(`INSERT INTO meta(name, value) VALUES ('trash_bytes', ` + trashBytesSQL + ` + ` + trashChunksBytesSQL + `) RETURNING value`).Scan(&n)
		}
		return n, err
	}
	t := total.Int64
	if !total.Valid {
		var err error
		if t, err = count(); err != nil {
			return err
		}
	}
	if t <= limits.MaxTrashBytes {
		return nil
	}
	ids, err := queryInts(tx, `SELECT id FROM trash WHERE id < ?1 AND id NOT IN (SELECT value FROM json_each(?2)) ORDER BY id LIMIT 256`, keepFrom, kept)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := tx.Exec(`DELETE FROM trash WHERE id = ?`, id); err != nil {
			return err
		}
		if t, err = count(); err != nil || t <= limits.MaxTrashBytes {
			return err
		}
	}
	return nil
}

// queryInts runs a query of one integer column (in a write transaction,
// or on a connection) and returns its rows.
func queryInts(q interface {
	Query(string, ...any) (*sql.Rows, error)
}, query string, args ...any) ([]int64, error) {
	rows, err := q.Query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// TrashEntry describes one trashed content (without the content).
type TrashEntry struct {
	ID     int64
	Key    string
	Size   int64
	Reason string
	Time   time.Time
}

// TrashList returns the newest limit trash entries, newest first, for key
// ("" for every key; limit <= 0: all).
func (s *Store) TrashList(key string, limit int) ([]TrashEntry, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.readRows(`SELECT id, key, size, reason, time FROM trash WHERE ?1 = '' OR key = ?1 ORDER BY id DESC LIMIT ?2`, key, limit)
	if err != nil {
		return nil, storeErr(s.path, err)
	}
	defer rows.Close()
	var out []TrashEntry
	for rows.Next() {
		var e TrashEntry
		var t int64
		if err := rows.Scan(&e.ID, &e.Key, &e.Size, &e.Reason, &t); err != nil {
			return nil, storeErr(s.path, err)
		}
		e.Time = time.Unix(0, t)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr(s.path, err)
	}
	return out, nil
}

// TrashGet returns trash entry id and its content (whole: TrashOpen reads
// a large one in pieces); a missing id is KindNotFound.
func (s *Store) TrashGet(id int64) (TrashEntry, []byte, error) {
	if err := s.check(); err != nil {
		return TrashEntry{}, nil, err
	}
	var e TrashEntry
	var t int64
	var content []byte
	var snapID sql.NullInt64
	err := s.readRow(`SELECT id, key, size, reason, time, CASE WHEN snapshot_id IS NULL THEN content END, snapshot_id
		FROM trash WHERE id = ?`, id).Scan(&e.ID, &e.Key, &e.Size, &e.Reason, &t, &content, &snapID)
	if errors.Is(err, sql.ErrNoRows) {
		return TrashEntry{}, nil, &Error{Kind: KindNotFound, Msg: fmt.Sprintf("trash entry %d not found; list the trash to see the available ids", id)}
	}
	if err != nil {
		return TrashEntry{}, nil, storeErr(s.path, err)
	}
	switch {
	case snapID.Valid && snapID.Int64 == chunkedTrash: // kept in pieces: put together (TrashOpen reads them one at a time)
		content = make([]byte, e.Size)
		if _, err := io.ReadFull(newChunkReader(s, id, e.Size), content); err != nil {
			return TrashEntry{}, nil, err
		}
	case snapID.Valid:
		c, kept, err := s.SnapshotContent(snapID.Int64)
		if err != nil {
			return TrashEntry{}, nil, err
		}
		if !kept {
			return TrashEntry{}, nil, storeErr(s.path, fmt.Errorf("trash entry %d points at snapshot %d, whose content is gone (a broken store invariant)", id, snapID.Int64))
		}
		content = c
	}
	e.Time = time.Unix(0, t)
	if content == nil {
		content = []byte{}
	}
	return e, content, nil
}

// BumpNoop counts consecutive identical no-op payloads for key: the same
// payloadSHA as last time gives the previous count + 1, a different one 1.
func (s *Store) BumpNoop(key, payloadSHA string) (count int, err error) {
	if err := s.check(); err != nil {
		return 0, err
	}
	err = s.write(func(tx wtx) error {
		return tx.QueryRow(`INSERT INTO noop(key, payload_sha, count) VALUES (?, ?, 1)
			ON CONFLICT(key) DO UPDATE SET
				count = CASE WHEN payload_sha = excluded.payload_sha THEN count + 1 ELSE 1 END,
				payload_sha = excluded.payload_sha
			RETURNING count`, key, payloadSHA).Scan(&count)
	})
	if err != nil {
		return 0, storeErr(s.path, err)
	}
	return count, nil
}

// ResetNoop forgets key's no-op counter (after a real change).
func (s *Store) ResetNoop(key string) error {
	if err := s.check(); err != nil {
		return err
	}
	err := s.write(func(tx wtx) error {
		_, err := tx.Exec(`DELETE FROM noop WHERE key = ?`, key)
		return err
	})
	if err != nil {
		return storeErr(s.path, err)
	}
	return nil
}

// IntegrityCheck runs PRAGMA integrity_check and returns an error unless the
// database reports "ok".
func (s *Store) IntegrityCheck() error {
	if err := s.check(); err != nil {
		return err
	}
	var res string
	if err := s.w.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil {
		return storeErr(s.path, err)
	}
	if res != "ok" {
		return storeErr(s.path, fmt.Errorf("integrity check: %s", res))
	}
	return nil
}

// SHA256Hex is the lowercase hex sha256 of b, the form used in the audit log.
func SHA256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
