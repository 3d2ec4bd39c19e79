package workspace

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/hashls/hashls/workspace/sqlitedb"
)

// The store as a file users copy, back up and lose. Beside each store
// database, a small marker file ("<db>.known") remembers that the store
// existed and the newest audit row it held. Open compares the two: a store
// that is missing or empty where the marker says one existed, or that holds
// fewer audit rows than the marker remembers (a damaged WAL that SQLite
// dropped, a backup restored over it), is reported once (Notices) and
// audited, never silently taken for a fresh start. The marker is written
// without fsync after each commit: it is a witness, not a second journal,
// and a marker that is older than the store says nothing.

// marker is the content of the marker file: one line of two fixed-width
// numbers, so that moving it forward is one pwrite of the same length (no
// new file, no rename on the commit's path).
type marker struct {
	Created   int64 // unix nanoseconds: when the store was first made
	LastAudit int64 // the newest audit row id the store held
}

const markerFormat = "hashls-store %020d %020d\n"

// markerLen is the length of every marker markerFormat renders (a constant,
// not a Sprintf at package init, which every process would pay).
const markerLen = len("hashls-store ") + 20 + len(" ") + 20 + len("\n")

func markerPath(db string) string { return db + ".known" }

func readMarker(db string) (marker, bool) {
	b, err := os.ReadFile(markerPath(db))
	if err != nil || len(b) != markerLen {
		return marker{}, false
	}
	var m marker
	if n, err := fmt.Sscanf(string(b), markerFormat, &m.Created, &m.LastAudit); err != nil || n != 2 || m.Created <= 0 {
		return marker{}, false // torn by a crash, or not ours: unknown
	}
	return m, true
}

// writeMarker writes the marker in place when it exists (one write of the
// same length), else creates it through a temp file and a rename. Failure
// only loses the witness.
func writeMarker(db string, m marker) {
	b := fmt.Appendf(nil, markerFormat, m.Created, m.LastAudit)
	if f, err := os.OpenFile(markerPath(db), os.O_WRONLY, 0); err == nil {
		_, werr := f.WriteAt(b, 0)
		f.Close()
		if werr == nil {
			return
		}
	}
	tmp := fmt.Sprintf("%s.%d.tmp", markerPath(db), os.Getpid())
	if os.WriteFile(tmp, b, 0o600) == nil {
		_ = os.Rename(tmp, markerPath(db))
	}
}

// lastAuditID is the newest audit row's id (0 when there is none).
func (s *Store) lastAuditID() (int64, error) {
	var id sql.NullInt64
	if err := s.w.QueryRow(`SELECT max(id) FROM audit`).Scan(&id); err != nil {
		return 0, storeErr(s.path, err)
	}
	return id.Int64, nil
}

// noteCommitted moves the marker forward to the audit row id just written.
func (s *Store) noteCommitted(lastAudit int64) {
	if lastAudit == 0 || s.created == 0 {
		return
	}
	writeMarker(s.path, marker{Created: s.created, LastAudit: lastAudit})
}

// checkMarker compares the store just opened (existed: its file was there
// and not empty) with its marker and returns what the user must hear, or "".
// It leaves the marker matching the store, so each loss is reported once.
func (s *Store) checkMarker(existed bool) string {
	m, known := readMarker(s.path)
	last, err := s.lastAuditID()
	if err != nil {
		return ""
	}
	switch {
	case !known:
		s.created = time.Now().UnixNano()
		writeMarker(s.path, marker{Created: s.created, LastAudit: last})
		return ""
	case !existed:
		s.created = time.Now().UnixNano()
		writeMarker(s.path, marker{Created: s.created, LastAudit: last})
		return fmt.Sprintf("the store at %s was missing or empty, though hashls had one there since %s (%d audited changes): its history, snapshots and trash from before now are gone, so tags shown before now must be read again; if you have a copy of that file, put it back while no hashls runs",
			s.path, time.Unix(0, m.Created).Format(time.DateTime), m.LastAudit)
	case last < m.LastAudit:
		s.created = m.Created
		writeMarker(s.path, marker{Created: m.Created, LastAudit: last})
		return fmt.Sprintf("the store at %s holds fewer changes than it did: its newest audit row is #%d, but #%d existed (a damaged write-ahead log that SQLite dropped, or an older copy restored over it); the trash and audit rows of the last %d change(s) are gone, and tags shown since may need a re-read",
			s.path, last, m.LastAudit, m.LastAudit-last)
	default:
		s.created = m.Created
		if last != m.LastAudit {
			writeMarker(s.path, marker{Created: m.Created, LastAudit: last})
		}
		return ""
	}
}

