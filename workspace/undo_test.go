package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// refusingEditor applies buffer edits but fails the one of failOn, and
// refuses every undo when refuseUndo is set; it records the notices it is
// sent.
type refusingEditor struct {
	mu         sync.Mutex
	failOn     string
	refuseUndo bool
	calls      []string
	notices    []string
}

func (e *refusingEditor) ApplyEdit(ctx context.Context, p Path, version int32, old, new []byte, label string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls = append(e.calls, p.Rel+" "+label)
	switch {
	case strings.HasSuffix(label, "(undone)") && e.refuseUndo:
		return errors.New("the user edited the buffer since")
	case p.Rel == e.failOn:
		return &Error{Kind: KindStale, Msg: p.Rel + ": the buffer moved on"}
	}
	return nil
}

func (e *refusingEditor) NotifyBuffer(ctx context.Context, p Path, msg string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.notices = append(e.notices, p.Rel+": "+msg)
}

// TestCommitReportsRefusedBufferUndo: a commit that edited one open buffer
// and then fails at the next is undone; when the editor refuses to undo
// the first buffer's edit, the caller is told (the buffer keeps the new
// text, the disk was put back) and so is the editor's user.
func TestCommitReportsRefusedBufferUndo(t *testing.T) {
	ctx := context.Background()
	w, root, _ := newWS(t)
	os.WriteFile(filepath.Join(root, "b.txt"), []byte("b\n"), 0o644)
	os.WriteFile(filepath.Join(root, "c.txt"), []byte("c\n"), 0o644)
	pa, pb, pc := mustResolve(t, w, "a.txt"), mustResolve(t, w, "b.txt"), mustResolve(t, w, "c.txt")
	w.SetOverlay(pa, []byte("buffer a\n"), 1)
	w.SetOverlay(pb, []byte("buffer b\n"), 1)
	changes := []Change{
		{Path: pa, Base: BaseOf([]byte("buffer a\n")), New: []byte("new a\n"), NewTag: "TEST"},
		{Path: pb, Base: BaseOf([]byte("buffer b\n")), New: []byte("new b\n"), NewTag: "TEST"},
		{Path: pc, Base: BaseOf([]byte("c\n")), New: []byte("new c\n"), NewTag: "TEST"},
	}

	// An undo the editor accepts: nothing was changed, nobody is told more.
	ok := &refusingEditor{failOn: "b.txt"}
	w.SetBufferEditor(ok)
	_, err := w.Commit(ctx, "test", changes, CommitOptions{Label: "edit"})
	if !IsKind(err, KindStale) || !strings.HasSuffix(err.Error(), "nothing was changed") || len(ok.notices) > 0 {
		t.Fatalf("undone commit: %v, notices %q", err, ok.notices)
	}
	if len(ok.calls) != 3 || ok.calls[2] != "a.txt edit (undone)" {
		t.Fatalf("editor calls = %q, want a.txt's edit undone", ok.calls)
	}

	ed := &refusingEditor{failOn: "b.txt", refuseUndo: true}
	w.SetBufferEditor(ed)
	_, err = w.Commit(ctx, "test", changes, CommitOptions{Label: "edit"})
	if !IsKind(err, KindStale) {
		t.Fatalf("commit: %v (want the editor's stale refusal)", err)
	}
	msg := err.Error()
	for _, want := range []string{"b.txt: the buffer moved on", "the editor did not undo the edit of a.txt", "the user edited the buffer since", "the files on disk were put back"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "nothing was changed") {
		t.Errorf("error %q says nothing was changed, but a buffer kept the new text", msg)
	}
	if len(ed.notices) != 1 || !strings.HasPrefix(ed.notices[0], "a.txt: hashls: the editor did not undo the edit of a.txt") {
		t.Errorf("notices = %q, want one about a.txt", ed.notices)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "c.txt")); string(got) != "c\n" {
		t.Errorf("c.txt on disk = %q, want it put back", got)
	}
}
