package lsp

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hashls/hashls/workspace"
)

// bufferEditor is the workspace.BufferEditor of an LSP session: writes to
// files the editor has open become versioned workspace/applyEdit requests,
// so they land in the buffer and its undo history instead of on disk.
type bufferEditor struct{ s *server }

var _ workspace.BufferEditor = (*bufferEditor)(nil)

// annotationID labels hashls edits in clients that support change
// annotations.
const annotationID protocol.ChangeAnnotationIdentifier = "hashls"

func stale(format string, args ...any) error {
	return &workspace.Error{Kind: workspace.KindStale, Msg: fmt.Sprintf(format, args...)}
}

// ApplyEdit replaces the open buffer p (at version, holding old) with new. It
// sends one text edit per changed region (minimalEdits), all in one versioned
// TextDocumentEdit, so cursors, folds and markers outside the changes stay
// where they are; waits for the client's answer and for the
// didChange that follows, and fails with KindStale when the buffer moved or
// the client refused: nothing is written then.
func (b *bufferEditor) ApplyEdit(ctx context.Context, p workspace.Path, version int32, old, new []byte, label string) error {
	s := b.s
	s.mu.Lock()
	d := s.byPath[p.Abs]
	if d == nil {
		s.mu.Unlock()
		return stale("%s was closed in the editor while the tool ran; read it again and retry", p.Rel)
	}
	if d.outOfSync != "" {
		why := d.outOfSync
		s.mu.Unlock()
		return &workspace.Error{Kind: workspace.KindStale, Msg: errOutOfSync(p.Rel, why).Error() + "; the edit was not applied"}
	}
	if d.version != version || !bytes.Equal(d.text, old) {
		cur := d.version
		s.mu.Unlock()
		return stale("%s changed in the editor (version %d, the tool read version %d); read it again and retry", p.Rel, cur, version)
	}
	sn := d.snapshotLocked()
	caps := s.caps
	timeout := time.Duration(s.settings.ApplyEditTimeoutMs) * time.Millisecond
	w := &versionWaiter{abs: p.Abs, after: version, ch: make(chan struct{})}
	if !caps.applyEdit {
		s.mu.Unlock()
		return stale("%s is open in the editor, which does not support workspace/applyEdit; save and close it, then retry", p.Rel)
	}
	edits := minimalEdits(old, new)
	if len(edits) == 0 {
		s.mu.Unlock()
		return nil
	}
	e := s.expectLocked(ctx, d, old, new)
	s.mu.Unlock()

	tes := make([]protocol.TextEdit, len(edits))
	for i, e := range edits {
		tes[i] = protocol.TextEdit{Range: sn.m.rangeOf(e.start, e.end), NewText: string(e.repl)}
	}
	params := buildApplyEdit(sn.uri, version, tes, editLabel(ctx, label), caps)
	// The client answers after it has applied the edit; its didChange
	// normally precedes the answer.
	err := s.applyAndWait(ctx, params, w, timeout, "the edit to "+p.Rel, "read it again and retry", "didChange")
	s.settleExpect(p, e, err == nil)
	return err
}

// applyAndWait sends one workspace/applyEdit and, once the client answers
// that it applied it, waits briefly for the notification w waits for (so
// that the next tool run reads the new state); w is registered before the
// request so that the notification cannot be missed. what names the change
// in errors, retry tells the caller what to do, note names the
// notification. A failed or refused request is a KindStale error.
func (s *server) applyAndWait(ctx context.Context, params *protocol.ApplyWorkspaceEditParams, w *versionWaiter, timeout time.Duration, what, retry, note string) error {
	s.mu.Lock()
	s.waiters = append(s.waiters, w)
	s.mu.Unlock()
	defer s.dropWaiter(w)

	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := s.client.ApplyEdit(cctx, params)
	if err != nil {
		return stale("the editor did not apply %s (%v); %s", what, err, retry)
	}
	if res == nil || !res.Applied {
		reason := "no reason given"
		if res != nil && res.FailureReason != nil {
			reason = *res.FailureReason
		}
		return stale("the editor refused %s (%s); %s", what, reason, retry)
	}
	select {
	case <-w.ch:
	case <-time.After(min(timeout, 2*time.Second)):
		s.logf("lsp: no %s after the editor applied %s; the overlay may lag", note, what)
	case <-ctx.Done():
	}
	return nil
}

func (s *server) dropWaiter(w *versionWaiter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.waiters {
		if x == w {
			s.waiters = append(s.waiters[:i], s.waiters[i+1:]...)
			return
		}
	}
}

