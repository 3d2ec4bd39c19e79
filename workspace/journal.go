package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
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
	Tool    string        `json:"tool"`
	Call    string        `json:"call,omitempty"` // CommitOptions.Call
	Who     Attribution   `json:"who,omitzero"`   // CommitOptions.Who
	Entries []intentEntry `json:"entries"`
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
			id, err := trashTx(tx, t.key, t.content, t.sum, t.reason)
			if err != nil {
				return err
			}
			t.id = id
			if first == 0 {
				first = id
			}
			if t.journal {
				in.Entries[t.index].Trash = id
			}
		}
		if first != 0 {
			if err := pruneTrash(tx, first, s.limits.MaxTrashBytes); err != nil {
				return err
			}
		}
		body, err := json.Marshal(in)
		if err != nil {
			return err
		}
		res, err := tx.Exec(`INSERT INTO intents(tool, pid, time, body) VALUES (?, ?, ?, ?)`, in.Tool, os.Getpid(), time.Now().UnixNano(), string(body))
		if err != nil {
			return err
		}
		in.ID, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return storeErr(s.path, err)
	}
	return nil
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
	rows, err := s.w.Query(`SELECT id, body FROM intents ORDER BY id`)
	if err != nil {
		return nil, storeErr(s.path, err)
	}
	defer rows.Close()
	var out []intent
	for rows.Next() {
		var in intent
		var body string
		if err := rows.Scan(&in.ID, &body); err != nil {
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

// intentExists reports whether intent id is still in the journal.
func (s *Store) intentExists(id int64) (bool, error) {
	var n int
	if err := s.w.QueryRow(`SELECT count(*) FROM intents WHERE id = ?`, id).Scan(&n); err != nil {
		return false, storeErr(s.path, err)
	}
	return n > 0, nil
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

// writeTemp creates name (which must not exist), writes data, fsyncs it and
// gives it mode (and old's owner when the process may). It removes the file
// on failure.
func writeTemp(name string, data []byte, mode fs.FileMode, old fs.FileInfo) (err error) {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(name)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	keepOwner(f, old)
	if err = f.Chmod(mode); err != nil { // after the owner, which may clear setuid bits
		return err
	}
	return f.Close()
}

// fileSHA returns the sha256 hex of the regular file at path, "" when it
// does not exist.
func fileSHA(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// syncDirs fsyncs the parent directory of every entry once, making the
// renames and removes durable.
func syncDirs(ents []intentEntry) {
	done := map[string]bool{}
	for _, e := range ents {
		d := filepath.Dir(e.Path)
		if done[d] {
			continue
		}
		done[d] = true
		if f, err := os.Open(d); err == nil {
			_ = f.Sync() // the operation is done; a failed directory fsync is not a failed write
			f.Close()
		}
	}
}

// rollForward completes ents: every temp file renamed into place, every
// file to delete removed. A write whose temp file is gone must already hold
// its new content; a delete removes the file only when it still holds the
// old content (verify: checked by hashing; Commit has checked it under the
// lock already).
func rollForward(ents []intentEntry, verify bool) error {
	for _, e := range ents {
		switch e.Op {
		case opWrite:
			if _, err := os.Lstat(e.Tmp); err == nil {
				// After a crash the temp file may be incomplete even
				// though the file already holds the new content (a
				// write of unchanged content): only a complete one
				// is renamed into place.
				if verify {
					if sum, err := fileSHA(e.Tmp); err != nil || sum != e.New {
						if sum, err := fileSHA(e.Path); err != nil || sum != e.New {
							return fmt.Errorf("%s: its temp file %s is incomplete and it does not hold the new content", e.Rel, filepath.Base(e.Tmp))
						}
						_ = os.Remove(e.Tmp)
						continue
					}
				}
				if err := replaceFile(e.Tmp, e.Path); err != nil {
					return fmt.Errorf("rename into %s: %w", e.Rel, err)
				}
				continue
			}
			if sum, err := fileSHA(e.Path); err != nil || sum != e.New {
				return fmt.Errorf("%s: its temp file %s is gone and it does not hold the new content", e.Rel, filepath.Base(e.Tmp))
			}
		case opDelete:
			if verify {
				sum, err := fileSHA(e.Path)
				if err != nil {
					return fmt.Errorf("read %s: %w", e.Rel, err)
				}
				if sum != e.Old {
					continue // gone already, or changed by someone else: left alone
				}
			}
			if err := removeFile(e.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove %s: %w", e.Rel, err)
			}
		}
	}
	syncDirs(ents)
	return nil
}

// rollBack puts every file of ents back to its old disk content (old(i)
// returns it; nil when it cannot be had) and removes every temp file. A
// file that holds neither the old nor the new content was changed by
// someone else since and is left alone. Restores are atomic: the old
// content is written to the entry's temp name (a name the journal knows)
// and renamed into place.
func rollBack(ents []intentEntry, old func(i int) []byte) error {
	var errs []string
	for i := len(ents) - 1; i >= 0; i-- {
		e := ents[i]
		tmp := e.Tmp
		if tmp == "" {
			tmp = filepath.Join(filepath.Dir(e.Path), "."+filepath.Base(e.Path)+".hashls-undo.tmp")
		}
		_ = os.Remove(tmp)
		sum, err := fileSHA(e.Path)
		if err != nil {
			errs = append(errs, fmt.Sprintf("read %s: %v", e.Rel, err))
			continue
		}
		switch {
		case sum == e.Old:
			continue // not applied
		case e.Op == opWrite && sum != e.New:
			continue // changed by someone else since: left alone
		case e.Op == opDelete && sum != "":
			continue // re-created by someone else: left alone
		}
		if e.Old == "" { // created: remove it again
			if err := removeFile(e.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Sprintf("remove %s: %v", e.Rel, err))
			}
			continue
		}
		content := old(i)
		if content == nil {
			errs = append(errs, fmt.Sprintf("%s: its old content is not in the trash (entry %d)", e.Rel, e.Trash))
			continue
		}
		if err := writeTemp(tmp, content, fs.FileMode(e.Mode), nil); err != nil {
			errs = append(errs, fmt.Sprintf("restore %s: %v", e.Rel, err))
			continue
		}
		if err := replaceFile(tmp, e.Path); err != nil {
			os.Remove(tmp)
			errs = append(errs, fmt.Sprintf("restore %s: %v", e.Rel, err))
		}
	}
	syncDirs(ents)
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// Recovery is what Recover did with one interrupted commit.
type Recovery struct {
	Intent  int64
	Tool    string
	Outcome string   // "rolled forward" or "rolled back"
	Paths   []string // root-relative
	Err     error    // set when the journal could not be finished (it stays for the next open)
}

// recoverLockWait bounds how long Recover waits for an intent's locks; a
// commit whose locks are held is in flight in a live process.
const recoverLockWait = 100 * time.Millisecond

// Recover finishes the commits that a crash interrupted: for each intent
// in the journal whose files no live process holds, it rolls forward when
// every write's new content is in place or complete in its temp file, and
// rolls back from the trash otherwise; then it removes the temp files,
// audits what it did (transport "recovery") and deletes the intent. Open
// runs it; it is safe to run at any time.
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

// recoverOne recovers one intent; ok is false when it is still in flight.
func (w *Workspace) recoverOne(ctx context.Context, in intent) (Recovery, bool) {
	st := w.store
	r := Recovery{Intent: in.ID, Tool: in.Tool}
	paths := make([]Path, len(in.Entries))
	for i, e := range in.Entries {
		paths[i] = Path{Abs: e.Path, Rel: e.Rel}
		r.Paths = append(r.Paths, e.Rel)
	}
	lctx, cancel := context.WithTimeout(ctx, recoverLockWait)
	unlock, err := w.Lock(lctx, paths...)
	cancel()
	if err != nil {
		return r, false // a live process holds the files: its commit is in flight
	}
	defer unlock()
	if ok, err := st.intentExists(in.ID); err != nil || !ok {
		return r, false // finished while we waited
	}
	if len(in.Entries) == 1 && in.Entries[0].Op == opRow {
		e := in.Entries[0]
		r.Outcome = "closed"
		r.Err = st.closeIntent(in.ID, []AuditEntry{{Tool: in.Tool, Path: e.Rel, Transport: "recovery",
			Note: fmt.Sprintf("interrupted row write (journal #%d): the database's own transaction decided whether it applied; read the row to see which", in.ID)}})
		return r, true
	}
	forward := true
	for _, e := range in.Entries {
		if e.Op != opWrite {
			continue
		}
		if sum, _ := fileSHA(e.Path); sum == e.New {
			continue
		}
		if sum, _ := fileSHA(e.Tmp); sum != e.New {
			forward = false
		}
	}
	if forward {
		r.Outcome = "rolled forward"
		r.Err = rollForward(in.Entries, true)
	}
	if !forward || r.Err != nil {
		r.Outcome = "rolled back"
		r.Err = rollBack(in.Entries, func(i int) []byte {
			if in.Entries[i].Trash == 0 {
				return nil
			}
			_, c, err := st.TrashGet(in.Entries[i].Trash)
			if err != nil {
				return nil
			}
			return c
		})
	}
	if r.Err != nil {
		return r, true
	}
	var audits []AuditEntry
	for _, e := range in.Entries {
		a := AuditEntry{Tool: in.Tool, Path: e.Rel, SHA256Before: e.Old, SHA256After: e.Old, Transport: "recovery",
			Note: fmt.Sprintf("interrupted change (journal #%d) %s", in.ID, r.Outcome)}
		if forward {
			a.SHA256After = e.New
			a.Call = in.Call // the call's change is applied: its retry must find it
			a.Agent, a.Session, a.Turn = in.Who.Agent, in.Who.Session, in.Who.Turn
		}
		audits = append(audits, a)
	}
	if err := st.closeIntent(in.ID, audits); err != nil {
		r.Err = err
	}
	return r, true
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
