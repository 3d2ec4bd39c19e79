package workspace

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// The commit journal: one row of the store's intents table per commit in
// flight. The protocol, what is durable when and why recovery is correct
// are in the package doc ("Committing a change").

const (
	opWrite  = "write"
	opDelete = "delete"
)

// intent is one journaled commit.
type intent struct {
	ID      int64         `json:"-"`
	Owner   string        `json:"-"` // the process that made it (process.go); "" from an older hashls
	PID     int           `json:"-"`
	Tool    string        `json:"tool"`
	Call    string        `json:"call,omitempty"` // CommitOptions.Call
	Who     Attribution   `json:"who,omitzero"`   // CommitOptions.Who
	Entries []intentEntry `json:"entries"`
	// reads are the trash entries the commit reads after its intent (a
	// restore's Change.NewPiecesOf): the intent's pruning keeps them.
	reads []int64
}

// intentEntry is one disk operation of an intent.
type intentEntry struct {
	Path  string `json:"path"` // absolute
	Rel   string `json:"rel"`
	Op    string `json:"op"`              // opWrite or opDelete
	Old   string `json:"old,omitempty"`   // sha256 hex of the disk text before; "" when absent
	New   string `json:"new,omitempty"`   // sha256 hex of the new content (writes)
	Tmp   string `json:"tmp,omitempty"`   // the temp file renamed into place (writes)
	Trash int64  `json:"trash,omitempty"` // trash entry holding the old disk text
	Mode  uint32 `json:"mode"`
	// Later: a later commit changed this file while the intent waited for
	// recovery (its owner gone): recovery leaves the file as it is, even
	// when it holds the intent's base or new content again.
	Later bool `json:"later,omitempty"`
}

// beginIntent adds the trash entries and the intent row in one
// transaction. With durable set (several files change) the transaction is
// committed with synchronous=FULL, so that it survives a power loss before
// the first rename; a single file's rename is atomic on its own and needs
// the journal only to find its temp file, for which a process crash is the
// case that matters (a committed WAL transaction survives it).
func (s *Store) beginIntent(in *intent, trash []trashReq, durable bool) error {
	if err := s.check(); err != nil {
		return err
	}
	err := s.writeSync(durable, func(tx wtx) error {
		var first int64
		for i := range trash {
			t := &trash[i]
			if err := s.trashTx(tx, t); err != nil {
				return err
			}
			if first == 0 {
				first = t.id
			}
			if t.journal {
				in.Entries[t.index].Trash = t.id
			}
		}
		if first != 0 {
			if err := pruneTrash(tx, first, s.limits, in.reads...); err != nil {
				return err
			}
		}
		if err := supersede(tx, in); err != nil {
			return err
		}
		body, err := json.Marshal(in)
		if err != nil {
			return err
		}
		in.Owner, in.PID = selfOwner(), os.Getpid()
		res, err := tx.Exec(`INSERT INTO intents(tool, pid, time, body, owner) VALUES (?, ?, ?, ?, ?)`, in.Tool, in.PID, time.Now().UnixNano(), string(body), in.Owner)
		if err != nil {
			return err
		}
		in.ID, err = res.LastInsertId()
		return err
	})
	var we *Error
	if errors.As(err, &we) && we.Kind != KindStore {
		return we // a file that changed or cannot be read while its old content was kept
	}
	if err != nil {
		return storeErr(s.path, err)
	}
	return nil
}

