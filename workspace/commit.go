package workspace

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashls/hashls/internal/pieces"
)

// Change is one planned change to a file: new content (creating the file
// when it does not exist) or a delete. Changes are plain values; Commit
// applies a set of them all or nothing. A move is two changes: the
// destination written (MovedFrom set) and the source deleted. When the
// source is open in an editor that can rename documents (BufferRenamer) and
// the destination gets the buffer's text unchanged, the editor performs the
// move, so that its buffer follows the file.
type Change struct {
	Path Path
	// Base is the state the caller planned against; Commit refuses the
	// whole set with KindStale when any file no longer matches its Base.
	Base Base
	// New is the new content (ignored when Delete is set).
	New []byte
	// NewPieces, when not nil, is the new content instead of New, as
	// pieces of the content the change replaces (Base must name its
	// sha256) and new bytes: how a content too large to hold is given (a
	// cell edit of a large notebook: the file's bytes around the new
	// source). The commit writes the pieces to the temp file in one pass,
	// reading the file it checked under the lock, and refuses the change
	// (stale) unless they make NewSize bytes of sha256 NewSHA256, both
	// required with it. Such a content is recorded by sha256 and size only.
	NewPieces []pieces.Piece
	NewSize   int64
	// NewPiecesOf, when not 0, is the trash entry whose content the
	// pieces are ranges of, instead of the file's (a restore of a content
	// too large to hold: one piece, the whole entry); Base is then any.
	NewPiecesOf int64
	// NewTag is New's tag, recorded with its snapshot (the caller owns
	// the tag function).
	NewTag string
	// NewSHA256, when not nil, is New's sha256, which the caller has
	// computed (it must be New's): Commit records it instead of hashing
	// New again.
	NewSHA256 *[32]byte
	// Seen, when not nil, is the lines of New the caller has displayed
	// (see Store.AddSeen), recorded with the snapshot.
	Seen []LineRange
	// Delete removes the file.
	Delete bool
	// Mode is the new file's permission bits; 0 keeps an existing file's
	// mode and gives a new file 0644.
	Mode fs.FileMode
	// MovedFrom names the file (its Rel) this one is moved from, deleted
	// by another change of the same set. It labels the audit row and the
	// result, and lets the editor move an open source document itself.
	MovedFrom string
	// Note is added to the audit row (and the trash reason).
	Note string
}

// Base is what a Change expects to find: nothing, any content, or the
// content with a given sha256. The zero Base is invalid, so that no caller
// skips the check by forgetting it.
type Base struct {
	kind baseKind
	sum  [32]byte
	// content, when known, is what has sum: a file found holding exactly
	// these bytes has that sum without hashing them again.
	content []byte
}

type baseKind uint8

const (
	baseUnset baseKind = iota
	baseAny
	baseAbsent
	baseSHA
)

// BaseAny accepts whatever the file holds (or its absence).
func BaseAny() Base { return Base{kind: baseAny} }

// BaseAbsent requires that the file does not exist (in the editor or on disk).
func BaseAbsent() Base { return Base{kind: baseAbsent} }

// BaseOf requires the file to hold exactly content.
func BaseOf(content []byte) Base {
	return Base{kind: baseSHA, sum: sha256.Sum256(content), content: content}
}

// BaseSHA256 requires the file to hold the content whose sha256 is sum,
// for a caller that does not hold it (a content too large to: see
// Change.NewPieces).
func BaseSHA256(sum [32]byte) Base { return Base{kind: baseSHA, sum: sum} }

// BaseContent is BaseOf for a caller that has content's sha256 already
// (sum must be sha256(content)).
func BaseContent(content []byte, sum [32]byte) Base {
	return Base{kind: baseSHA, sum: sum, content: content}
}

// CommitOptions qualify one Commit.
type CommitOptions struct {
	// Transport labels the audit rows: "cli", "lsp", "mcp", "hub".
	Transport string
	// Label names the change in the editor's undo history.
	Label string
	// AllowVCS permits changes under .git, .hg and .svn, refused
	// otherwise (a write there can make git run code).
	AllowVCS bool
	// Call is the id of the tool run making the change (see agent.Call):
	// kept in the journal and the audit rows, also when recovery rolls the
	// change forward, so a retry of the same call finds it applied
	// (Store.AuditByCall).
	Call string
	// Who made the change and its turn, for the audit rows.
	Who Attribution
}

// Committed is what Commit did, one entry per change in the given order.
type Committed struct {
	Files []CommittedFile
}

// CommittedFile is one applied change.
type CommittedFile struct {
	Path      Path
	Op        string // "create", "update" or "delete"
	MovedFrom string
	OldSHA256 string // hex; "" when the file did not exist
	NewSHA256 string // hex; "" for a delete
	NewTag    string
	TrashIDs  []int64 // where the replaced content went (two for an open buffer whose disk text differed)
	AuditID   int64
	// Overlay: the change went to the editor's open buffer (in its undo
	// history, saved or not by the user).
	Overlay bool
	// Note says what the caller should know (an open buffer left behind
	// by a delete).
	Note string
}

