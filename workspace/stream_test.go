package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashls/hashls/internal/pieces"
)

// Contents over the store's content limit flow through the commit path
// without being held: the new one as pieces of the old, the old one hashed
// and kept in the trash in pieces. The tests shrink the limit to 64 KiB so
// that a file of a megabyte or two takes that path.

// streamLimits make every content over 64 KiB one the commit streams.
var streamLimits = Limits{MaxContentBytes: 64 << 10, MaxVersions: 8, MaxTotalContentBytes: 1 << 30, MaxTrashBytes: 1 << 30}

// bigContent is n lines of text, a little over 10 bytes each.
func bigContent(n int, tag string) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "%s line %d\n", tag, i)
	}
	return b.Bytes()
}

// streamWS is a workspace with streamLimits holding big.txt (old).
func streamWS(t *testing.T, old []byte) (*Workspace, string, Path) {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "big.txt"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Open(root, Options{StateDir: t.TempDir(), Limits: streamLimits})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, root, mustResolve(t, w, "big.txt")
}

// piecesChange is the change of p from old to the pieces ps (of old).
func piecesChange(t *testing.T, p Path, old []byte, ps []pieces.Piece) (Change, []byte) {
	t.Helper()
	want, err := io.ReadAll(pieces.Reader(bytes.NewReader(old), ps))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(want)
	return Change{Path: p, Base: BaseSHA256(sha256.Sum256(old)), NewPieces: ps, NewSize: int64(len(want)), NewSHA256: &sum, NewTag: "TEST"}, want
}

// checkTrashBytes checks meta trash_bytes against the trash's rows and
// chunks, and that no chunk outlives its entry.
func checkTrashBytes(t *testing.T, s *Store) {
	t.Helper()
	var kept, want, orphans int64
	if err := s.w.QueryRow(`SELECT (SELECT value FROM meta WHERE name = 'trash_bytes'), `+trashBytesSQL+` + `+trashChunksBytesSQL+`,
		(SELECT count(*) FROM trash_chunks WHERE trash_id NOT IN (SELECT id FROM trash))`).Scan(&kept, &want, &orphans); err != nil {
		t.Fatal(err)
	}
	if kept != want || orphans != 0 {
		t.Errorf("trash_bytes %d, the rows hold %d; %d chunks of no entry", kept, want, orphans)
	}
}

// readTrash reads trash entry id both ways (TrashOpen, TrashGet).
func readTrash(t *testing.T, s *Store, id int64) []byte {
	t.Helper()
	_, r, err := s.TrashOpen(id)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	streamed, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	_, whole, err := s.TrashGet(id)
	if err != nil || !bytes.Equal(whole, streamed) {
		t.Fatalf("TrashGet(%d) = %d bytes, %v; TrashOpen read %d", id, len(whole), err, len(streamed))
	}
	return streamed
}

