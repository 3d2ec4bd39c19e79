package lsp

import (
	"context"
	"fmt"
	"path/filepath"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hashls/hashls/workspace"
)

// document is one open editor buffer. text is never mutated in place: each
// change installs a new slice, so a snapshot taken under server.mu stays
// valid after the lock is released.
type document struct {
	uri     uri.URI
	version int32
	text    []byte
	m       *mapper // lazily built for text

	// name selects the tree-sitter grammar: the file path, or a made-up
	// name for documents without one (untitled:).
	name string
	// path is set when the document is a file inside the workspace root; only
	// then is it an overlay in the workspace.
	path    workspace.Path
	hasPath bool
}

// snapshot is an immutable view of a document at one version.
type snapshot struct {
	uri     uri.URI
	version int32
	text    []byte
	m       *mapper
	name    string
	path    workspace.Path
	hasPath bool
}

// versionWaiter is a bufferEditor waiting for a document to reach a version
// after a workspace/applyEdit.
type versionWaiter struct {
	abs   string
	after int32
	ch    chan struct{}
}

// snapshotOf returns the open document u, or an error a client can act on.
func (s *server) snapshotOf(u uri.URI) (*snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[u]
	if !ok {
		return nil, fmt.Errorf("document %s is not open: send textDocument/didOpen first", u)
	}
	return d.snapshotLocked(), nil
}

func (d *document) snapshotLocked() *snapshot {
	if d.m == nil {
		d.m = newMapper(d.text)
	}
	return &snapshot{uri: d.uri, version: d.version, text: d.text, m: d.m, name: d.name, path: d.path, hasPath: d.hasPath}
}

// DidOpen starts mirroring a document and makes it a workspace overlay.
func (s *server) DidOpen(ctx context.Context, params *protocol.DidOpenTextDocumentParams) error {
	item := params.TextDocument
	d := &document{uri: item.URI, version: item.Version, text: []byte(item.Text)}
	d.name = languageFileName(item.URI, string(item.LanguageID))
	ws := s.workspace()
	if p, ok := uriToPath(item.URI); ok {
		d.name = p
		if ws != nil {
			if wp, err := ws.Resolve(p); err == nil {
				d.path, d.hasPath = wp, true
			} else {
				s.logf("lsp: %s stays out of the workspace: %v", p, err)
			}
		}
	}

	s.mu.Lock()
	if old, ok := s.docs[item.URI]; ok && old.hasPath {
		delete(s.byPath, old.path.Abs)
	}
	s.docs[item.URI] = d
	if d.hasPath {
		s.byPath[d.path.Abs] = d
	}
	s.notifyWaitersLocked(d)
	s.mu.Unlock()

	if d.hasPath {
		ws.SetOverlay(d.path, d.text, d.version)
	}
	return nil
}

// DidChange applies incremental (or whole-document) changes in order.
func (s *server) DidChange(ctx context.Context, params *protocol.DidChangeTextDocumentParams) error {
	u := params.TextDocument.URI
	s.mu.Lock()
	d, ok := s.docs[u]
	if !ok {
		s.mu.Unlock()
		return fmt.Errorf("didChange for %s, which is not open; ignored", u)
	}
	text := d.text
	m := d.m
	for _, ch := range params.ContentChanges {
		switch c := ch.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			text = []byte(c.Text)
			m = nil
		case *protocol.TextDocumentContentChangePartial:
			if m == nil {
				m = newMapper(text)
			}
			start, end := m.offset(c.Range.Start), m.offset(c.Range.End)
			if end < start {
				start, end = end, start
			}
			next := make([]byte, 0, len(text)-(end-start)+len(c.Text))
			next = append(next, text[:start]...)
			next = append(next, c.Text...)
			next = append(next, text[end:]...)
			text = next
			m = nil
		}
	}
	d.text = text
	d.m = m
	d.version = params.TextDocument.Version
	hasPath, path, version := d.hasPath, d.path, d.version
	s.notifyWaitersLocked(d)
	ws := s.ws
	s.mu.Unlock()

	if hasPath && ws != nil {
		ws.SetOverlay(path, text, version)
	}
	return nil
}

// DidClose stops mirroring; the file on disk is the truth again.
func (s *server) DidClose(ctx context.Context, params *protocol.DidCloseTextDocumentParams) error {
	u := params.TextDocument.URI
	s.mu.Lock()
	d, ok := s.docs[u]
	if ok {
		delete(s.docs, u)
		if d.hasPath && s.byPath[d.path.Abs] == d {
			delete(s.byPath, d.path.Abs)
		}
	}
	ws := s.ws
	s.mu.Unlock()
	if ok && d.hasPath && ws != nil {
		ws.CloseOverlay(d.path)
	}
	return nil
}

// DidSave needs nothing: the buffer already is the overlay.
func (s *server) DidSave(context.Context, *protocol.DidSaveTextDocumentParams) error { return nil }

// notifyWaitersLocked wakes bufferEditor calls waiting for d to move past a
// version.
func (s *server) notifyWaitersLocked(d *document) {
	if !d.hasPath || len(s.waiters) == 0 {
		return
	}
	kept := s.waiters[:0]
	for _, w := range s.waiters {
		if w.abs == d.path.Abs && d.version > w.after {
			close(w.ch)
			continue
		}
		kept = append(kept, w)
	}
	s.waiters = kept
}

// relName returns a display name for a snapshot: the root-relative path, or
// the file name.
func (sn *snapshot) relName() string {
	if sn.hasPath {
		return sn.path.Rel
	}
	return filepath.Base(sn.name)
}