// VCSDirs are the version-control metadata directories no change may
// enter without CommitOptions.AllowVCS.
var vcsDirs = []string{".git", ".hg", ".svn"}

// InVCSDir reports whether the root-relative path rel lies inside a
// version-control metadata directory (.git, .hg, .svn) at any depth.
func InVCSDir(rel string) bool {
	for _, el := range strings.Split(filepath.ToSlash(rel), "/") {
		for _, d := range vcsDirs {
			if strings.EqualFold(el, d) {
				return true
			}
		}
	}
	return false
}

func vcsRefused(rel string) *Error {
	return &Error{Kind: KindPermission, Msg: fmt.Sprintf("%s is inside version-control metadata (.git, .hg, .svn): changes there are refused, because they can make git run code (hooks, core.fsmonitor). Pass allowVcs: true if you really mean it", rel)}
}

// fileState is a file as Commit finds it under the lock. A file on disk
// over the store's content limit that the caller does not hold (its Base
// has no content) is not held here either: content and disk are nil, its
// sums were taken in a streamed pass, and what needs its bytes reads the
// file (the trash, in pieces) or the trash (an undo).
type fileState struct {
	exists  bool
	content []byte // the buffer's text when overlay, else the disk's (nil: not held)
	mode    fs.FileMode
	overlay bool
	version int32
	disk    []byte   // the disk text (of an overlaid file too; nil when missing or not held)
	sum     [32]byte // sha256 of content (when exists)
	diskSum [32]byte // sha256 of disk (when onDisk())
	// streamed: over the content limit, the file is not held (content and
	// disk nil).
	streamed bool
	// diskInfo is the file on disk as it was read (nil: not on disk):
	// the commit checks just before its rename that it is still that one.
	diskInfo fs.FileInfo
}

// entry is one change being committed.
type entry struct {
	ch     *Change
	cur    fileState
	buffer bool   // applied through the editor
	tmp    string // temp file of a disk write: its name in at
	res    CommittedFile
	// A move of an open document that the editor performs (BufferRenamer):
	// renameFrom is set on the destination's entry (it names the source's),
	// renamed on the source's. Both are journaled; the disk work is the
	// editor's.
	renameFrom *entry
	renamed    bool
	newSum     [32]byte // sha256 of ch.New (not a delete)
	// delta is ch.New as a delta against cur.content, encoded beside the
	// disk work (deltaAsync); the store uses it when it keeps ch.New as a
	// delta. nil: the store encodes it if it needs it.
	delta func() []byte
	// at is the file's directory, open beneath the root: everything the
	// commit does to the file it does there (rootfs.go).
	at fileAt
}

// Commit applies changes all or nothing: it locks every path, checks every
// Base, puts what is replaced or deleted in the trash, writes (open
// documents through the editor, other files atomically on disk), and
// records the new snapshots and one audit row per file, journaled so that a
// crash at any instant leaves every file wholly old or wholly new once the
// store is next opened. See the package doc, "Committing a change".
func (w *Workspace) Commit(ctx context.Context, tool string, changes []Change, opts CommitOptions) (*Committed, error) {
	if len(changes) == 0 {
		return &Committed{}, nil
	}
	if err := w.storeDownErr(); err != nil {
		return nil, err
	}
	changes = slices.Clone(changes) // an open buffer's pieces are made New here
	ents, paths, err := commitEntries(changes, opts)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, &Error{Kind: KindIO, Msg: fmt.Sprintf("commit cancelled before anything was written: %v", err), Err: err}
	}
	editor := w.bufferEditor()
	// The directories of the files it writes first: a commit locks the
	// directories of its files (lock.go), which must exist for that. A
	// commit that does not go through removes those it made (while they
	// are empty).
	made, err := w.makeDirs(ents, editor)
	if err != nil {
		return nil, err
	}
	locks, err := w.lockFiles(ctx, paths)
	if err != nil {
		w.removeEmptyDirs(made)
		return nil, err
	}
	defer locks.unlock()
	committed := false
	defer func() {
		if !committed {
			w.removeEmptyDirs(made) // under the locks
		}
	}()
	for _, e := range ents {
		e.at = locks.at(e.ch.Path.Rel)
		if err := w.checkEntry(e, editor); err != nil {
			return nil, err
		}
	}
	if r, ok := editor.(BufferRenamer); ok {
		planRenames(ents, r)
	}
	res, err := w.commitLocked(ctx, tool, ents, opts, editor)
	committed = err == nil
	return res, err
}