func TestCommitStreamsLargeContent(t *testing.T) {
	ctx := context.Background()
	old := bigContent(150000, "old") // about 2 MiB: three chunks
	w, root, p := streamWS(t, old)
	st := w.Store()
	// A piece of the middle changed, as a notebook cell edit is.
	ch, want := piecesChange(t, p, old, []pieces.Piece{pieces.Base(0, 1000), pieces.Bytes([]byte("NEW\n")), pieces.Base(1010, int64(len(old))-1010)})
	res, err := w.Commit(ctx, "test", []Change{ch}, CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "big.txt")); !bytes.Equal(got, want) {
		t.Fatalf("big.txt holds %d bytes, want the %d the pieces make", len(got), len(want))
	}
	f := res.Files[0]
	if f.Op != "update" || f.NewSHA256 != SHA256Hex(want) || f.OldSHA256 != SHA256Hex(old) || len(f.TrashIDs) != 1 {
		t.Fatalf("result: %+v", f)
	}
	if got := readTrash(t, st, f.TrashIDs[0]); !bytes.Equal(got, old) {
		t.Fatalf("the trash holds %d bytes, want the old %d", len(got), len(old))
	}
	var chunks int
	st.w.QueryRow(`SELECT count(*) FROM trash_chunks WHERE trash_id = ?`, f.TrashIDs[0]).Scan(&chunks)
	if chunks != 3 {
		t.Errorf("the old content is %d chunks, want 3", chunks)
	}
	checkTrashBytes(t, st)
	// The new version is recorded by sha256 and size, its tag accepted.
	if snap, ok, err := st.LookupMeta(p.Abs, "TEST"); err != nil || !ok || snap.Kept || snap.Size != int64(len(want)) || snap.SHA256 != sha256.Sum256(want) {
		t.Fatalf("snapshot: %+v, %v, %v", snap, ok, err)
	}

	// New content given whole over a large file the caller does not hold:
	// the old one is hashed, not held, and kept in pieces from the file.
	small := []byte("small now\n")
	res, err = w.Commit(ctx, "test", []Change{{Path: p, Base: BaseSHA256(sha256.Sum256(want)), New: small, NewTag: "SMAL"}}, CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := readTrash(t, st, res.Files[0].TrashIDs[0]); !bytes.Equal(got, want) {
		t.Fatalf("the trash holds %d bytes, want %d", len(got), len(want))
	}
	// A file that is not what the base names is stale, as ever.
	if _, err := w.Commit(ctx, "test", []Change{{Path: p, Base: BaseSHA256(sha256.Sum256(want)), New: []byte("x")}}, CommitOptions{}); !IsKind(err, KindStale) {
		t.Fatalf("stale base: %v", err)
	}

	// Retention drops chunked entries with their chunks.
	st.limits.MaxTrashBytes = 100
	if _, err := st.Trash("k", []byte("tiny"), "test"); err != nil {
		t.Fatal(err)
	}
	var left int
	st.w.QueryRow(`SELECT count(*) FROM trash_chunks`).Scan(&left)
	if list, _ := st.TrashList("", 0); len(list) != 1 || left != 0 {
		t.Fatalf("after pruning: %d entries, %d chunks", len(list), left)
	}
	checkTrashBytes(t, st)
	if _, _, err := st.TrashOpen(f.TrashIDs[0]); !IsKind(err, KindNotFound) {
		t.Fatalf("a pruned entry: %v", err)
	}
}

