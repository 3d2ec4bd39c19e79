package lsp

import (
	"bytes"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/hashls/hashls/edit"
)

// mapper converts between LSP positions (0-based line, UTF-16 code unit
// column) and byte offsets in one version of a document. It is the only place
// that knows about UTF-16. Line breaks are "\n", "\r\n" and a lone "\r", as
// the LSP specification says. Out-of-range positions are clamped (a column
// past the end of its line means the end of the line, a line past the end of
// the document means the end of the document), and positions inside a UTF-8
// sequence or a surrogate pair round down, so no input can fail or panic.
type mapper struct {
	text  []byte
	lines []int // byte offset of the start of each line; lines[0] == 0
}

func newMapper(text []byte) *mapper {
	m := &mapper{text: text, lines: make([]int, 1, 1+len(text)/32)}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			m.lines = append(m.lines, i+1)
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			m.lines = append(m.lines, i+1)
		}
	}
	return m
}

// lineEnd returns the offset of the end of line l's content (before its line
// break).
func (m *mapper) lineEnd(l int) int {
	if l+1 >= len(m.lines) {
		return len(m.text)
	}
	end := m.lines[l+1]
	if end > 0 && m.text[end-1] == '\n' {
		end--
	}
	if end > m.lines[l] && m.text[end-1] == '\r' {
		end--
	}
	return end
}

// offset returns the byte offset of p.
func (m *mapper) offset(p protocol.Position) int {
	l := int(p.Line)
	if l >= len(m.lines) {
		return len(m.text)
	}
	start, end := m.lines[l], m.lineEnd(l)
	want := int(p.Character)
	units := 0
	i := start
	for i < end && units < want {
		r, size := utf8.DecodeRune(m.text[i:end])
		n := 1
		if r >= 0x10000 {
			n = 2
		}
		if units+n > want {
			break // inside a surrogate pair: round down
		}
		units += n
		i += size
	}
	return i
}

// position returns the LSP position of byte offset off. An offset inside a
// line break maps to the end of that line; inside a UTF-8 sequence it rounds
// down to the sequence start.
func (m *mapper) position(off int) protocol.Position {
	if off < 0 {
		off = 0
	}
	if off > len(m.text) {
		off = len(m.text)
	}
	// Binary search the last line start <= off.
	lo, hi := 0, len(m.lines)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if m.lines[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	l := lo
	start, end := m.lines[l], m.lineEnd(l)
	if off > end {
		off = end
	}
	units := 0
	for i := start; i < off; {
		r, size := utf8.DecodeRune(m.text[i:end])
		if i+size > off {
			break
		}
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
		i += size
	}
	return protocol.Position{Line: uint32(l), Character: uint32(units)}
}

// rangeOf returns the LSP range of the byte span [start, end).
func (m *mapper) rangeOf(start, end int) protocol.Range {
	if end < start {
		end = start
	}
	return protocol.Range{Start: m.position(start), End: m.position(end)}
}

// lineCount returns the number of lines (a final line break starts an empty
// last line).
func (m *mapper) lineCount() int { return len(m.lines) }

// lineStart returns the byte offset of the start of 0-based line l, clamped.
func (m *mapper) lineStart(l int) int {
	if l < 0 {
		return 0
	}
	if l >= len(m.lines) {
		return len(m.text)
	}
	return m.lines[l]
}

// minimalEdit returns the single replacement that turns old into new: the
// byte span [start, end) of old and the bytes that replace it. The common
// prefix and suffix are kept, trimmed so that neither splits a UTF-8 sequence
// or a "\r\n" pair (an LSP position cannot point between them).
func minimalEdit(old, new []byte) (start, end int, repl []byte) {
	n := min(len(old), len(new))
	p := 0
	for p < n && old[p] == new[p] {
		p++
	}
	for p > 0 && (splitsAt(old, p) || splitsAt(new, p)) {
		p--
	}
	s := 0
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