// Notices returns, once, what the user must hear about the store since
// Open: it was lost or rolled back, or it could not be opened and reads
// record nothing. Tools add them to the next result.
func (w *Workspace) Notices() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.notices
	w.notices = nil
	return n
}

// storeCause names what is wrong with the store's disk when err says so:
// the disk is full, or the state directory is read-only or not ours.
// It returns "" for other errors.
func storeCause(err error) string {
	msg := strings.ToLower(fmt.Sprint(err))
	switch {
	case errors.Is(err, syscall.ENOSPC) || strings.Contains(msg, "disk is full") || strings.Contains(msg, "no space left"):
		return "the disk holding it is full: free some space there (or set HASHLS_STATE_DIR to a directory on another disk) and retry; nothing was changed"
	case errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission) || strings.Contains(msg, "readonly database") ||
		strings.Contains(msg, "read-only file system") || strings.Contains(msg, "permission denied"):
		return "its directory is read-only or not writable by this user: make it writable, or set HASHLS_STATE_DIR to a writable directory"
	}
	return ""
}

// osCause is what the operating system said of err, without the paths
// that the messages around it already name ("read-only file system").
func osCause(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var we *Error
	if errors.As(err, &we) && we.Err != nil {
		return osCause(we.Err)
	}
	return err.Error()
}

// degradedStore is the notice of a workspace whose store could not be
// opened because of its disk: reads still work, without recording.
func degradedStore(path string, err error) string {
	return fmt.Sprintf("the store at %s cannot be opened (%s): %s. Until then reads work but record nothing (the tags they show are still right; an edit will ask for a re-read), and changes are refused", path, osCause(err), storeCause(err))
}

// storeDown is the error of a change refused because the store is down.
// It says all the notice of the degraded store says (which it takes off
// the notices: the caller hears it once).
func (w *Workspace) storeDownErr() error {
	if w.storeDown == nil {
		return nil
	}
	path := StorePath(w.stateDir, w.root)
	w.mu.Lock()
	notice := degradedStore(path, w.storeDown)
	kept := w.notices[:0]
	for _, n := range w.notices {
		if n != notice {
			kept = append(kept, n)
		}
	}
	w.notices = kept
	w.mu.Unlock()
	return &Error{Kind: KindStore, Msg: fmt.Sprintf("nothing was changed: changes are journaled in the store, so that a crash loses nothing, and the store at %s cannot be opened (%s): %s", path, osCause(w.storeDown), storeCause(w.storeDown)), Err: w.storeDown}
}

// RecordReads records the snapshots of what a read showed
// (Store.RecordAll; nothing without a store). A store that cannot take
// them because of its disk (full, read-only) does not stop the read: it
// records nothing, and the next result says so, once until a record works
// again. Other store failures are errors.
func (w *Workspace) RecordReads(recs []Recording) error {
	if w.store == nil || len(recs) == 0 {
		return nil
	}
	err := w.store.RecordAll(recs)
	cause := storeCause(err)
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case err == nil:
		w.unrecorded = false
		return nil
	case cause == "":
		return err
	case !w.unrecorded:
		w.unrecorded = true
		w.notices = append(w.notices, fmt.Sprintf("the store at %s could not record what this call showed (%s): %s. Reads and searches go on without recording (the tags they show are right, but an edit with one will ask for a re-read)", w.store.path, osCause(err), strings.TrimSuffix(cause, "; nothing was changed")))
	}
	return nil
}