// supersede marks Later every entry of another intent that changes a file
// in changes too. The caller holds the locks of in's files, and a commit
// holds its files' locks from before its intent is written until it is
// finished or undone, so such an intent is one whose owner is gone (or
// gave up undoing it): recovery must then leave the file to this commit,
// also when it later holds that intent's base again.
func supersede(tx wtx, in *intent) error {
	mine := map[string]bool{}
	for _, e := range in.Entries {
		if e.Op != opRow {
			mine[e.Path] = true
		}
	}
	if len(mine) == 0 {
		return nil
	}
	rows, err := tx.Query(`SELECT id, body FROM intents`)
	if err != nil {
		return err
	}
	type update struct {
		id   int64
		body []byte
	}
	var ups []update
	for rows.Next() {
		var id int64
		var body string
		if err := rows.Scan(&id, &body); err != nil {
			rows.Close()
			return err
		}
		var other intent
		if json.Unmarshal([]byte(body), &other) != nil {
			continue // unreadable: recovery reports it
		}
		changed := false
		for i := range other.Entries {
			if e := &other.Entries[i]; e.Op != opRow && mine[e.Path] && !e.Later {
				e.Later, changed = true, true
			}
		}
		if changed {
			b, err := json.Marshal(&other)
			if err != nil {
				rows.Close()
				return err
			}
			ups = append(ups, update{id, b})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, u := range ups {
		if _, err := tx.Exec(`UPDATE intents SET body = ? WHERE id = ?`, string(u.body), u.id); err != nil {
			return err
		}
	}
	return nil
}

// inflight holds the intents this process is committing (by store and
// id): its own Recover leaves them alone, as it leaves another live
// process's.
var inflight sync.Map // inflightKey → struct{}

type inflightKey struct {
	store string
	id    int64
}

// holdIntent marks intent id of s in flight until the returned func runs.
func (s *Store) holdIntent(id int64) func() {
	k := inflightKey{s.path, id}
	inflight.Store(k, struct{}{})
	return func() { inflight.Delete(k) }
}

// finishIntent records the new snapshots and the audit rows, ends the
// no-op streak of every changed file and deletes intent id, in one
// transaction. It returns the audit ids in order.
func (s *Store) finishIntent(id int64, recs []Recording, audits []AuditEntry) ([]int64, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	ids := make([]int64, len(audits))
	now := time.Now().UnixNano()
	err := s.write(func(tx wtx) error {
		for _, r := range recs {
			if err := s.recordTx(tx, r, now); err != nil {
				return err
			}
			if _, err := tx.Exec(`DELETE FROM noop WHERE key = ?`, r.Key); err != nil {
				return err
			}
		}
		for i, a := range audits {
			var err error
			if ids[i], err = auditTx(tx, a); err != nil {
				return err
			}
		}
		_, err := tx.Exec(`DELETE FROM intents WHERE id = ?`, id)
		return err
	})
	if err != nil {
		return nil, storeErr(s.path, err)
	}
	if len(ids) > 0 {
		s.noteCommitted(ids[len(ids)-1])
	}
	return ids, nil
}

// closeIntent deletes intent id, appending audits, in one transaction.
func (s *Store) closeIntent(id int64, audits []AuditEntry) error {
	_, err := s.finishIntent(id, nil, audits)
	return err
}

// pendingIntents lists the intents in the journal, oldest first.
func (s *Store) pendingIntents() ([]intent, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	rows, err := s.w.Query(`SELECT id, owner, pid, body FROM intents ORDER BY id`)
	if err != nil {
		return nil, storeErr(s.path, err)
	}
	defer rows.Close()
	var out []intent
	for rows.Next() {
		var in intent
		var body string
		if err := rows.Scan(&in.ID, &in.Owner, &in.PID, &body); err != nil {
			return nil, storeErr(s.path, err)
		}
		if err := json.Unmarshal([]byte(body), &in); err != nil {
			return nil, storeErr(s.path, fmt.Errorf("journal intent %d is unreadable: %w", in.ID, err))
		}
		out = append(out, in)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr(s.path, err)
	}
	return out, nil
}

// intentByID reads intent id, ok false when it is no longer in the journal.
func (s *Store) intentByID(id int64) (in intent, ok bool, err error) {
	var body string
	err = s.w.QueryRow(`SELECT id, owner, pid, body FROM intents WHERE id = ?`, id).Scan(&in.ID, &in.Owner, &in.PID, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return in, false, nil
	}
	if err != nil {
		return in, false, storeErr(s.path, err)
	}
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		return in, false, storeErr(s.path, fmt.Errorf("journal intent %d is unreadable: %w", id, err))
	}
	return in, true, nil
}

// writeSync is write with synchronous=FULL for this transaction when full
// is set. It holds the single writer connection throughout, so the setting
// applies to this transaction only.
func (s *Store) writeSync(full bool, f func(tx wtx) error) error {
	if !full {
		return s.write(f)
	}
	if err := s.writeFull(f); err != nil {
		return err
	}
	s.foldLog() // once the writer connection is back in its pool of one
	return nil
}

// writeFull runs f in a transaction committed with synchronous=FULL.
func (s *Store) writeFull(f func(tx wtx) error) error {
	s.wstmts.prepareWanted(s.w) // while the connection is free (stmts.go)
	ctx := context.Background()
	c, err := s.w.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, `PRAGMA synchronous = FULL`); err != nil {
		return err
	}
	defer c.ExecContext(ctx, `PRAGMA synchronous = NORMAL`)
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(wtx{tx, &s.wstmts}); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// diskOp is one entry of an intent with its file's directory open: what
// the commit path and recovery do to the file, they do there (rootfs.go).
type diskOp struct {
	intentEntry
	at  fileAt
	dir string // the directory's root-relative name: each is synced once
}

// tmpName is the name of e's temp file in its directory.
func (op diskOp) tmpName() string {
	if op.Tmp != "" {
		return filepath.Base(op.Tmp)
	}
	return tempName(op.at.name, "undo", 0)
}

// maxNameBytes is the longest file name every file system hashls runs on
// takes: 255 bytes (ext4, APFS, btrfs, XFS), 255 UTF-16 units (NTFS), which
// no name of 255 UTF-8 bytes exceeds.
const maxNameBytes = 255

// tempName is the temp file of the file name: ".NAME.hashls-NONCE-I.tmp",
// in the file's directory. NAME is cut (at a character boundary) as much as
// it takes for the whole to fit a file name: a file whose name is close to
// the limit can be written like any other.
func tempName(name, nonce string, i int) string {
	suffix := fmt.Sprintf(".hashls-%s-%d.tmp", nonce, i)
	if room := maxNameBytes - 1 - len(suffix); len(name) > room {
		cut := room
		for cut > 0 && cut < len(name) && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut]
	}
	return "." + name + suffix
}

