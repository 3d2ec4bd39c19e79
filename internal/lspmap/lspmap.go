// Package lspmap converts between LSP positions (0-based line, UTF-16
// code unit column) and byte offsets: the one place that knows UTF-16, shared
// by the LSP server (package lsp) and the language-server client (package
// langserver). The entry point is New.
package lspmap

import (
	"slices"
	"unicode/utf8"
)

// Mapper converts between LSP positions (0-based line, UTF-16 code unit
// column) and byte offsets in one version of a document. It is the only place
// that knows about UTF-16 (the lsp server and the langserver client both
// use it). Line breaks are "\n", "\r\n" and a lone "\r", as
// the LSP specification says. Out-of-range positions are clamped (a column
// past the end of its line means the end of the line, a line past the end of
// the document means the end of the document), and positions inside a UTF-8
// sequence or a surrogate pair round down, so no input can fail or panic.
type Mapper struct {
	text  []byte
	lines []int // byte offset of the start of each line; lines[0] == 0
}

// New indexes the lines of text.
func New(text []byte) *Mapper {
	m := &Mapper{text: text, lines: make([]int, 1, 1+len(text)/32)}
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

// Edit returns the mapper of text, which is m's text with the bytes
// [start, oldEnd) replaced: text[:start] and text after the replacement are
// m's bytes (the caller checked it). The line starts before the change are
// kept, those after it shifted, and only the new bytes (and the break just
// before them, which they may pair with) are scanned: a keystroke in a large
// document costs the number of its lines, not of its bytes. Offsets that
// cannot describe such a change give New(text).
func (m *Mapper) Edit(start, oldEnd int, text []byte) *Mapper {
	delta := len(text) - len(m.text)
	newEnd := oldEnd + delta
	if start < 0 || start > oldEnd || oldEnd > len(m.text) || newEnd < start || newEnd > len(text) {
		return New(text)
	}
	keep, _ := slices.BinarySearch(m.lines, start) // lines[:keep] start before the change
	keep = max(keep, 1)                            // and line 0 starts at 0 whatever changes
	lines := make([]int, keep, len(m.lines)+8)
	copy(lines, m.lines[:keep])
	i := max(start-1, 0)
	for ; i <= newEnd && i < len(text); i++ {
		switch text[i] {
		case '\n':
			lines = append(lines, i+1)
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			lines = append(lines, i+1)
		}
	}
	// Breaks from text[i] on are m's, unchanged and paired as before: their
	// line starts lie after i, at i-delta and more in m.
	rest, _ := slices.BinarySearch(m.lines, i-delta+1)
	for _, p := range m.lines[rest:] {
		lines = append(lines, p+delta)
	}
	return &Mapper{text: text, lines: lines}
}

// LineEnd returns the offset of the end of line l's content (before its line
// break).
func (m *Mapper) LineEnd(l int) int {
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

// Offset returns the byte offset of the LSP position (0-based line,
// UTF-16 code unit column).
func (m *Mapper) Offset(line, character int) int {
	l := line
	if l < 0 {
		return 0
	}
	if l >= len(m.lines) {
		return len(m.text)
	}
	start, end := m.lines[l], m.LineEnd(l)
	want := character
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

// Position returns the LSP position (0-based line, UTF-16 column) of
// byte offset off. An offset inside a
// line break maps to the end of that line; inside a UTF-8 sequence it rounds
// down to the sequence start.
func (m *Mapper) Position(off int) (line, character int) {
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
	start, end := m.lines[l], m.LineEnd(l)
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
	return l, units
}

// LineCount returns the number of lines (a final line break starts an empty
// last line).
func (m *Mapper) LineCount() int { return len(m.lines) }

// LineStart returns the byte offset of the start of 0-based line l, clamped.
func (m *Mapper) LineStart(l int) int {
	if l < 0 {
		return 0
	}
	if l >= len(m.lines) {
		return len(m.text)
	}
	return m.lines[l]
}
