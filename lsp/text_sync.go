package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hashls/hashls/agent"
	"github.com/hashls/hashls/treesitter"
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

	// outOfSync, when set, says why the server's text may differ from the
	// editor's: a didChange could not be applied. Requests on the document
	// and edits to it are refused until the editor sends it whole.
	outOfSync string

	// expect is the edit the server sent (workspace/applyEdit) and awaits,
	// for the review (review_server.go).
	expect *expectation
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
	if d.outOfSync != "" {
		return nil, errOutOfSync(d.displayName(), d.outOfSync)
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
	s.reviews.wait() // a run's review of this file first (reviewQueue.wait)
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
	// Under s.mu, so the tree-sitter copy sees the changes in order.
	treesitter.OpenDocument(s.treeKeyOf(item.URI), d.name, d.text)
	s.notifyWaitersLocked(d)
	s.reviewOpenedLocked(d)
	s.mu.Unlock()

	if d.hasPath {
		ws.SetOverlay(d.path, d.text, d.version)
	}
	return nil
}

// treeKeyOf is the key of the open document u in the tree-sitter package,
// which reparses it incrementally from the changes applyChanges reports:
// byte offsets from the mapper; tree-sitter derives its own rows and
// columns from the bytes.
func (s *server) treeKeyOf(u uri.URI) string { return s.treeKey + string(u) }

// change is one decoded content change of a didChange: the whole document,
// or a replacement of the range [start, end) (start <= end, checked).
type change struct {
	whole      bool
	start, end protocol.Position
	text       string
}

// DidChange applies incremental (or whole-document) changes in order. The
// wire path is didChangeRaw, which decodes the ranges strictly; this typed
// entry point (protocol.Server) checks the ranges it is given the same way.
func (s *server) DidChange(ctx context.Context, params *protocol.DidChangeTextDocumentParams) error {
	changes := make([]change, 0, len(params.ContentChanges))
	var bad error
	for i, ch := range params.ContentChanges {
		switch c := ch.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			changes = append(changes, change{whole: true, text: c.Text})
		case *protocol.TextDocumentContentChangePartial:
			if posAfter(c.Range.Start, c.Range.End) {
				bad = fmt.Errorf("change %d: its range starts at %d:%d, after its end %d:%d", i+1, c.Range.Start.Line, c.Range.Start.Character, c.Range.End.Line, c.Range.End.Character)
				break
			}
			changes = append(changes, change{start: c.Range.Start, end: c.Range.End, text: c.Text})
		}
		if bad != nil {
			break
		}
	}
	return s.applyChanges(ctx, params.TextDocument.URI, params.TextDocument.Version, changes, bad)
}