// opsIn returns ents, which must be under the root, each in its directory
// as locks hold it.
func (w *Workspace) opsIn(locks *lockSet, ents []intentEntry) ([]diskOp, error) {
	var ops []diskOp
	for _, e := range ents {
		rel, ok := w.relOf(e.Path)
		if !ok {
			return nil, fmt.Errorf("%s is not under the workspace root %s", e.Path, w.root)
		}
		d, _ := splitRel(rel)
		ops = append(ops, diskOp{intentEntry: e, at: locks.at(rel), dir: d})
	}
	return ops, nil
}

// syncDirs fsyncs the directory of every op once, making the renames and
// removes durable.
func syncDirs(ops []diskOp) {
	done := map[string]bool{}
	for _, op := range ops {
		if op.at.dir == nil || done[op.dir] {
			continue
		}
		done[op.dir] = true
		syncDir(op.at.dir)
	}
}

// rollForward completes ops, which Commit (or recovery) has checked under
// its locks: every temp file renamed into place, every file to delete
// removed.
func rollForward(ops []diskOp) error {
	for _, op := range ops {
		if op.at.dir == nil {
			if op.Op == opDelete {
				continue // its directory is gone, and the file with it
			}
			return fmt.Errorf("rename into %s: its directory is gone", op.Rel)
		}
		switch op.Op {
		case opWrite:
			if err := replaceFile(op.at.dir, op.tmpName(), op.at.name); err != nil {
				return fmt.Errorf("rename into %s: %w", op.Rel, err)
			}
		case opDelete:
			if err := removeFile(op.at.dir, op.at.name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove %s: %w", op.Rel, err)
			}
		}
	}
	syncDirs(ops)
	return nil
}