// Report is what Doctor found: the store's health and what it offers to
// repair. Text renders it.
type Report struct {
	Store         string // the database file
	StoreBytes    int64  // the database file's size
	WALBytes      int64  // its -wal file's size (0 when none)
	FreeBytes     int64  // room in the database file that holds nothing (free pages)
	Integrity     string // "ok", or what PRAGMA integrity_check said
	Snapshots     int64  // snapshot rows
	ContentBytes  int64  // snapshot contents kept, as stored (a delta counts its own size)
	Contents      ContentCheck
	AuditRows     int64 // audit rows
	LastAudit     *AuditEntry
	TrashEntries  int64
	TrashBytes    int64    // trash blobs plus the snapshots they pin
	PendingIntent int      // unfinished commits in the journal
	Orphans       []string // temp files of commits under the root that no journal names (root-relative)
	OrphansCapped bool     // the walk stopped at maxDoctorWalk entries
	Notices       []string // what Open reported (a lost or rolled-back store)
	Fixed         []string // what Doctor repaired (fix set)
	Offers        []string // what it would repair with fix

	// HotJournals are the SQLite databases under the root (root-relative)
	// that a process left in the middle of a write transaction (a hot
	// rollback journal beside them): no read-only read works until the
	// transaction is rolled back.
	HotJournals []string
}

// maxDoctorWalk bounds the directory entries Doctor visits looking for
// orphan temp files.
const maxDoctorWalk = 200000

// Doctor checks the store and the root: integrity, sizes, the newest audit
// row, unfinished commits, orphan temp files, the trash, every kept
// version (rebuilt and checked against its sha256), and SQLite databases
// under the root left in the middle of a write (a hot journal). With fix it
// finishes unfinished commits, removes orphan temp files, rolls back those
// SQLite transactions, drops stored contents no version names, compacts a
// store whose file is a quarter empty and checkpoints the WAL, and says
// what it did.
func (w *Workspace) Doctor(ctx context.Context, fix bool) (*Report, error) {
	r := &Report{Store: StorePath(w.stateDir, w.root), Notices: w.Notices()}
	if w.store == nil {
		if w.storeDown != nil {
			r.Integrity = "not opened: " + storeCause(w.storeDown)
			return r, nil
		}
		return nil, &Error{Kind: KindStore, Msg: "this workspace was opened without a store; there is nothing to check"}
	}
	s := w.store
	unnamed := w.doctorStore(ctx, r)
	pending, err := s.pendingIntents()
	if err != nil {
		return nil, err
	}
	r.PendingIntent = len(pending)
	known := map[string]bool{} // root-relative
	for _, in := range pending {
		for _, e := range in.Entries {
			if rel, ok := w.relOf(e.Tmp); e.Tmp != "" && ok {
				known[rel] = true
			}
		}
	}
	if r.PendingIntent > 0 {
		r.Offers = append(r.Offers, fmt.Sprintf("finish %d interrupted commit(s) (roll forward or back, as at every start)", r.PendingIntent))
	}
	w.doctorRoot(ctx, r, known)
	if !fix {
		return r, nil
	}
	r.Offers = nil
	if err := w.doctorFix(ctx, r, unnamed); err != nil {
		return nil, err
	}
	return r, nil
}

// doctorStore checks the store's file, integrity, contents, audit log and
// trash into r; unnamed is the stored contents no version names.
func (w *Workspace) doctorStore(ctx context.Context, r *Report) (unnamed int64) {
	s := w.store
	if fi, err := os.Stat(s.path); err == nil {
		r.StoreBytes = fi.Size()
	}
	if fi, err := os.Stat(s.path + "-wal"); err == nil {
		r.WALBytes = fi.Size()
	}
	r.Integrity = "ok"
	if err := s.IntegrityCheck(); err != nil {
		r.Integrity = err.Error()
		r.Offers = append(r.Offers, fmt.Sprintf("the store is damaged: with no hashls running, move %s (and its -wal and -shm files) aside; the next run starts a new store", s.path))
	}
	q := func(query string, dst ...any) {
		_ = s.r.QueryRowContext(ctx, query).Scan(dst...)
	}
	q(`SELECT count(*), coalesce(sum(length(content)), 0) + (SELECT coalesce(sum(length(data)), 0) FROM contents) FROM snapshots`, &r.Snapshots, &r.ContentBytes)
	q(`SELECT count(*) FROM content_refs WHERE refs <= 0`, &unnamed)
	if unnamed > 0 {
		r.Offers = append(r.Offers, fmt.Sprintf("drop %d stored content(s) that no version names any more (left by a hashls of schema 6 or 7)", unnamed))
	}
	if c, err := s.VerifyContents(ctx); err == nil {
		r.Contents = c
		if len(c.Damaged) > 0 {
			r.Offers = append(r.Offers, fmt.Sprintf("%d kept version(s) do not rebuild (the first: %s): with no hashls running, move %s (and its -wal and -shm files) aside; the next run starts a new store", len(c.Damaged), c.Damaged[0], s.path))
		}
	}
	q(`SELECT count(*) FROM audit`, &r.AuditRows)
	q(`SELECT count(*), coalesce((SELECT value FROM meta WHERE name = 'trash_bytes'), 0) FROM trash`, &r.TrashEntries, &r.TrashBytes)
	if free, size, err := s.freeBytes(); err == nil {
		r.FreeBytes = free
		if free >= compactMinBytes && free >= size/compactMinShare {
			r.Offers = append(r.Offers, fmt.Sprintf("compact the store: %s of its file holds nothing (VACUUM, with no other hashls busy on it)", byteSize(free)))
		}
	}
	if log, err := s.AuditLog(1); err == nil && len(log) == 1 {
		r.LastAudit = &log[0]
	}
	return unnamed
}