// commitEntries checks the changes of a set (each names a file once, with
// a base state, outside .git unless opts.AllowVCS) and makes their entries.
func commitEntries(changes []Change, opts CommitOptions) ([]*entry, []Path, error) {
	ents := make([]*entry, len(changes))
	paths := make([]Path, len(changes))
	seen := map[string]bool{}
	for i := range changes {
		c := &changes[i]
		if c.Base.kind == baseUnset {
			return nil, nil, &Error{Kind: KindInternal, Msg: fmt.Sprintf("commit %s: the change has no base state (a hashls bug)", c.Path.Rel)}
		}
		if c.NewPieces != nil && (c.Delete || c.Base.kind != baseSHA && c.NewPiecesOf == 0 || c.NewSHA256 == nil || c.NewSize != pieces.Size(c.NewPieces)) {
			return nil, nil, &Error{Kind: KindInternal, Msg: fmt.Sprintf("commit %s: new content as pieces needs a base sha256 (or a trash entry), its sha256 and its size (a hashls bug)", c.Path.Rel)}
		}
		if c.Path.Abs == "" || c.Path.Rel == "." {
			return nil, nil, &Error{Kind: KindInvalid, Msg: fmt.Sprintf("commit: %q is not a file path inside the root; give a file path", c.Path.Rel)}
		}
		if seen[c.Path.Abs] {
			return nil, nil, &Error{Kind: KindInvalid, Msg: fmt.Sprintf("commit: %s is changed twice in one set; change each file once", c.Path.Rel)}
		}
		seen[c.Path.Abs] = true
		if !opts.AllowVCS && InVCSDir(c.Path.Rel) {
			return nil, nil, vcsRefused(c.Path.Rel)
		}
		ents[i] = &entry{ch: c}
		paths[i] = c.Path
	}
	return ents, paths, nil
}

// makeDirs makes the missing directories of the files a commit creates
// (not of deletes, files that exist or the editor's buffers) and returns
// those it made; on an error it removes them again.
func (w *Workspace) makeDirs(ents []*entry, editor BufferEditor) ([]string, error) {
	var made []string
	for _, e := range ents {
		if e.ch.Delete || e.ch.Base.kind == baseSHA || editor != nil && w.hasOverlay(e.ch.Path) {
			continue // nothing to make: a delete, a file that exists, or the editor's buffer
		}
		d, _ := splitRel(e.ch.Path.Rel)
		m, err := w.mkdirParents(d)
		made = append(made, m...)
		if err != nil {
			w.removeEmptyDirs(made)
			return nil, fsError("create the directory of", e.ch.Path.Rel, err)
		}
	}
	return made, nil
}

// checkEntry reads e's file as it is under the lock, checks it against
// the change's base, and sets what the commit will do and report.
func (w *Workspace) checkEntry(e *entry, editor BufferEditor) error {
	st, err := w.fileState(e.ch.Path, e.at, editor != nil, e.ch.Base)
	if err != nil {
		return err
	}
	e.cur = st
	if err := checkBase(e.ch, st); err != nil {
		return err
	}
	if e.ch.NewPieces != nil && st.overlay {
		// The editor takes text: the pieces, made whole.
		base, err := piecesBase(w.store, e)
		if err != nil {
			return err
		}
		b := make([]byte, e.ch.NewSize)
		if _, err := io.ReadFull(pieces.Reader(base, e.ch.NewPieces), b); err != nil || sha256.Sum256(b) != *e.ch.NewSHA256 {
			return staleError(e.ch.Path, "in the editor")
		}
		e.ch.New, e.ch.NewPieces = b, nil
	}
	if e.ch.Delete && !st.exists {
		return notFound(e.ch.Path, nil)
	}
	e.buffer = st.overlay && !e.ch.Delete
	e.res = CommittedFile{Path: e.ch.Path, MovedFrom: e.ch.MovedFrom, NewTag: e.ch.NewTag, Overlay: e.buffer}
	switch {
	case e.ch.Delete:
		e.res.Op, e.res.NewTag = "delete", ""
	case st.exists:
		e.res.Op = "update"
	default:
		e.res.Op = "create"
	}
	if st.exists {
		e.res.OldSHA256 = hex.EncodeToString(st.sum[:])
	}
	if !e.ch.Delete {
		if e.ch.NewSHA256 != nil {
			e.newSum = *e.ch.NewSHA256
		} else {
			e.newSum = sha256.Sum256(e.ch.New)
		}
		e.res.NewSHA256 = hex.EncodeToString(e.newSum[:])
	}
	return nil
}

// planRenames marks the moves the editor performs itself: a change with
// MovedFrom to a path that does not exist, whose source is deleted by the
// same set, is open in the editor with a file on disk, and moves with its
// buffer's text unchanged. A move that also changes the text stays a write
// and a delete (the editor's buffer is left behind, with a note).
func planRenames(ents []*entry, r BufferRenamer) {
	deleted := map[string]*entry{}
	for _, e := range ents {
		if e.ch.Delete {
			deleted[e.ch.Path.Rel] = e
		}
	}
	for _, e := range ents {
		if e.ch.Delete || e.ch.MovedFrom == "" || e.cur.exists {
			continue
		}
		src := deleted[e.ch.MovedFrom]
		if src == nil || src.renamed || !src.cur.overlay || src.cur.disk == nil || e.ch.NewPieces != nil ||
			!bytes.Equal(e.ch.New, src.cur.content) || !r.CanRenameBuffer(src.ch.Path) {
			continue
		}
		e.renameFrom, src.renamed = src, true
		e.res.Overlay = true
		e.res.Note = fmt.Sprintf("the editor moved its open buffer of %s with the file (unsaved changes kept)", src.ch.Path.Rel)
	}
}