// rollBack puts every file of ops that holds its new content (for a
// delete: is gone) back to its old disk content (old(i) reads it; an
// error when it cannot be had) and removes every temp file. A file that holds
// neither was changed by someone else since, and an entry a later commit
// superseded (Later) is that commit's: both are left alone. Restores are
// atomic: the old content is written to the entry's temp name (a name the
// journal knows) and renamed into place.
func rollBack(ops []diskOp, old func(i int) (io.ReadCloser, error)) error {
	var errs []string
	for i := len(ops) - 1; i >= 0; i-- {
		op := ops[i]
		dir, tmp := op.at.dir, op.tmpName()
		if dir == nil { // the directory is gone: nothing in it to put back
			continue
		}
		_ = dir.Remove(tmp)
		if op.Later {
			continue
		}
		sum, err := fileSHA(dir, op.at.name)
		if err != nil {
			errs = append(errs, fmt.Sprintf("read %s: %v", op.Rel, err))
			continue
		}
		switch {
		case sum == op.Old:
			continue // not applied
		case op.Op == opWrite && sum != op.New:
			continue // changed by someone else since: left alone
		case op.Op == opDelete && sum != "":
			continue // re-created by someone else: left alone
		}
		if op.Old == "" { // created: remove it again
			if err := removeFile(dir, op.at.name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Sprintf("remove %s: %v", op.Rel, err))
			}
			continue
		}
		content, err := old(i)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", op.Rel, err))
			continue
		}
		err = writeTempFrom(dir, tmp, content, fs.FileMode(op.Mode), nil, nil)
		content.Close()
		if err != nil {
			errs = append(errs, fmt.Sprintf("restore %s: %v", op.Rel, err))
			continue
		}
		if err := replaceFile(dir, tmp, op.at.name); err != nil {
			dir.Remove(tmp)
			errs = append(errs, fmt.Sprintf("restore %s: %v", op.Rel, err))
		}
	}
	syncDirs(ops)
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// oldContent reads the old disk text of journal entry e from the trash
// entry that keeps it, in pieces when it was kept so.
func (s *Store) oldContent(e intentEntry) (io.ReadCloser, error) {
	if e.Trash == 0 {
		return nil, errors.New("its old content is not in the trash")
	}
	_, r, err := s.TrashOpen(e.Trash)
	if err != nil {
		return nil, fmt.Errorf("its old content is not in the trash (entry %d): %w", e.Trash, err)
	}
	return r, nil
}

// Recovery is what Recover did with one interrupted commit.
type Recovery struct {
	Intent  int64
	Tool    string
	Outcome string   // "rolled forward" or "rolled back"
	Paths   []string // root-relative
	// Left are the files (root-relative) that held neither the change's
	// base nor its new content, or that a later commit changed: changed by
	// someone else since, they are left as they are (and the change is
	// rolled back).
	Left []string
	Err  error // set when the journal could not be finished (it stays for the next open)
}

// recoverLockWait bounds how long Recover waits for an intent's locks; a
// commit whose locks are held is in flight in a live process.
const recoverLockWait = 100 * time.Millisecond