// didChangeRaw is textDocument/didChange from the wire. The protocol
// package's decoder turns a change whose range does not decode (a negative
// line, one >= 2^32, a fraction) into a whole-document replacement by its
// text; here a change with a "range" member is a range change or an error.
func (s *server) didChangeRaw(ctx context.Context, raw []byte) error {
	var p struct {
		TextDocument struct {
			URI     uri.URI `json:"uri"`
			Version int32   `json:"version"`
		} `json:"textDocument"`
		ContentChanges []json.RawMessage `json:"contentChanges"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return fmt.Errorf("invalid didChange params (want {textDocument: {uri, version}, contentChanges: [...]}): %w", err)
	}
	if p.TextDocument.URI == "" {
		return fmt.Errorf("didChange without textDocument.uri; ignored")
	}
	changes := make([]change, 0, len(p.ContentChanges))
	var bad error
	for i, rc := range p.ContentChanges {
		c, err := decodeChange(rc)
		if err != nil {
			bad = fmt.Errorf("change %d: %w", i+1, err)
			break
		}
		changes = append(changes, c)
	}
	return s.applyChanges(ctx, p.TextDocument.URI, p.TextDocument.Version, changes, bad)
}

// decodeChange decodes one TextDocumentContentChangeEvent strictly.
func decodeChange(raw json.RawMessage) (change, error) {
	var c map[string]json.RawMessage
	if err := json.Unmarshal(raw, &c); err != nil || c == nil {
		return change{}, fmt.Errorf("%s is not a content change {range?, text}", quoteJSON(raw))
	}
	var text string
	if t, ok := c["text"]; !ok || json.Unmarshal(t, &text) != nil {
		return change{}, fmt.Errorf("its text is missing or not a string")
	}
	rng, ok := c["range"]
	if !ok {
		return change{whole: true, text: text}, nil
	}
	var r struct {
		Start json.RawMessage `json:"start"`
		End   json.RawMessage `json:"end"`
	}
	if err := json.Unmarshal(rng, &r); err != nil || r.Start == nil || r.End == nil {
		return change{}, fmt.Errorf("range %s is not {start: {line, character}, end: {line, character}}", quoteJSON(rng))
	}
	start, err := decodePosition(r.Start)
	if err != nil {
		return change{}, fmt.Errorf("range start: %w", err)
	}
	end, err := decodePosition(r.End)
	if err != nil {
		return change{}, fmt.Errorf("range end: %w", err)
	}
	if posAfter(start, end) {
		return change{}, fmt.Errorf("its range starts at %d:%d, after its end %d:%d", start.Line, start.Character, end.Line, end.Character)
	}
	return change{start: start, end: end, text: text}, nil
}

// decodePosition decodes {line, character}: both whole numbers in
// [0, 2^32). A position past the end of its line or document is valid
// (the mapper clamps it, as the specification says); one that is not a
// position at all is an error, never a guess.
func decodePosition(raw json.RawMessage) (protocol.Position, error) {
	var p struct {
		Line      *json.Number `json:"line"`
		Character *json.Number `json:"character"`
	}
	if err := json.Unmarshal(raw, &p); err != nil || p.Line == nil || p.Character == nil {
		return protocol.Position{}, fmt.Errorf("%s is not a position {line, character}", quoteJSON(raw))
	}
	line, err := uinteger("line", *p.Line)
	if err != nil {
		return protocol.Position{}, err
	}
	char, err := uinteger("character", *p.Character)
	if err != nil {
		return protocol.Position{}, err
	}
	return protocol.Position{Line: line, Character: char}, nil
}

func uinteger(name string, n json.Number) (uint32, error) {
	v, err := strconv.ParseInt(string(n), 10, 64)
	switch {
	case err != nil && strings.TrimLeft(string(n), "-0123456789") == "":
		return 0, fmt.Errorf("%s %s is out of range: positions are 0 to 2^32-1", name, quoteJSON([]byte(n)))
	case err != nil:
		return 0, fmt.Errorf("%s %s is not a whole number", name, quoteJSON([]byte(n)))
	case v < 0:
		return 0, fmt.Errorf("%s %d is negative", name, v)
	case v > math.MaxUint32:
		return 0, fmt.Errorf("%s %d is out of range: positions are 0 to 2^32-1", name, v)
	}
	return uint32(v), nil
}

// descending reports whether changes are all range changes, each ending at
// or before the start of the one before it.
func descending(changes []change) bool {
	for i, c := range changes {
		if c.whole || posAfter(c.start, c.end) || i > 0 && posAfter(c.end, changes[i-1].start) {
			return false
		}
	}
	return true
}

// applyDescending applies changes (descending, see descending) to text,
// whose line index is m, in one pass, and tells the syntax trees of the
// open document key about them as one edit spanning them all, which it
// returns (hull: its start and old end). ok is false, and nothing is done,
// when their byte offsets are not in order after all.
func applyDescending(key string, text []byte, m *mapper, changes []change) (next []byte, hull [2]int, ok bool) {
	n := len(changes)
	starts, ends := make([]int, n), make([]int, n)
	size := len(text)
	for i, c := range changes {
		starts[i], ends[i] = m.offset(c.start), m.offset(c.end)
		if starts[i] > ends[i] || i > 0 && ends[i] > starts[i-1] {
			return nil, hull, false
		}
		size += len(c.text) - (ends[i] - starts[i])
	}
	next = make([]byte, 0, size)
	at := 0
	for i := n - 1; i >= 0; i-- {
		next = append(next, text[at:starts[i]]...)
		next = append(next, changes[i].text...)
		at = ends[i]
	}
	next = append(next, text[at:]...)
	treesitter.EditDocument(key, starts[n-1], ends[0], next)
	return next, [2]int{starts[n-1], ends[0]}, true
}

// posAfter reports whether a comes after b.
func posAfter(a, b protocol.Position) bool {
	return a.Line > b.Line || a.Line == b.Line && a.Character > b.Character
}

// applyChanges applies decoded changes in order. bad, when set, is why the
// change after the decoded ones could not be decoded: the changes before it
// are applied, the document is then out of sync (the server no longer knows
// the editor's text), the editor is told once, and edits to the document
// are refused until the editor sends it whole again (a whole-document
// change or a new didOpen). Range changes to a document out of sync are
// skipped: they cannot be applied to text the server does not have.
func (s *server) applyChanges(ctx context.Context, u uri.URI, version int32, changes []change, bad error) error {
	s.mu.Lock()
	d, ok := s.docs[u]
	if !ok {
		s.mu.Unlock()
		return fmt.Errorf("didChange for %s, which is not open; ignored", u)
	}
	text := d.text
	m := d.m
	skipped := 0
	key := s.treeKeyOf(u)
	if len(changes) > 1 && d.outOfSync == "" && descending(changes) {
		// Each change lies before the one sent ahead of it (editors send a
		// multi-edit that way), so every range names the text before all
		// of them: one line index and one copy of the text, not one per
		// change.
		if m == nil {
			m = newMapper(text)
		}
		if next, hull, ok := applyDescending(key, text, m, changes); ok {
			m = &mapper{m.Edit(hull[0], hull[1], next)}
			text, changes = next, nil
		}
	}
	for _, c := range changes {
		if c.whole {
			next := []byte(c.text)
			start, end, _ := minimalEdit(text, next)
			treesitter.EditDocument(key, start, end, next)
			text = next
			m = nil
			d.outOfSync = ""
			continue
		}
		if d.outOfSync != "" {
			skipped++
			continue
		}
		if m == nil {
			m = newMapper(text)
		}
		start, end := m.offset(c.start), m.offset(c.end)
		next := make([]byte, 0, len(text)-(end-start)+len(c.text))
		next = append(next, text[:start]...)
		next = append(next, c.text...)
		next = append(next, text[end:]...)
		treesitter.EditDocument(key, start, end, next)
		m = &mapper{m.Edit(start, end, next)}
		text = next
	}
	report := ""
	if bad != nil {
		report = fmt.Sprintf("hashls: the change to %s (version %d) was refused: %v. The server's copy of the document is out of sync with the editor; edits to it are refused until the editor sends it whole again: close and reopen it.", d.displayName(), version, bad)
		if d.outOfSync != "" {
			report = "" // already told
		}
		d.outOfSync = fmt.Sprintf("a change at version %d could not be applied (%v)", version, bad)
	}
	d.text = text
	d.m = m
	d.version = version
	hasPath, path := d.hasPath, d.path
	outOfSync := d.outOfSync
	if outOfSync == "" {
		s.reviewDocLocked(d)
	}
	s.notifyWaitersLocked(d)
	ws := s.ws
	s.mu.Unlock()

	if hasPath && ws != nil {
		ws.SetOverlay(path, text, version)
	}
	if report != "" {
		s.showMessage(ctx, protocol.MessageTypeError, report)
	}
	switch {
	case bad != nil:
		return fmt.Errorf("didChange for %s (version %d) refused: %w; the document is out of sync until the editor sends it whole", u, version, bad)
	case skipped > 0:
		return fmt.Errorf("didChange for %s (version %d): %d range change(s) skipped, the document is out of sync (%s) until the editor sends it whole", u, version, skipped, outOfSync)
	}
	return nil
}

// errOutOfSync is the error of a request or an edit on a document the
// server no longer mirrors exactly.
func errOutOfSync(name, why string) error {
	return fmt.Errorf("%s is out of sync with the editor: %s; close and reopen it in the editor (which sends it whole), then retry", name, why)
}

// quoteJSON quotes raw input for a message: a short prefix and its length.
func quoteJSON(raw []byte) string { return agent.QuoteInput(string(raw)) }

// displayName is the root-relative path of the document, or its URI.
func (d *document) displayName() string {
	if d.hasPath {
		return d.path.Rel
	}
	return string(d.uri)
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
		treesitter.CloseDocument(s.treeKeyOf(u))
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