// Content is the content b requires the file to hold, when its caller gave
// it (BaseOf, BaseContent); nil otherwise. A committed change's file held
// exactly these bytes.
func (b Base) Content() []byte {
	if b.kind != baseSHA {
		return nil
	}
	return b.content
}

// sumOf returns b's sha256: b's known sum when b is exactly base's content.
func (b Base) sumOf(content []byte) [32]byte {
	if b.kind == baseSHA && b.content != nil && bytes.Equal(content, b.content) {
		return b.sum
	}
	return sha256.Sum256(content)
}

// checkBase compares a file's state with what the change expects.
func checkBase(c *Change, st fileState) error {
	where := "on disk"
	if st.overlay {
		where = "in the editor"
	}
	switch c.Base.kind {
	case baseAbsent:
		if st.exists {
			return &Error{Kind: KindStale, Msg: fmt.Sprintf("%s already exists (%s); read it first and edit it, or choose another path", c.Path.Rel, where)}
		}
	case baseSHA:
		if !st.exists {
			return &Error{Kind: KindStale, Msg: fmt.Sprintf("%s was deleted since it was read; re-read it and retry", c.Path.Rel)}
		}
		if st.sum != c.Base.sum {
			return staleError(c.Path, where)
		}
	}
	return nil
}

// keptMode is the part of a file's mode a write keeps: permissions and the
// setuid, setgid and sticky bits.
func keptMode(fi fs.FileInfo) fs.FileMode {
	return fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}

// fileState reads p (in at, its directory as locked) as Commit sees it: the
// open buffer when there is one and an editor to apply changes to it
// (without an editor, changes go to the disk and are checked against it). Each state is hashed once (the
// check, the journal, the trash and the result share the sum), or not at
// all when it is exactly base's known content.
func (w *Workspace) fileState(p Path, at fileAt, buffers bool, base Base) (fileState, error) {
	var st fileState
	if text, version, ok := w.Overlay(p); ok && buffers {
		st = fileState{exists: true, content: text, mode: 0o644, overlay: true, version: version, sum: base.sumOf(text)}
		if b, fi, err := readDisk(at.dir, at.name, p); err == nil {
			st.disk, st.mode, st.diskSum, st.diskInfo = b, keptMode(fi), base.sumOf(b), fi
		}
		return st, nil
	}
	if base.kind == baseSHA && base.content != nil {
		// The usual case: the file still holds what the tool read.
		// Anything else (a difference, an error) is read whole below and
		// reported from what was read. The state then shares base's
		// bytes (the commit only reads content and disk).
		if same, fi, err := diskHolds(at.dir, at.name, p, base.content); err == nil && same {
			return fileState{exists: true, content: base.content, disk: base.content, sum: base.sum, diskSum: base.sum, mode: keptMode(fi), diskInfo: fi}, nil
		}
	}
	b, sum, fi, err := w.readOrHash(at, p)
	switch {
	case err == nil:
		if b != nil {
			sum = base.sumOf(b)
		}
		return fileState{exists: true, content: b, disk: b, sum: sum, diskSum: sum, mode: keptMode(fi), diskInfo: fi, streamed: b == nil}, nil
	case IsKind(err, KindNotFound):
		return fileState{}, nil
	default:
		return fileState{}, err
	}
}

// onDisk reports whether the file is on disk (its diskInfo was read).
func (st *fileState) onDisk() bool { return st.diskInfo != nil }

// readOrHash reads the file name in at whole, or, when it is over the
// store's content limit, only hashes it (b nil): the commit then holds
// none of it (see fileState).
func (w *Workspace) readOrHash(at fileAt, p Path) (b []byte, sum [32]byte, fi fs.FileInfo, err error) {
	f, fi, err := openDisk(at.dir, at.name, p)
	if err != nil {
		return nil, sum, nil, err
	}
	defer f.Close()
	if w.store == nil || fi.Size() <= int64(w.store.ContentLimit()) {
		b, err := readAll(f, fi.Size())
		if err != nil {
			return nil, sum, nil, fsError("read", p.Rel, err)
		}
		return b, sum, fi, nil
	}
	if sum, err = sha256Of(f); err != nil {
		return nil, sum, nil, fsError("read", p.Rel, err)
	}
	return nil, sum, fi, nil
}

// sha256Of is the sha256 of what r reads to its end, read 1 MiB at a time.
func sha256Of(r io.Reader) (sum [32]byte, err error) {
	h := sha256.New()
	if _, err := io.CopyBuffer(h, struct{ io.Reader }{r}, make([]byte, 1<<20)); err != nil {
		return sum, err
	}
	h.Sum(sum[:0])
	return sum, nil
}

