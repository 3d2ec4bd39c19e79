package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fakeRenamer is an editor that can rename open documents: like a real
// one, it moves the file on disk and its buffer (the overlay) follows.
type fakeRenamer struct {
	fakeEditor
	w       *Workspace
	can     bool
	failTo  string // RenameBuffer to this Rel fails (stale), nothing moved
	mu      sync.Mutex
	renames []string
	// onRename runs after each applied rename (the test inspects the
	// journal in flight).
	onRename func()
}

func (f *fakeRenamer) CanRenameBuffer(p Path) bool {
	_, _, open := f.w.Overlay(p)
	return f.can && open
}

func (f *fakeRenamer) RenameBuffer(ctx context.Context, from, to Path, label string) error {
	f.mu.Lock()
	f.renames = append(f.renames, from.Rel+"->"+to.Rel+"/"+label)
	f.mu.Unlock()
	if to.Rel == f.failTo {
		return &Error{Kind: KindStale, Msg: "the editor refused the move to " + to.Rel}
	}
	if err := os.Rename(from.Abs, to.Abs); err != nil {
		return &Error{Kind: KindStale, Msg: err.Error()}
	}
	text, v, _ := f.w.Overlay(from)
	f.w.CloseOverlay(from)
	f.w.SetOverlay(to, text, v)
	if f.onRename != nil {
		f.onRename()
	}
	return nil
}