// Pieces that do not make the content the caller hashed (the file changed
// under them) refuse the change: stale, the file as it was, no temp file.
// Pieces without what they need are a hashls bug, refused before anything.
func TestCommitPiecesChecked(t *testing.T) {
	ctx := context.Background()
	old := bigContent(20000, "old")
	w, root, p := streamWS(t, old)
	ch, _ := piecesChange(t, p, old, []pieces.Piece{pieces.Bytes([]byte("head\n")), pieces.Base(0, int64(len(old)))})
	wrong := sha256.Sum256([]byte("something else"))
	bad := ch
	bad.NewSHA256 = &wrong
	if _, err := w.Commit(ctx, "test", []Change{bad}, CommitOptions{}); !IsKind(err, KindStale) || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("pieces of another content: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "big.txt")); !bytes.Equal(got, old) {
		t.Fatal("the file changed")
	}
	if left := tempFiles(t, root); len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
	if ins, _ := w.Store().pendingIntents(); len(ins) != 0 {
		t.Fatalf("intents left: %+v", ins)
	}
	for _, c := range []func(*Change){
		func(c *Change) { c.NewSize++ },
		func(c *Change) { c.NewSHA256 = nil },
		func(c *Change) { c.Base = BaseAny() },
	} {
		bad := ch
		c(&bad)
		if _, err := w.Commit(ctx, "test", []Change{bad}, CommitOptions{}); !IsKind(err, KindInternal) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	// An open buffer takes the pieces as text, made from its own.
	ed := &fakeEditor{}
	w.SetBufferEditor(ed)
	w.SetOverlay(p, old, 2)
	ch, want := piecesChange(t, p, old, []pieces.Piece{pieces.Base(0, 4), pieces.Bytes([]byte("!"))})
	if _, err := w.Commit(ctx, "test", []Change{ch}, CommitOptions{}); err != nil || len(ed.calls) != 1 || !strings.HasSuffix(ed.calls[0], "->"+string(want)+"/hashls test") {
		t.Fatalf("buffer: %v, %d calls", err, len(ed.calls))
	}
}

// A change set undone after its renames (the editor refused its part)
// puts back a large file it did not hold from the trash's pieces.
func TestUndoRestoresStreamedContent(t *testing.T) {
	ctx := context.Background()
	old := bigContent(100000, "old")
	w, root, p := streamWS(t, old)
	os.WriteFile(filepath.Join(root, "open.txt"), []byte("disk\n"), 0o644)
	op := mustResolve(t, w, "open.txt")
	w.SetOverlay(op, []byte("buffer\n"), 1)
	w.SetBufferEditor(&fakeEditor{err: &Error{Kind: KindIO, Msg: "the editor refused"}})
	ch, _ := piecesChange(t, p, old, []pieces.Piece{pieces.Base(0, int64(len(old))), pieces.Bytes([]byte("tail\n"))})
	_, err := w.Commit(ctx, "test", []Change{ch, {Path: op, Base: BaseOf([]byte("buffer\n")), New: []byte("new\n")}}, CommitOptions{})
	if err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("commit: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "big.txt")); !bytes.Equal(got, old) {
		t.Fatalf("big.txt holds %d bytes after the undo, want the old %d", len(got), len(old))
	}
	if left := tempFiles(t, root); len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
}

// childKillAtRenameBig commits two files, CHILD_ROOT's big.txt (as pieces,
// over the 64 KiB limit) and small.txt, and kills itself before the
// renames.
func childKillAtRenameBig() error {
	w, err := Open(os.Getenv("CHILD_ROOT"), Options{StateDir: os.Getenv("CHILD_STATE"), Limits: streamLimits})
	if err != nil {
		return err
	}
	p, err := w.Resolve("big.txt")
	if err != nil {
		return err
	}
	sp, err := w.Resolve("small.txt")
	if err != nil {
		return err
	}
	old, err := os.ReadFile(filepath.Join(os.Getenv("CHILD_ROOT"), "big.txt"))
	if err != nil {
		return err
	}
	ps := []pieces.Piece{pieces.Base(0, int64(len(old))), pieces.Bytes([]byte("dead tail\n"))}
	sum := sha256.Sum256(append(bytes.Clone(old), "dead tail\n"...))
	testHookRename = killSelf
	_, err = w.Commit(context.Background(), "test", []Change{
		{Path: p, Base: BaseSHA256(sha256.Sum256(old)), NewPieces: ps, NewSize: pieces.Size(ps), NewSHA256: &sum, NewTag: "DEAD"},
		{Path: sp, Base: BaseOf([]byte("small\n")), New: []byte("dead small\n"), NewTag: "DEAD"},
	}, CommitOptions{})
	return fmt.Errorf("the commit returned (%v) instead of dying at its rename", err)
}

// Recovery that must roll a large file back (a writer died in its renames:
// big.txt renamed, small.txt since changed by another program) puts it
// back from the trash's pieces.
func TestRecoverRollsBackStreamedContent(t *testing.T) {
	base := t.TempDir()
	root, state := filepath.Join(base, "root"), filepath.Join(base, "state")
	os.MkdirAll(root, 0o755)
	old := bigContent(100000, "old")
	os.WriteFile(filepath.Join(root, "big.txt"), old, 0o644)
	os.WriteFile(filepath.Join(root, "small.txt"), []byte("small\n"), 0o644)
	runKilledChild(t, "killrenamebig", "CHILD_ROOT="+root, "CHILD_STATE="+state)
	// The first rename happened; then an editor saved small.txt.
	var tmp string
	for _, f := range tempFiles(t, root) {
		if strings.HasPrefix(filepath.Base(f), ".big.txt.") {
			tmp = f
		}
	}
	if tmp == "" {
		t.Fatalf("no temp file of big.txt: %v", tempFiles(t, root))
	}
	if err := os.Rename(tmp, filepath.Join(root, "big.txt")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "small.txt"), []byte("an editor's save\n"), 0o644)
	w, err := Open(root, Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if recs := w.Recovered(); len(recs) != 1 || recs[0].Outcome != "rolled back" || recs[0].Err != nil || strings.Join(recs[0].Left, ",") != "small.txt" {
		t.Fatalf("recovery: %+v", recs)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "big.txt")); !bytes.Equal(got, old) {
		t.Fatalf("big.txt holds %d bytes after recovery, want the old %d", len(got), len(old))
	}
	if got, _ := os.ReadFile(filepath.Join(root, "small.txt")); string(got) != "an editor's save\n" {
		t.Fatalf("small.txt = %q", got)
	}
	if left := tempFiles(t, root); len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
}