// commitLocked runs the protocol once every path is locked and checked:
// the intent (1), the temp files (2), the renames (3), the open documents
// (4) and the record (5), each a step of a commitRun; a failure in 2 to 5
// undoes what was done (abandon).
func (w *Workspace) commitLocked(ctx context.Context, tool string, ents []*entry, opts CommitOptions, editor BufferEditor) (*Committed, error) {
	r := &commitRun{ctx: ctx, st: w.store, tool: tool, ents: ents, opts: opts, editor: editor, label: opts.Label}
	if r.label == "" {
		r.label = "hashls " + tool
	}
	if err := r.beginIntent(); err != nil {
		return nil, err
	}
	if r.st != nil {
		defer r.st.holdIntent(r.in.ID)()
	}
	r.startDeltas()
	if err := r.writeTemps(); err != nil {
		return r.abandon(err)
	}
	if err := r.renames(); err != nil {
		return r.abandon(err)
	}
	if err := r.openDocuments(); err != nil {
		return r.abandon(r.undoEditor(err))
	}
	r.noteUnmovedBuffers()
	return r.record()
}

// commitRun is one commit under its locks.
type commitRun struct {
	ctx    context.Context
	st     *Store
	tool   string
	ents   []*entry
	opts   CommitOptions
	editor BufferEditor
	label  string // the editor's label of the edits

	disk  []*entry // the entries with disk work (journaled)
	in    *intent
	ops   []diskOp // the disk entries, each in its file's directory
	local []diskOp // the disk work Commit does itself (not the editor's renames)
	// applied and moved are the buffer edits and moves the editor made,
	// in order (undoEditor reverts them).
	applied, moved []*entry
}

// beginIntent is step 1: trash what is replaced, journal every disk
// operation.
func (r *commitRun) beginIntent() error {
	for _, e := range r.ents {
		if e.buffer || e.ch.Delete && !e.cur.onDisk() {
			continue // the editor's, or an unsaved buffer with nothing on disk to remove
		}
		r.disk = append(r.disk, e)
	}
	nonce, err := randomHex(6)
	if err != nil {
		return &Error{Kind: KindIO, Msg: fmt.Sprintf("commit: no randomness for temp file names: %v", err), Err: err}
	}
	r.in = &intent{Tool: r.tool, Call: r.opts.Call, Who: r.opts.Who}
	for _, e := range r.ents {
		if e.ch.NewPiecesOf != 0 {
			r.in.reads = append(r.in.reads, e.ch.NewPiecesOf)
		}
	}
	for i, e := range r.disk {
		r.in.Entries = append(r.in.Entries, intentEntryOf(e, nonce, i))
	}
	trash := trashRequests(r.tool, r.ents, r.disk)
	if r.st != nil {
		if err := r.st.beginIntent(r.in, trash, len(r.disk) > 1); err != nil {
			return err
		}
		for _, t := range trash {
			t.entry.res.TrashIDs = append(t.entry.res.TrashIDs, t.id)
		}
	}
	r.ops = make([]diskOp, len(r.disk))
	for i, e := range r.disk {
		d, _ := splitRel(e.ch.Path.Rel)
		r.ops[i] = diskOp{intentEntry: r.in.Entries[i], at: e.at, dir: d}
	}
	for i, e := range r.disk {
		if e.renameFrom == nil && !e.renamed {
			r.local = append(r.local, r.ops[i])
		}
	}
	return nil
}

// intentEntryOf is the journal entry of disk entry e, the i-th, its temp
// file named with nonce.
func intentEntryOf(e *entry, nonce string, i int) intentEntry {
	ie := intentEntry{Path: e.ch.Path.Abs, Rel: e.ch.Path.Rel, Op: opWrite}
	switch {
	case e.ch.Delete:
		ie.Op = opDelete
	case e.renameFrom != nil:
		// The editor renames the source's disk file here: no temp
		// file; recovery finds the new content in place or not.
		ie.New = hex.EncodeToString(e.renameFrom.cur.diskSum[:])
	default:
		ie.New = e.res.NewSHA256
		ie.Tmp = filepath.Join(filepath.Dir(e.ch.Path.Abs), tempName(e.at.name, nonce, i))
		e.tmp = filepath.Base(ie.Tmp)
	}
	if e.cur.onDisk() {
		ie.Old = hex.EncodeToString(e.cur.diskSum[:])
	}
	ie.Mode = uint32(e.newMode())
	if e.renameFrom != nil {
		ie.Mode = uint32(e.renameFrom.cur.mode)
	}
	return ie
}

