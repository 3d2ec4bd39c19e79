package lsp

import (
	"bytes"
	"unicode/utf8"

	"github.com/hashls/hashls/internal/lspmap"
	"go.lsp.dev/protocol"

	"github.com/hashls/hashls/edit"
)

// mapper converts between LSP positions and byte offsets in one version of
// a document: internal/lspmap (the one place that knows UTF-16) with the
// protocol's types.
type mapper struct{ *lspmap.Mapper }

func newMapper(text []byte) *mapper { return &mapper{lspmap.New(text)} }

// offset returns the byte offset of p.
func (m *mapper) offset(p protocol.Position) int { return m.Offset(int(p.Line), int(p.Character)) }

// position returns the LSP position of byte offset off.
func (m *mapper) position(off int) protocol.Position {
	l, c := m.Position(off)
	return protocol.Position{Line: uint32(l), Character: uint32(c)}
}

// rangeOf returns the LSP range of the byte span [start, end).
func (m *mapper) rangeOf(start, end int) protocol.Range {
	if end < start {
		end = start
	}
	return protocol.Range{Start: m.position(start), End: m.position(end)}
}

func (m *mapper) lineCount() int      { return m.LineCount() }
func (m *mapper) lineStart(l int) int { return m.LineStart(l) }
func (m *mapper) lineEnd(l int) int   { return m.LineEnd(l) }

// minimalEdit returns the single replacement that turns old into new: the
// byte span [start, end) of old and the bytes that replace it. The common
// prefix and suffix are kept, trimmed so that neither splits a UTF-8 sequence
// or a "\r\n" pair (an LSP position cannot point between them).
func minimalEdit(old, new []byte) (start, end int, repl []byte) {
	n := min(len(old), len(new))
	// Whole blocks first (bytes.Equal is the vectorised compare), then
	// byte by byte.
	const block = 64
	p := 0
	for p+block <= n && bytes.Equal(old[p:p+block], new[p:p+block]) {
		p += block
	}
	for p < n && old[p] == new[p] {
		p++
	}
	for p > 0 && (splitsAt(old, p) || splitsAt(new, p)) {
		p--
	}
	s := 0
	for s+block <= n-p && bytes.Equal(old[len(old)-s-block:len(old)-s], new[len(new)-s-block:len(new)-s]) {
		s += block
	}
	for s < n-p && old[len(old)-1-s] == new[len(new)-1-s] {
		s++
	}
	for s > 0 && (splitsAt(old, len(old)-s) || splitsAt(new, len(new)-s)) {
		s--
	}
	return p, len(old) - s, new[p : len(new)-s]
}

// byteEdit replaces old[start:end] with repl.
type byteEdit struct {
	start, end int
	repl       []byte
}

// minimalEdits returns the replacements that turn old into new, one per
// changed region: a line diff (edit.ChangedSpans) finds the regions, and
// each is trimmed to its own smallest replacement (minimalEdit). The edits are
// in order and do not overlap, as one LSP TextEdit[] must be. When the regions
// do not rebuild new byte for byte (the line diff compares lines without their
// break style), it returns the single replacement of minimalEdit.
func minimalEdits(old, new []byte) []byteEdit {
	var out []byteEdit
	for _, sp := range edit.ChangedSpans(old, new) {
		s, e, repl := minimalEdit(old[sp.OldStart:sp.OldEnd], new[sp.NewStart:sp.NewEnd])
		if s == e && len(repl) == 0 {
			continue
		}
		out = append(out, byteEdit{sp.OldStart + s, sp.OldStart + e, repl})
	}
	if !bytes.Equal(applyByteEdits(old, out), new) {
		s, e, repl := minimalEdit(old, new)
		if s == e && len(repl) == 0 {
			return nil
		}
		return []byteEdit{{s, e, repl}}
	}
	return out
}

// applyByteEdits applies ordered, non-overlapping edits to old.
func applyByteEdits(old []byte, edits []byteEdit) []byte {
	var b bytes.Buffer
	b.Grow(len(old))
	at := 0
	for _, e := range edits {
		b.Write(old[at:e.start])
		b.Write(e.repl)
		at = e.end
	}
	b.Write(old[at:])
	return b.Bytes()
}

// splitsAt reports whether a cut of b at i would split a UTF-8 sequence or a
// "\r\n" pair.
func splitsAt(b []byte, i int) bool {
	if i <= 0 || i >= len(b) {
		return false
	}
	return !utf8.RuneStart(b[i]) || b[i-1] == '\r' && b[i] == '\n'
}