// A content too large to hold is restored from the trash's pieces
// (Change.NewPiecesOf), also when the trash is so full that the restore's
// own trash entry would prune the one it reads.
func TestRestoreFromTrashPieces(t *testing.T) {
	ctx := context.Background()
	old := bigContent(100000, "old")
	w, root, p := streamWS(t, old)
	st := w.Store()
	ch, cur := piecesChange(t, p, old, []pieces.Piece{pieces.Bytes([]byte("head\n")), pieces.Base(0, int64(len(old)))})
	res, err := w.Commit(ctx, "test", []Change{ch}, CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id := res.Files[0].TrashIDs[0]
	st.limits.MaxTrashBytes = int64(len(old)) // room for one of the two
	sum := sha256.Sum256(old)
	restore := Change{Path: p, Base: BaseSHA256(sha256.Sum256(cur)), NewPieces: []pieces.Piece{pieces.Base(0, int64(len(old)))}, NewPiecesOf: id, NewSize: int64(len(old)), NewSHA256: &sum, NewTag: "OLD"}
	if _, err := w.Commit(ctx, "test", []Change{restore}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "big.txt")); !bytes.Equal(got, old) {
		t.Fatalf("big.txt holds %d bytes, want the old %d", len(got), len(old))
	}
	checkTrashBytes(t, st)
	// Into a file that does not exist, and from an entry that is not
	// there any more.
	np := mustResolve(t, w, "copy.txt")
	restore.Path, restore.Base = np, BaseAbsent()
	if _, err := w.Commit(ctx, "test", []Change{restore}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "copy.txt")); !bytes.Equal(got, old) {
		t.Fatalf("copy.txt holds %d bytes", len(got))
	}
	restore.Path, restore.NewPiecesOf = mustResolve(t, w, "gone.txt"), id+100
	if _, err := w.Commit(ctx, "test", []Change{restore}, CommitOptions{}); !IsKind(err, KindNotFound) {
		t.Fatalf("from a missing entry: %v", err)
	}
	if left := tempFiles(t, root); len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
}

// A store of schema 9 gains the trash's chunks when it is next opened,
// its trash as it was.
func TestSchemaV10Migrates(t *testing.T) {
	state := t.TempDir()
	s, err := OpenStore(state, "/r")
	if err != nil {
		t.Fatal(err)
	}
	id, err := s.Trash("/r/a", []byte("kept\n"), "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`DROP TRIGGER trash_chunk_added; DROP TRIGGER trash_chunks_dropped; DROP TABLE trash_chunks; PRAGMA user_version = 9`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = OpenStore(state, "/r"); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.limits = streamLimits
	if _, c, err := s.TrashGet(id); err != nil || string(c) != "kept\n" {
		t.Fatalf("the old entry: %q, %v", c, err)
	}
	big := bigContent(10000, "big")
	bid, err := s.Trash("/r/b", big, "test")
	if err != nil {
		t.Fatal(err)
	}
	if got := readTrash(t, s, bid); !bytes.Equal(got, big) {
		t.Fatalf("a chunked entry after the migration: %d bytes", len(got))
	}
	checkTrashBytes(t, s)
}