// trashRequests are what the trash keeps of a commit: what the tool saw
// and replaced and, for a file on disk whose text differs from it (an
// open buffer), the disk text too: the roll back needs it.
func trashRequests(tool string, ents, disk []*entry) []trashReq {
	var trash []trashReq
	diskIndex := map[*entry]int{}
	for i, e := range disk {
		diskIndex[e] = i
	}
	for _, e := range ents {
		if !e.cur.exists {
			continue
		}
		reason := tool
		if e.ch.Note != "" {
			reason += ": " + e.ch.Note
		}
		i, onDisk := diskIndex[e]
		same := e.cur.onDisk() && (!e.cur.overlay || bytes.Equal(e.cur.disk, e.cur.content))
		t := trashReq{entry: e, key: e.ch.Path.Abs, content: e.cur.content, sum: &e.cur.sum, reason: reason, journal: onDisk && same, index: i}
		if e.cur.streamed { // not held: read from the file, in pieces
			t.size, t.open = e.cur.diskInfo.Size(), func() (io.ReadCloser, error) {
				f, err := e.openDisk()
				if err != nil {
					return nil, err
				}
				return f, nil
			}
		}
		trash = append(trash, t)
		if e.cur.onDisk() && !same && (onDisk || e.ch.Delete) {
			trash = append(trash, trashReq{entry: e, key: e.ch.Path.Abs, content: e.cur.disk, sum: &e.cur.diskSum, reason: reason + " (disk text of an open buffer)", journal: onDisk, index: i})
		}
	}
	return trash
}

// abandon undoes everything done on disk so far and closes the intent.
func (r *commitRun) abandon(cause error) (*Committed, error) {
	disk, ops, st := r.disk, r.ops, r.st
	rerr := rollBack(ops, func(i int) (io.ReadCloser, error) {
		if !disk[i].cur.streamed {
			return io.NopCloser(bytes.NewReader(disk[i].cur.disk)), nil
		}
		return st.oldContent(ops[i].intentEntry) // not held: from the trash
	})
	if r.st != nil && r.in.ID != 0 {
		if rerr == nil {
			_ = r.st.closeIntent(r.in.ID, nil)
		}
	}
	if rerr != nil {
		return nil, fmt.Errorf("%w; and putting the files back failed: %v (the next hashls start finishes the roll back from the trash)", cause, rerr)
	}
	var undo *bufferUndoError
	if errors.As(cause, &undo) {
		return nil, fmt.Errorf("%w; the files on disk were put back", cause)
	}
	return nil, fmt.Errorf("%w; nothing was changed", cause)
}

// undoEditor reverts what the editor applied, newest first (undoBuffers).
func (r *commitRun) undoEditor(cause error) error {
	return undoBuffers(context.WithoutCancel(r.ctx), r.editor, r.applied, r.moved, r.label, cause)
}

// startDeltas encodes the new contents' deltas for the store on another
// core while the temp files are written and fsynced (a small file's is
// encoded when it is stored; one the store does not keep needs none).
func (r *commitRun) startDeltas() {
	for _, e := range r.ents {
		if !e.ch.Delete && e.cur.exists && !e.cur.streamed && e.ch.NewPieces == nil && r.st != nil && deltaAsyncWorth(len(e.cur.content), len(e.ch.New), r.st.ContentLimit()) {
			e.delta = deltaAsync(e.cur.content, e.ch.New)
		}
	}
}

// writeTemps is step 2: the temp files, complete and durable before the
// first rename.
func (r *commitRun) writeTemps() error {
	for i, e := range r.disk {
		if e.ch.Delete {
			continue
		}
		if err := r.ctx.Err(); err != nil {
			return &Error{Kind: KindIO, Msg: fmt.Sprintf("commit cancelled: %v", err), Err: err}
		}
		if e.at.dir == nil { // made before the lock, removed since by someone else
			return &Error{Kind: KindIO, Msg: fmt.Sprintf("the directory of %s was removed while it was being written; retry", e.ch.Path.Rel)}
		}
		if e.renameFrom != nil {
			continue // the editor moves the file into the directory made
		}
		if e.ch.NewPieces != nil {
			if err := writePieces(r.st, e, fs.FileMode(r.in.Entries[i].Mode)); err != nil {
				return err
			}
			continue
		}
		if err := writeTemp(e.at.dir, e.tmp, e.ch.New, fs.FileMode(r.in.Entries[i].Mode), e.cur.diskInfo); err != nil {
			return fsError("write", e.ch.Path.Rel, err)
		}
	}
	// The temp files' names durable too when several files change: a
	// power loss during the renames must find every one of them.
	if len(r.disk) > 1 {
		syncDirs(r.ops)
	}
	return nil
}

// renames is step 3: renames and removes, then the directories made
// durable.
func (r *commitRun) renames() error {
	if testHookRename != nil {
		testHookRename()
	}
	// A program that is not hashls (an editor saving, git checkout) takes
	// no lock: each file is checked once more, just before the renames, to
	// be the one whose content was checked (or still absent).
	for _, e := range r.disk {
		if e.renameFrom != nil || e.renamed {
			continue
		}
		if err := unchangedSince(e); err != nil {
			return err
		}
	}
	if err := rollForward(r.local); err != nil {
		return &Error{Kind: ioKindOf(err), Msg: fmt.Sprintf("commit: %v", err), Err: err}
	}
	return nil
}

