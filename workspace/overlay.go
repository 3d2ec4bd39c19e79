package workspace

import (
	"context"
	"sort"
)

// BufferEditor applies an edit to a file the editor has open (set by the LSP
// server). ApplyEdit replaces the buffer's whole text old → new at version;
// it returns a KindStale error when the buffer moved or the client refused.
type BufferEditor interface {
	ApplyEdit(ctx context.Context, p Path, version int32, old, new []byte, label string) error
}

// BufferRenamer is a BufferEditor that can also move a file the editor has
// open (the LSP server, when the client supports the rename resource
// operation of workspace/applyEdit). Commit uses it for a change set that
// moves an open document unchanged: the editor renames the file on disk and
// its buffer follows, unsaved text (and, where the editor allows, undo
// history) kept. Without it, the buffer's text is written to the
// destination on disk and the old buffer is left for the user to close.
type BufferRenamer interface {
	BufferEditor
	// CanRenameBuffer reports whether the editor can rename the open
	// document p (it is open and the client supports renames).
	CanRenameBuffer(p Path) bool
	// RenameBuffer moves the open document from → to, the file on disk
	// with it; to must not exist. It fails with a KindStale error, having
	// changed nothing, when the document was closed or the client refused.
	RenameBuffer(ctx context.Context, from, to Path, label string) error
}

// BufferNotifier is a BufferEditor that can also tell its user something
// about a buffer (the LSP server: window/showMessage). Commit tells it when
// a failed commit could not undo its edit of an open buffer: the buffer
// then holds text the file on disk does not, which only its user can
// resolve.
type BufferNotifier interface {
	NotifyBuffer(ctx context.Context, p Path, msg string)
}

type overlay struct {
	path    Path
	text    []byte
	version int32
}

// SetBufferEditor installs the editor used for writes to overlaid files
// (nil removes it: writes then go to disk).
func (w *Workspace) SetBufferEditor(e BufferEditor) {
	w.mu.Lock()
	w.editor = e
	w.mu.Unlock()
}

// SetOverlay records an open buffer's text at version; CloseOverlay drops it.
// The workspace keeps its own copy of text.
func (w *Workspace) SetOverlay(p Path, text []byte, version int32) {
	t := append([]byte(nil), text...)
	if t == nil {
		t = []byte{}
	}
	w.mu.Lock()
	w.overlays[p.Abs] = overlay{path: p, text: t, version: version}
	w.mu.Unlock()
}

// CloseOverlay drops p's overlay; reads then come from disk again.
func (w *Workspace) CloseOverlay(p Path) {
	w.mu.Lock()
	delete(w.overlays, p.Abs)
	w.mu.Unlock()
}

// Overlay returns p's open-buffer text (a copy) and version.
func (w *Workspace) Overlay(p Path) (text []byte, version int32, ok bool) {
	w.mu.RLock()
	o, ok := w.overlays[p.Abs]
	w.mu.RUnlock()
	if !ok {
		return nil, 0, false
	}
	return append([]byte{}, o.text...), o.version, true
}

// hasOverlay reports whether p has an open buffer.
func (w *Workspace) hasOverlay(p Path) bool {
	w.mu.RLock()
	_, ok := w.overlays[p.Abs]
	w.mu.RUnlock()
	return ok
}

// Overlays lists the paths that have an overlay, sorted by Rel.
func (w *Workspace) Overlays() []Path {
	w.mu.RLock()
	out := make([]Path, 0, len(w.overlays))
	for _, o := range w.overlays {
		out = append(out, o.path)
	}
	w.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Rel < out[j].Rel })
	return out
}

// overlayAndEditor returns p's overlay (not copied) and the buffer editor.
func (w *Workspace) overlayAndEditor(p Path) (overlay, bool, BufferEditor) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	o, ok := w.overlays[p.Abs]
	return o, ok, w.editor
}