// Recover finishes the commits whose process is gone (see process.go; a
// live process's intent, this one's included, is a commit in flight and is
// left to it): it rolls an intent forward when every file still holds its
// base or already its new content, and every new content not in place is
// complete in its temp file; otherwise it rolls it back from the trash,
// leaving alone (and reporting) every file changed since by someone else.
// Then it removes the temp files, audits what it did (transport
// "recovery") and deletes the intent. Open runs it; it is safe to run at
// any time.
func (w *Workspace) Recover(ctx context.Context) ([]Recovery, error) {
	st := w.store
	if st == nil {
		return nil, nil
	}
	ins, err := st.pendingIntents()
	if err != nil || len(ins) == 0 {
		return nil, err
	}
	var out []Recovery
	for _, in := range ins {
		r, ok := w.recoverOne(ctx, in)
		if ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// ownerGone reports whether in's owner is gone: another process that no
// longer runs, or this one when the intent is not one it is committing (an
// undo that failed, or an intent left by an earlier process with this pid).
func (s *Store) ownerGone(in intent) bool {
	if in.Owner == selfOwner() || in.Owner == "" && in.PID == os.Getpid() {
		_, busy := inflight.Load(inflightKey{s.path, in.ID})
		return !busy
	}
	return !ownerAlive(in.Owner, in.PID)
}

// entryState is what recovery finds of one entry of an intent.
type entryState struct {
	holdsOld, holdsNew bool
	ready              bool // its new content can be put in place: it is, or its temp file holds it complete
	cur                string
}

// inspect hashes what op's file holds now (and its temp file when needed).
func inspect(op diskOp) (entryState, error) {
	cur, err := fileSHA(op.at.dir, op.at.name)
	if err != nil {
		return entryState{}, fmt.Errorf("read %s: %w", op.Rel, err)
	}
	s := entryState{cur: cur}
	if op.Later {
		return s, nil
	}
	s.holdsOld = cur == op.Old
	switch op.Op {
	case opWrite:
		s.holdsNew = cur == op.New
		s.ready = s.holdsNew
		if !s.ready && s.holdsOld && op.Tmp != "" {
			sum, _ := fileSHA(op.at.dir, op.tmpName())
			s.ready = sum == op.New
		}
	case opDelete:
		s.holdsNew = cur == ""
		s.ready = true
	}
	return s, nil
}

// recoverOne recovers one intent; ok is false when it is still in flight.
func (w *Workspace) recoverOne(ctx context.Context, in intent) (Recovery, bool) {
	st := w.store
	r := Recovery{Intent: in.ID, Tool: in.Tool}
	if !st.ownerGone(in) {
		return r, false
	}
	paths := make([]Path, len(in.Entries))
	for i, e := range in.Entries {
		paths[i] = Path{Abs: e.Path, Rel: e.Rel}
		r.Paths = append(r.Paths, e.Rel)
	}
	lctx, cancel := context.WithTimeout(ctx, recoverLockWait)
	locks, err := w.lockFiles(lctx, paths)
	cancel()
	if err != nil {
		return r, false // a live process holds the files: its commit is in flight
	}
	defer locks.unlock()
	cur, ok, err := st.intentByID(in.ID)
	if err != nil || !ok {
		return r, false // finished while we waited
	}
	in.Entries = cur.Entries // a later commit may have marked entries since the list was read
	if len(in.Entries) == 1 && in.Entries[0].Op == opRow {
		e := in.Entries[0]
		r.Outcome = "closed"
		r.Err = st.closeIntent(in.ID, []AuditEntry{{Tool: in.Tool, Path: e.Rel, Transport: "recovery",
			Note: fmt.Sprintf("interrupted row write (journal #%d): the database's own transaction decided whether it applied; read the row to see which", in.ID)}})
		return r, true
	}
	ops, err := w.opsIn(locks, in.Entries)
	if err != nil {
		r.Outcome, r.Err = "left for the next open", err
		return r, true
	}
	states, forward, err := inspectAll(ops, &r)
	if err != nil {
		r.Outcome, r.Err = "left for the next open", err
		return r, true
	}
	forward = st.roll(ops, states, forward, &r)
	if r.Err != nil {
		return r, true
	}
	if err := st.closeIntent(in.ID, recoveryAudits(in, states, forward, r.Outcome)); err != nil {
		r.Err = err
	}
	return r, true
}

// inspectAll inspects every file of an intent: forward is whether each
// holds its new content, or its old one with the new one ready; the files
// that hold neither (changed since) go to r.Left.
func inspectAll(ops []diskOp, r *Recovery) (states []entryState, forward bool, err error) {
	states = make([]entryState, len(ops))
	forward = true
	for i, op := range ops {
		s, err := inspect(op)
		if err != nil {
			return nil, false, err
		}
		states[i] = s
		if !s.holdsOld && !s.holdsNew {
			r.Left = append(r.Left, op.Rel)
		}
		if !(s.holdsNew || s.holdsOld && s.ready) {
			forward = false
		}
	}
	return states, forward, nil
}

// roll rolls an intent's files forward when it can (forward), else back
// from the trash, saying which in r; it returns whether they went forward.
func (st *Store) roll(ops []diskOp, states []entryState, forward bool, r *Recovery) bool {
	if forward {
		r.Outcome = "rolled forward"
		var todo []diskOp
		for i, op := range ops {
			if states[i].holdsNew {
				if op.Tmp != "" && op.at.dir != nil {
					_ = removeFile(op.at.dir, op.tmpName())
				}
				continue
			}
			todo = append(todo, op)
		}
		r.Err = rollForward(todo)
	}
	if !forward || r.Err != nil {
		forward = false
		r.Outcome = "rolled back"
		r.Err = rollBack(ops, func(i int) (io.ReadCloser, error) { return st.oldContent(ops[i].intentEntry) })
	}
	return forward
}

// recoveryAudits are the audit rows of a recovered intent: each file rolled
// forward (its call and who made it kept, so a retry and the turn's review
// find it) or back, or left as another change made it.
func recoveryAudits(in intent, states []entryState, forward bool, outcome string) []AuditEntry {
	var audits []AuditEntry
	for i, e := range in.Entries {
		a := AuditEntry{Tool: in.Tool, Path: e.Rel, SHA256Before: e.Old, SHA256After: e.Old, Transport: "recovery",
			Note: fmt.Sprintf("interrupted change (journal #%d) %s", in.ID, outcome)}
		switch s := states[i]; {
		case forward:
			a.SHA256After = e.New
			// The call's change is applied: its retry must find it, and
			// its turn's review and revert too (who made it).
			a.Call = in.Call
			a.Agent, a.Session, a.Turn = in.Who.Agent, in.Who.Session, in.Who.Turn
		case !s.holdsOld && !s.holdsNew:
			a.SHA256Before, a.SHA256After = s.cur, s.cur
			a.Note = fmt.Sprintf("interrupted change (journal #%d) rolled back; %s was changed since by another commit or program, and is left as it is", in.ID, e.Rel)
		}
		audits = append(audits, a)
	}
	return audits
}

// opRow is a journal entry for a row of a SQLite database: the database's
// own transaction makes the row write atomic; the journal only says that
// it was under way (recovery audits it and closes the entry).
const opRow = "row"

// RowChange is a change to one row of a SQLite database inside the root.
type RowChange struct {
	DB  Path
	Key string // the row's name, db:table:key: trash key and audit path
	// Apply writes the row in the database's own transaction. It must call
	// keepOld with the row as it is (JSON; nil for an insert) before it
	// changes anything: keepOld puts it in the trash and journals the
	// write, and the write must not go ahead when keepOld fails.
	Apply func(ctx context.Context, keepOld func(old []byte) error) (newRow []byte, changed bool, note string, err error)
}

// CommitRow applies one row change the way Commit applies file changes:
// the database locked against other hashls writers, the old row in the
// trash before the write, an audit row after it.
func (w *Workspace) CommitRow(ctx context.Context, tool string, rc RowChange, opts CommitOptions) (CommittedFile, error) {
	res := CommittedFile{Path: Path{Abs: rc.DB.Abs, Rel: rc.Key}}
	if err := w.storeDownErr(); err != nil {
		return res, err
	}
	if !opts.AllowVCS && InVCSDir(rc.DB.Rel) {
		return res, vcsRefused(rc.DB.Rel)
	}
	unlock, err := w.Lock(ctx, rc.DB)
	if err != nil {
		return res, err
	}
	defer unlock()
	st := w.store
	in := &intent{Tool: tool, Call: opts.Call, Who: opts.Who, Entries: []intentEntry{{Path: rc.DB.Abs, Rel: rc.Key, Op: opRow}}}
	var old []byte
	kept := false
	held := func() {}
	defer func() { held() }()
	keepOld := func(o []byte) error {
		if kept {
			return &Error{Kind: KindInternal, Msg: "keepOld called twice (a hashls bug)"}
		}
		kept, old = true, o
		if st == nil {
			return nil
		}
		var trash []trashReq
		if o != nil {
			trash = append(trash, trashReq{key: rc.DB.Abs + ":" + strings.TrimPrefix(rc.Key, rc.DB.Rel+":"), content: o, reason: "sqlite row, replaced by " + tool})
		}
		if err := st.beginIntent(in, trash, false); err != nil {
			return err
		}
		held = st.holdIntent(in.ID)
		for _, t := range trash {
			res.TrashIDs = append(res.TrashIDs, t.id)
		}
		return nil
	}
	newRow, changed, note, err := rc.Apply(ctx, keepOld)
	if err != nil {
		if st != nil && in.ID != 0 {
			_ = st.closeIntent(in.ID, nil)
		}
		return res, err
	}
	if !kept {
		return res, &Error{Kind: KindInternal, Msg: "the row write did not keep the old row first (a hashls bug)"}
	}
	switch {
	case old == nil:
		res.Op = "create"
	case newRow == nil:
		res.Op = "delete"
	default:
		res.Op = "update"
	}
	if old != nil {
		res.OldSHA256 = SHA256Hex(old)
	}
	if newRow != nil {
		res.NewSHA256 = SHA256Hex(newRow)
	}
	if st != nil {
		var audits []AuditEntry
		if changed {
			audits = append(audits, AuditEntry{Tool: tool, Path: rc.Key, SHA256Before: res.OldSHA256, SHA256After: res.NewSHA256, Note: note, Transport: opts.Transport, Call: opts.Call,
				Agent: opts.Who.Agent, Session: opts.Who.Session, Turn: opts.Who.Turn})
		}
		ids, err := st.finishIntent(in.ID, nil, audits)
		if err != nil {
			return res, fmt.Errorf("the row was written, but recording it in the store failed: %w", err)
		}
		if len(ids) > 0 {
			res.AuditID = ids[0]
		}
	}
	return res, nil
}