// openDocuments is step 4: the open documents, through the editor (into
// its undo history): the edits, then the moves the editor performs.
func (r *commitRun) openDocuments() error {
	for _, e := range r.ents {
		if !e.buffer {
			continue
		}
		if err := r.editor.ApplyEdit(r.ctx, e.ch.Path, e.cur.version, e.cur.content, e.ch.New, r.label); err != nil {
			return err
		}
		r.applied = append(r.applied, e)
	}
	for _, e := range r.ents {
		if e.renameFrom == nil {
			continue
		}
		if err := r.editor.(BufferRenamer).RenameBuffer(r.ctx, e.renameFrom.ch.Path, e.ch.Path, r.label); err != nil {
			return err
		}
		r.moved = append(r.moved, e)
	}
	return nil
}

// noteUnmovedBuffers notes, for each deleted file open in an editor that
// did not move it, what its user should do with the old buffer.
func (r *commitRun) noteUnmovedBuffers() {
	movedTo := map[string]string{}
	for _, e := range r.ents {
		if e.ch.MovedFrom != "" && e.renameFrom == nil {
			movedTo[e.ch.MovedFrom] = e.ch.Path.Rel
		}
	}
	for _, e := range r.ents {
		if !e.ch.Delete || !e.cur.overlay || e.renamed {
			continue
		}
		if to, ok := movedTo[e.ch.Path.Rel]; ok {
			e.res.Note = fmt.Sprintf("%s is open in the editor, which did not move its buffer (it cannot rename documents through workspace/applyEdit, or the move changed the text): the buffer's text was written to %s; close the old buffer without saving and open %s", e.ch.Path.Rel, to, to)
		} else {
			e.res.Note = fmt.Sprintf("%s is open in the editor: its buffer still holds the old text; close it without saving", e.ch.Path.Rel)
		}
	}
}

// record is step 5: the snapshots, the audit rows and the end of the
// intent.
func (r *commitRun) record() (*Committed, error) {
	out := &Committed{Files: make([]CommittedFile, len(r.ents))}
	if r.st != nil {
		var recs []Recording
		var audits []AuditEntry
		for _, e := range r.ents {
			if !e.ch.Delete {
				rec := Recording{Key: e.ch.Path.Abs, Tag: e.ch.NewTag, Content: e.ch.New, SHA256: &e.newSum, Seen: e.ch.Seen}
				if e.ch.NewPieces != nil { // streamed to disk, not held: by sha256 and size
					rec.Size = e.ch.NewSize
				}
				if e.cur.exists && !e.cur.streamed { // kept as a delta against the content it replaces
					rec.From, rec.FromSHA256, rec.fromDelta = e.cur.content, &e.cur.sum, e.delta
				}
				recs = append(recs, rec)
			}
			note := e.ch.Note
			if e.ch.MovedFrom != "" && note == "" {
				note = "moved from " + e.ch.MovedFrom
			}
			audits = append(audits, AuditEntry{Tool: r.tool, Path: e.ch.Path.Rel, SHA256Before: e.res.OldSHA256, SHA256After: e.res.NewSHA256, Note: note, Transport: r.opts.Transport, Call: r.opts.Call,
				Agent: r.opts.Who.Agent, Session: r.opts.Who.Session, Turn: r.opts.Who.Turn})
		}
		ids, err := r.st.finishIntent(r.in.ID, recs, audits)
		if err != nil {
			return r.abandon(r.undoEditor(fmt.Errorf("recording the change in the store failed: %w", err)))
		}
		for i, e := range r.ents {
			e.res.AuditID = ids[i]
		}
	}
	for i, e := range r.ents {
		out.Files[i] = e.res
	}
	return out, nil
}

// undoBuffers reverts what the editor applied of a failed commit (the
// buffer edits applied and the moves it performed), newest first, and
// returns cause with every undo the editor refused: the caller learns that
// a buffer keeps the new text while its file on disk went back, and the
// editor's user is told too (BufferNotifier), since the caller may be
// another process.
func undoBuffers(ctx context.Context, editor BufferEditor, applied, moved []*entry, label string, cause error) error {
	var errs []string
	refused := func(p Path, msg string) {
		errs = append(errs, msg)
		if n, ok := editor.(BufferNotifier); ok {
			n.NotifyBuffer(ctx, p, "hashls: "+msg)
		}
	}
	for i := len(moved) - 1; i >= 0; i-- {
		m := moved[i]
		if err := editor.(BufferRenamer).RenameBuffer(ctx, m.ch.Path, m.renameFrom.ch.Path, label+" (undone)"); err != nil {
			refused(m.ch.Path, fmt.Sprintf("the editor did not move %s back to %s (%v): close its buffer without saving", m.ch.Path.Rel, m.renameFrom.ch.Path.Rel, err))
		}
	}
	for i := len(applied) - 1; i >= 0; i-- {
		a := applied[i]
		if err := editor.ApplyEdit(ctx, a.ch.Path, a.cur.version+1, a.ch.New, a.cur.content, label+" (undone)"); err != nil {
			refused(a.ch.Path, fmt.Sprintf("the editor did not undo the edit of %s (%v): its buffer holds the new text while the file on disk was put back; undo the edit in the editor, or close the buffer without saving", a.ch.Path.Rel, err))
		}
	}
	if len(errs) > 0 {
		return &bufferUndoError{cause: cause, refused: errs}
	}
	return cause
}