// buildApplyEdit builds the workspace/applyEdit params for the text edits of
// one document (ranges in the document at version, non-overlapping, in
// order): a versioned TextDocumentEdit (annotated when the client supports
// change annotations), or plain edits for clients without documentChanges.
func buildApplyEdit(u uri.URI, version int32, edits []protocol.TextEdit, label string, caps clientCaps) *protocol.ApplyWorkspaceEditParams {
	var we protocol.WorkspaceEdit
	if caps.documentChanges {
		elems := make([]protocol.TextDocumentEditElement, len(edits))
		for i := range edits {
			elems[i] = &edits[i]
			if caps.annotations {
				elems[i] = &protocol.AnnotatedTextEdit{TextEdit: edits[i], AnnotationID: annotationID}
			}
		}
		if caps.annotations {
			no := false
			we.ChangeAnnotations = map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{
				annotationID: {Label: label, NeedsConfirmation: &no},
			}
		}
		v := version
		we.DocumentChanges = []protocol.DocumentChange{&protocol.TextDocumentEdit{
			TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
				TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u},
				Version:                &v,
			},
			Edits: elems,
		}}
	} else {
		we.Changes = map[uri.URI][]protocol.TextEdit{u: edits}
	}
	l := label
	if l == "" {
		l = "hashls edit"
	}
	return &protocol.ApplyWorkspaceEditParams{Label: &l, Edit: we}
}

// editLabel names an edit in the editor's undo history: the commit's
// label, after the agent's name when an agent made it ("claude-code:
// hashls edit").
func editLabel(ctx context.Context, label string) string {
	if a := runInfoFrom(ctx).attr(); a != nil {
		return a.name() + ": " + label
	}
	return label
}

var _ workspace.BufferRenamer = (*bufferEditor)(nil)

// CanRenameBuffer reports whether p is open and the client applies rename
// operations in a workspace/applyEdit (workspace.workspaceEdit:
// documentChanges and resourceOperations holding "rename").
func (b *bufferEditor) CanRenameBuffer(p workspace.Path) bool {
	s := b.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps.applyEdit && s.caps.documentChanges && s.caps.renameFiles && s.byPath[p.Abs] != nil
}

// RenameBuffer moves the open document from → to with a RenameFile
// operation (never overwriting): the editor renames the file on disk and
// its buffer follows, unsaved text kept. It waits for the client's answer
// and for the didOpen of the new name that follows, and fails with
// KindStale when the document was closed or the client refused: nothing
// was moved then.
func (b *bufferEditor) RenameBuffer(ctx context.Context, from, to workspace.Path, label string) error {
	s := b.s
	s.mu.Lock()
	d := s.byPath[from.Abs]
	if d == nil {
		s.mu.Unlock()
		return stale("%s was closed in the editor while the tool ran; check where it is now (list_directory) and retry", from.Rel)
	}
	oldURI := d.uri
	caps := s.caps
	timeout := time.Duration(s.settings.ApplyEditTimeoutMs) * time.Millisecond
	w := &versionWaiter{abs: to.Abs, after: math.MinInt32, ch: make(chan struct{})}
	s.mu.Unlock()

	if !caps.applyEdit || !caps.documentChanges || !caps.renameFiles {
		return stale("%s is open in the editor, which does not support renames in workspace/applyEdit; close it, then retry", from.Rel)
	}
	// The editor reopens the document under its new name (didClose,
	// didOpen).
	return s.applyAndWait(ctx, buildRenameEdit(oldURI, pathToURI(to.Abs), label, caps), w, timeout,
		fmt.Sprintf("the move of %s to %s", from.Rel, to.Rel), "check both paths (list_directory) and retry", "didOpen")
}

// buildRenameEdit builds the workspace/applyEdit params of one RenameFile
// operation that never overwrites (annotated when the client supports
// change annotations).
func buildRenameEdit(from, to uri.URI, label string, caps clientCaps) *protocol.ApplyWorkspaceEditParams {
	no := false
	op := &protocol.RenameFile{ResourceOperation: protocol.ResourceOperation{Kind: "rename"}, Kind: "rename", OldURI: from, NewURI: to,
		Options: &protocol.RenameFileOptions{Overwrite: &no, IgnoreIfExists: &no}}
	if label == "" {
		label = "hashls move"
	}
	we := protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{op}}
	if caps.annotations {
		op.AnnotationID = annotationID
		we.ChangeAnnotations = map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{
			annotationID: {Label: label, NeedsConfirmation: &no},
		}
	}
	return &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: we}
}