// newStoreWS is a workspace with a store, a.txt and c.txt on disk and both
// open in the editor with unsaved text.
func newStoreWS(t *testing.T) (*Workspace, string) {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "c"} {
		if err := os.WriteFile(filepath.Join(root, n+".txt"), []byte(n+" disk\n"), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	w, err := Open(root, Options{StateDir: filepath.Join(base, "state")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	for _, n := range []string{"a", "c"} {
		w.SetOverlay(mustResolve(t, w, n+".txt"), []byte(n+" buffer\n"), 4)
	}
	return w, w.Root()
}

// moveChanges plans the move of src to dst with content, as move_file does.
func moveChanges(t *testing.T, w *Workspace, src, dst, content, moved string) []Change {
	return []Change{
		{Path: mustResolve(t, w, dst), Base: BaseAbsent(), New: []byte(content), MovedFrom: moved},
		{Path: mustResolve(t, w, src), Base: BaseOf([]byte(strings.Split(src, ".")[0] + " buffer\n")), Delete: true},
	}
}

func diskIs(t *testing.T, root string, want map[string]string) {
	t.Helper()
	for rel, content := range want {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if content == "" {
			if _, err := os.Lstat(abs); err == nil {
				t.Errorf("%s exists; want it absent", rel)
			}
			continue
		}
		b, err := os.ReadFile(abs)
		switch {
		case err != nil:
			t.Errorf("%s: %v", rel, err)
		case string(b) != content:
			t.Errorf("%s = %q, want %q", rel, b, content)
		}
	}
}

// TestCommitMovesOpenBuffer checks the moves of open documents: the editor
// renames them when it can (the buffer follows, unsaved text kept, the
// disk text moved as it is), all or nothing with the rest of the set; an
// editor that cannot gets the plain move and a note.
func TestCommitMovesOpenBuffer(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		can     bool
		failTo  string
		changes func(*testing.T, *Workspace) []Change
		wantErr bool
		renames []string
		disk    map[string]string
		open    []string // Rel of the open documents after
		note    string   // in a result's notes
	}{
		{
			name: "editor renames",
			can:  true,
			changes: func(t *testing.T, w *Workspace) []Change {
				return moveChanges(t, w, "a.txt", "d/b.txt", "a buffer\n", "a.txt")
			},
			renames: []string{"a.txt->d/b.txt/hashls move_file"},
			disk:    map[string]string{"a.txt": "", "d/b.txt": "a disk\n"},
			open:    []string{"c.txt", "d/b.txt"},
			note:    "the editor moved its open buffer of a.txt",
		},
		{
			name: "editor cannot rename",
			changes: func(t *testing.T, w *Workspace) []Change {
				return moveChanges(t, w, "a.txt", "d/b.txt", "a buffer\n", "a.txt")
			},
			disk: map[string]string{"a.txt": "", "d/b.txt": "a buffer\n"},
			open: []string{"a.txt", "c.txt"},
			note: "close the old buffer without saving and open d/b.txt",
		},
		{
			name: "a move that changes the text",
			can:  true,
			changes: func(t *testing.T, w *Workspace) []Change {
				return moveChanges(t, w, "a.txt", "d/b.txt", "edited\n", "a.txt")
			},
			disk: map[string]string{"a.txt": "", "d/b.txt": "edited\n"},
			open: []string{"a.txt", "c.txt"},
			note: "close the old buffer",
		},
		{
			name:   "the second rename refused: the first undone",
			can:    true,
			failTo: "e/d.txt",
			changes: func(t *testing.T, w *Workspace) []Change {
				return append(moveChanges(t, w, "a.txt", "d/b.txt", "a buffer\n", "a.txt"), moveChanges(t, w, "c.txt", "e/d.txt", "c buffer\n", "c.txt")...)
			},
			wantErr: true,
			renames: []string{"a.txt->d/b.txt/hashls move_file", "c.txt->e/d.txt/hashls move_file", "d/b.txt->a.txt/hashls move_file (undone)"},
			disk:    map[string]string{"a.txt": "a disk\n", "c.txt": "c disk\n", "d/b.txt": "", "e/d.txt": "", "d": "", "e": ""},
			open:    []string{"a.txt", "c.txt"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, root := newStoreWS(t)
			ed := &fakeRenamer{w: w, can: tc.can, failTo: tc.failTo}
			w.SetBufferEditor(ed)
			res, err := w.Commit(ctx, "move_file", tc.changes(t, w), CommitOptions{})
			if (err != nil) != tc.wantErr {
				t.Fatalf("commit: %v", err)
			}
			if !slices.Equal(ed.renames, tc.renames) {
				t.Errorf("renames %q, want %q", ed.renames, tc.renames)
			}
			diskIs(t, root, tc.disk)
			var open []string
			for _, p := range w.Overlays() {
				open = append(open, p.Rel)
			}
			if !slices.Equal(open, tc.open) {
				t.Errorf("open documents %q, want %q", open, tc.open)
			}
			if left := tempFiles(t, root); len(left) > 0 {
				t.Errorf("temp files left: %v", left)
			}
			if ins, err := w.store.pendingIntents(); err != nil || len(ins) != 0 {
				t.Errorf("journal: %d intents left (%v)", len(ins), err)
			}
			if err != nil {
				if !IsKind(err, KindStale) || !strings.Contains(err.Error(), "nothing was changed") {
					t.Errorf("error %v: want a stale error saying nothing was changed", err)
				}
				return
			}
			var notes []string
			for _, f := range res.Files {
				notes = append(notes, f.Note)
			}
			if all := strings.Join(notes, "|"); !strings.Contains(all, tc.note) {
				t.Errorf("notes %q lack %q", all, tc.note)
			}
			if tc.can && tc.renames != nil && !res.Files[0].Overlay {
				t.Errorf("the destination is not reported as the editor's: %+v", res.Files[0])
			}
			// The destination's snapshot is the buffer's text: the next
			// edit's base is what the tools read there.
			if got, err := w.ReadFile(mustResolve(t, w, "d/b.txt")); err != nil || SHA256Hex(got.Bytes) != res.Files[0].NewSHA256 {
				t.Errorf("d/b.txt reads %q (%v), the result says sha256 %s", got.Bytes, err, res.Files[0].NewSHA256)
			}
		})
	}
}

// TestRecoverEditorMove checks recovery of a commit interrupted around the
// editor's rename: before it the set rolls back (nothing to do: the source
// is in place), after it the set rolls forward (nothing to do: the file is
// where it goes); neither touches the files.
func TestRecoverEditorMove(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		moved   bool // the editor had renamed the file when the crash hit
		outcome string
		disk    map[string]string
	}{
		{"before the editor's rename", false, "rolled back", map[string]string{"a.txt": "a disk\n", "d/b.txt": ""}},
		{"after the editor's rename", true, "rolled forward", map[string]string{"a.txt": "", "d/b.txt": "a disk\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, root := newStoreWS(t)
			ed := &fakeRenamer{w: w, can: true}
			var inflight []intent
			ed.onRename = func() { inflight, _ = w.store.pendingIntents() }
			w.SetBufferEditor(ed)
			if _, err := w.Commit(ctx, "move_file", moveChanges(t, w, "a.txt", "d/b.txt", "a buffer\n", "a.txt"), CommitOptions{Call: "mv-1"}); err != nil {
				t.Fatal(err)
			}
			if len(inflight) != 1 || len(inflight[0].Entries) != 2 || inflight[0].Call != "mv-1" {
				t.Fatalf("journal during the rename: %+v", inflight)
			}
			// Replay the crash: the intent back in the journal, the
			// files as they were at that instant.
			in := inflight[0]
			if err := w.store.beginIntent(&in, nil, false); err != nil {
				t.Fatal(err)
			}
			if !tc.moved {
				if err := os.Rename(filepath.Join(root, "d", "b.txt"), filepath.Join(root, "a.txt")); err != nil {
					t.Fatal(err)
				}
			}
			recs, err := w.Recover(ctx)
			if err != nil || len(recs) != 1 || recs[0].Err != nil || recs[0].Outcome != tc.outcome {
				t.Fatalf("recover: %+v, %v; want %s", recs, err, tc.outcome)
			}
			diskIs(t, root, tc.disk)
			// The call's recovered change is the call's only when it was
			// rolled forward (a retry of the call must find it then).
			rows, _ := w.store.AuditByCall("mv-1")
			recovered := 0
			for _, r := range rows {
				if r.Transport == "recovery" {
					recovered++
				}
			}
			if want := map[bool]int{true: 2, false: 0}[tc.moved]; recovered != want {
				t.Errorf("recovery rows with the call id: %d, want %d", recovered, want)
			}
			if st, err := os.Stat(filepath.Join(root, map[bool]string{true: "d/b.txt", false: "a.txt"}[tc.moved])); err != nil || st.Mode().Perm() != osPerm(0o640) {
				t.Errorf("the moved file's mode: %v, %v", st, err)
			}
		})
	}
}