// bufferUndoError is the error of a failed commit some of whose buffer
// edits the editor did not undo (refused says which); its kind is its
// cause's.
type bufferUndoError struct {
	cause   error
	refused []string
}

func (e *bufferUndoError) Error() string {
	return e.cause.Error() + "; and " + strings.Join(e.refused, "; ")
}

func (e *bufferUndoError) Unwrap() error { return e.cause }

// unchangedSince checks that e's file on disk is still the one the commit
// read (same file, size and modification time: replaced or written since
// is a stale error), or still absent when it was.
func unchangedSince(e *entry) error {
	fi, err := e.at.dir.Lstat(e.at.name)
	switch {
	case e.cur.diskInfo == nil && isNotExist(err):
		return nil
	case e.cur.diskInfo == nil && err == nil:
		return &Error{Kind: KindStale, Msg: fmt.Sprintf("%s was created on disk by another program while hashls was writing it; re-read it and retry", e.ch.Path.Rel)}
	case err != nil:
		return fsError("check", e.ch.Path.Rel, err)
	case !sameVersion(e.cur.diskInfo, fi):
		return changedOnDisk(e.ch.Path.Rel)
	}
	return nil
}

// testHookRename, set by tests only, runs just before a commit's renames
// (a test kills its own process there).
var testHookRename func()

// newMode is the mode the file gets.
func (e *entry) newMode() fs.FileMode {
	switch {
	case e.ch.Mode != 0:
		return e.ch.Mode
	case e.cur.onDisk():
		return e.cur.mode
	default:
		return 0o644
	}
}

// trashReq is one trash entry an intent adds; id is filled in.
type trashReq struct {
	entry   *entry
	key     string
	content []byte
	// size and open, when content is nil, are the size of a content the
	// commit does not hold and how to read it (its file), checked against
	// sum as it is read.
	size    int64
	open    func() (io.ReadCloser, error)
	sum     *[32]byte // content's sha256 when known (nil: computed)
	reason  string
	journal bool // the disk text of intent entry index: its Trash field
	index   int
	id      int64
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

func ioKindOf(err error) string {
	if errors.Is(err, fs.ErrPermission) {
		return KindPermission
	}
	return KindIO
}

// bufferEditor returns the editor set by SetBufferEditor, or nil.
func (w *Workspace) bufferEditor() BufferEditor {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.editor
}

// openDisk opens e's file on disk for reading, if it is still the one the
// commit checked (same file, size and modification time), else the error
// is stale: what the commit reads of a file it does not hold (its old
// content for the trash, the pieces of its new one) is the content it
// checked.
func (e *entry) openDisk() (*os.File, error) {
	f, fi, err := openDisk(e.at.dir, e.at.name, e.ch.Path)
	if err != nil {
		return nil, err
	}
	if e.cur.diskInfo == nil || !sameVersion(fi, e.cur.diskInfo) {
		f.Close()
		return nil, changedOnDisk(e.ch.Path.Rel)
	}
	return f, nil
}

// piecesBase reads what e's pieces are ranges of: the trash entry
// NewPiecesOf, or the file's content (the buffer's of an open one, else
// the disk's as the commit checked it).
func piecesBase(st *Store, e *entry) (io.ReaderAt, error) {
	switch {
	case e.ch.NewPiecesOf != 0:
		return st.trashBase(e.ch.NewPiecesOf)
	case e.cur.overlay:
		return bytes.NewReader(e.cur.content), nil
	}
	f, err := e.openDisk()
	if err != nil {
		return nil, err
	}
	return f, nil
}

// writePieces writes e's new content, given as pieces
// (Change.NewPieces), to its temp file in one pass, and checks that it is
// the content the caller hashed.
func writePieces(st *Store, e *entry, mode fs.FileMode) error {
	base, err := piecesBase(st, e)
	if err != nil {
		return err
	}
	if c, ok := base.(io.Closer); ok {
		defer c.Close()
	}
	h := sha256.New()
	err = writeTempFrom(e.at.dir, e.tmp, io.TeeReader(pieces.Reader(base, e.ch.NewPieces), h), mode, e.cur.diskInfo, func(n int64) error {
		if n != e.ch.NewSize || [32]byte(h.Sum(nil)) != e.newSum {
			return &Error{Kind: KindStale, Msg: fmt.Sprintf("%s changed on disk (another program wrote it) while hashls was writing it: its new content is not what was planned; re-read it and retry", e.ch.Path.Rel)}
		}
		return nil
	})
	var we *Error
	if errors.As(err, &we) {
		return we
	}
	if err != nil {
		return fsError("write", e.ch.Path.Rel, err)
	}
	return nil
}

// changedOnDisk is the error of a file another program changed while the
// commit was writing it.
func changedOnDisk(rel string) *Error {
	return &Error{Kind: KindStale, Msg: fmt.Sprintf("%s changed on disk (another program wrote it) while hashls was writing it; re-read it and retry", rel)}
}