// doctorRoot walks the root for orphan temp files (known: the temp files
// of pending commits, not orphans) and SQLite databases with a hot
// journal, into r.
func (w *Workspace) doctorRoot(ctx context.Context, r *Report, known map[string]bool) {
	seen := 0
	// The walk and the removals go through the root (rootfs.go): a
	// directory swapped for a link meanwhile is not followed out of it.
	_ = fs.WalkDir(w.fsroot.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || ctx.Err() != nil {
			return nil
		}
		if seen++; seen > maxDoctorWalk {
			r.OrphansCapped = true
			return fs.SkipAll
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") && p != "." {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), ".") && strings.Contains(d.Name(), ".hashls-") && strings.HasSuffix(d.Name(), ".tmp") && !known[p] {
			r.Orphans = append(r.Orphans, p)
		}
		if db, ok := strings.CutSuffix(p, "-journal"); ok && !d.IsDir() {
			if dir, name, err := w.OpenParent(Path{Rel: db}); err == nil {
				if f := (sqlitedb.File{Dir: dir, Name: name}); sqlitedb.HotJournal(f) && sqlitedb.IsSQLiteFile(f) {
					r.HotJournals = append(r.HotJournals, db)
				}
				dir.Close()
			}
		}
		return nil
	})
	if len(r.Orphans) > 0 {
		r.Offers = append(r.Offers, fmt.Sprintf("remove %d orphan temp file(s) of interrupted writes", len(r.Orphans)))
	}
	if len(r.HotJournals) > 0 {
		r.Offers = append(r.Offers, fmt.Sprintf("roll back the unfinished write transaction of %d SQLite database(s) (left by a process that stopped mid-write; until then no read of them works)", len(r.HotJournals)))
	}
}

// doctorFix repairs what the checks in r found (unnamed: the stored
// contents no version names) and says in r.Fixed what it did.
func (w *Workspace) doctorFix(ctx context.Context, r *Report, unnamed int64) error {
	s := w.store
	if r.PendingIntent > 0 {
		recs, err := w.Recover(ctx)
		if err != nil {
			return err
		}
		for _, rc := range recs {
			if rc.Err != nil {
				r.Fixed = append(r.Fixed, fmt.Sprintf("journal #%d (%s): could not finish: %v", rc.Intent, rc.Tool, rc.Err))
				continue
			}
			fixed := fmt.Sprintf("journal #%d (%s on %s): %s", rc.Intent, rc.Tool, strings.Join(rc.Paths, ", "), rc.Outcome)
			if len(rc.Left) > 0 {
				fixed += fmt.Sprintf("; changed since by another commit or program, left as it is: %s", strings.Join(rc.Left, ", "))
			}
			r.Fixed = append(r.Fixed, fixed)
		}
	}
	for _, o := range r.Orphans {
		if err := w.fsroot.Remove(rootName(o)); err == nil {
			r.Fixed = append(r.Fixed, "removed "+o)
		}
	}
	for _, db := range r.HotJournals {
		dir, name, err := w.OpenParent(Path{Rel: db})
		ok := false
		if err == nil {
			ok, err = sqlitedb.RollBackJournal(sqlitedb.File{Dir: dir, Name: name})
			dir.Close()
		}
		if err != nil {
			r.Fixed = append(r.Fixed, fmt.Sprintf("%s: could not roll back its unfinished transaction: %v", db, err))
		} else if ok {
			r.Fixed = append(r.Fixed, "rolled back the unfinished transaction of "+db)
		}
	}
	if unnamed > 0 {
		if err := s.write(func(tx wtx) error { return collectContents(tx, nil) }); err != nil {
			r.Fixed = append(r.Fixed, fmt.Sprintf("could not drop the unnamed contents: %v", err))
		} else {
			r.Fixed = append(r.Fixed, fmt.Sprintf("dropped %d stored content(s) that no version named", unnamed))
		}
	}
	if done, err := s.compact(); err != nil {
		r.Fixed = append(r.Fixed, fmt.Sprintf("could not compact the store (%v): run doctor --fix again when no other hashls is busy on it", err))
	} else if done {
		r.Fixed = append(r.Fixed, fmt.Sprintf("compacted the store (%s of free room given back)", byteSize(r.FreeBytes)))
	}
	// Not a repair: a tidy-up that folds the write-ahead log into the
	// database (SQLite does it on its own every 1,000 pages).
	var busy, logPages, done int
	if err := s.w.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logPages, &done); err == nil && busy == 0 && done > 0 {
		r.Fixed = append(r.Fixed, fmt.Sprintf("checkpointed the write-ahead log (%d pages)", done))
	}
	return nil
}

// Text renders the report for a person.
func (r *Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "store       %s\n", r.Store)
	fmt.Fprintf(&b, "size        %s database (%s of it free), %s write-ahead log\n", byteSize(r.StoreBytes), byteSize(r.FreeBytes), byteSize(r.WALBytes))
	fmt.Fprintf(&b, "integrity   %s\n", r.Integrity)
	fmt.Fprintf(&b, "snapshots   %d (%s of content kept)\n", r.Snapshots, byteSize(r.ContentBytes))
	c := r.Contents
	fmt.Fprintf(&b, "contents    %d kept, %d as deltas: %s stored for %s; ", c.Contents, c.Deltas, byteSize(c.Bytes), byteSize(c.WholeBytes))
	if len(c.Damaged) == 0 {
		b.WriteString("each rebuilds to its sha256\n")
	} else {
		fmt.Fprintf(&b, "%d do not rebuild\n", len(c.Damaged))
	}
	fmt.Fprintf(&b, "trash       %d entries, %s stored\n", r.TrashEntries, byteSize(r.TrashBytes))
	if r.LastAudit != nil {
		a := r.LastAudit
		fmt.Fprintf(&b, "audit       %d rows; newest #%d %s %s %s (%s)\n", r.AuditRows, a.ID, a.Time.Format(time.DateTime), a.Tool, a.Path, a.Transport)
	} else {
		fmt.Fprintf(&b, "audit       %d rows\n", r.AuditRows)
	}
	fmt.Fprintf(&b, "journal     %d unfinished commit(s)\n", r.PendingIntent)
	more := ""
	if r.OrphansCapped {
		more = fmt.Sprintf(" (the walk stopped after %d entries)", maxDoctorWalk)
	}
	fmt.Fprintf(&b, "temp files  %d orphan(s)%s\n", len(r.Orphans), more)
	for _, o := range r.Orphans {
		fmt.Fprintf(&b, "  %s\n", o)
	}
	if len(r.HotJournals) > 0 {
		fmt.Fprintf(&b, "sqlite      %d database(s) left in the middle of a write (a hot journal: no read works until it is rolled back)\n", len(r.HotJournals))
		for _, db := range r.HotJournals {
			fmt.Fprintf(&b, "  %s\n", db)
		}
	}
	for _, n := range r.Notices {
		fmt.Fprintf(&b, "notice: %s\n", n)
	}
	for _, f := range r.Fixed {
		fmt.Fprintf(&b, "fixed: %s\n", f)
	}
	if len(r.Offers) > 0 {
		b.WriteString("`hashls doctor --fix` would:\n")
		for _, o := range r.Offers {
			fmt.Fprintf(&b, "  - %s\n", o)
		}
	} else if len(r.Fixed) == 0 {
		b.WriteString("nothing to repair\n")
	}
	return b.String()
}

func byteSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
}
