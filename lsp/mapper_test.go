package lsp

import (
	"strings"
	"testing"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

func TestMapper(t *testing.T) {
	text := "ab\r\n😀x\ré\n\nend"
	m := newMapper([]byte(text))
	cases := []struct {
		pos protocol.Position
		off int
	}{
		{protocol.Position{Line: 0, Character: 0}, 0},
		{protocol.Position{Line: 0, Character: 2}, 2},
		{protocol.Position{Line: 0, Character: 9}, 2}, // past the end of the line: its end
		{protocol.Position{Line: 1, Character: 0}, 4},
		{protocol.Position{Line: 1, Character: 1}, 4}, // inside the surrogate pair: rounds down
		{protocol.Position{Line: 1, Character: 2}, 8},
		{protocol.Position{Line: 1, Character: 3}, 9},
		{protocol.Position{Line: 2, Character: 0}, 10}, // after a lone \r
		{protocol.Position{Line: 2, Character: 1}, 12}, // é is 2 bytes, 1 unit
		{protocol.Position{Line: 3, Character: 0}, 13},
		{protocol.Position{Line: 4, Character: 3}, 17},
		{protocol.Position{Line: 40, Character: 3}, len(text)}, // past the end
	}
	for _, c := range cases {
		if got := m.offset(c.pos); got != c.off {
			t.Errorf("offset(%v) = %d, want %d", c.pos, got, c.off)
		}
	}
	back := []struct {
		off int
		pos protocol.Position
	}{
		{0, protocol.Position{Line: 0, Character: 0}},
		{3, protocol.Position{Line: 0, Character: 2}}, // inside \r\n: end of line
		{6, protocol.Position{Line: 1, Character: 0}}, // inside the emoji: rounds down
		{8, protocol.Position{Line: 1, Character: 2}},
		{12, protocol.Position{Line: 2, Character: 1}},
		{len(text), protocol.Position{Line: 4, Character: 3}},
		{-5, protocol.Position{Line: 0, Character: 0}},
		{999, protocol.Position{Line: 4, Character: 3}},
	}
	for _, c := range back {
		if got := m.position(c.off); got != c.pos {
			t.Errorf("position(%d) = %v, want %v", c.off, got, c.pos)
		}
	}
	if m.lineCount() != 5 {
		t.Errorf("lineCount = %d", m.lineCount())
	}
}

func TestMinimalEdit(t *testing.T) {
	cases := []struct{ old, new, repl string }{
		{"abc", "abc", ""},
		{"abc", "abXc", "X"},
		{"var x = 1\n", "var x = 2\n", "2"},
		{"a😀b", "a😃b", "😃"}, // shares 3 leading bytes of the emoji: must not split it
		{"a\r\nb", "a\nb", ""},
		{"x\r\n", "x\r\ny\r\n", "y\r\n"},
		{"", "new", "new"},
		{"old", "", ""},
		{"aaaa", "aa", ""},
		// Longer than the compare blocks: prefix and suffix found whole,
		// a "\r\n" on a block boundary kept whole.
		{strings.Repeat("x", 63) + "\r\n" + strings.Repeat("y", 200) + "1" + strings.Repeat("z", 130), strings.Repeat("x", 63) + "\r\n" + strings.Repeat("y", 200) + "2" + strings.Repeat("z", 130), "2"},
		{strings.Repeat("x", 63) + "\r\n", strings.Repeat("x", 63) + "\n", ""},
		{strings.Repeat("ab", 100), strings.Repeat("ab", 50) + "c" + strings.Repeat("ab", 50), "c"},
	}
	for _, c := range cases {
		s, e, repl := minimalEdit([]byte(c.old), []byte(c.new))
		got := c.old[:s] + string(repl) + c.old[e:]
		if got != c.new {
			t.Errorf("minimalEdit(%q, %q) rebuilds %q", c.old, c.new, got)
		}
		if c.repl != "" && string(repl) != c.repl {
			t.Errorf("minimalEdit(%q, %q) replacement %q, want %q", c.old, c.new, repl, c.repl)
		}
		if !utf8.Valid(repl) || !utf8.ValidString(c.old[:s]) {
			t.Errorf("minimalEdit(%q, %q) splits a rune", c.old, c.new)
		}
	}
}

// FuzzMapper: conversions never panic, stay in range, and an edit computed
// by minimalEdit rebuilds the new text through LSP positions.
func FuzzMapper(f *testing.F) {
	f.Add("ab\r\n😀x\ré\n\nend", "ab\n😀y\r\n", uint32(1), uint32(1))
	f.Add("", "x", uint32(0), uint32(0))
	f.Fuzz(func(t *testing.T, old, new string, line, col uint32) {
		m := newMapper([]byte(old))
		off := m.offset(protocol.Position{Line: line, Character: col})
		if off < 0 || off > len(old) {
			t.Fatalf("offset out of range: %d", off)
		}
		p := m.position(off)
		if back := m.offset(p); back != off && utf8.ValidString(old) && !strings.Contains(old, "\r") {
			t.Fatalf("round trip %d -> %v -> %d", off, p, back)
		}
		if !utf8.ValidString(old) || !utf8.ValidString(new) {
			return
		}
		s, e, repl := minimalEdit([]byte(old), []byte(new))
		r := m.rangeOf(s, e)
		s2, e2 := m.offset(r.Start), m.offset(r.End)
		if got := old[:s2] + string(repl) + old[e2:]; got != new {
			t.Fatalf("edit through positions: %q, want %q (span %d-%d, positions %v -> %d-%d)", got, new, s, e, r, s2, e2)
		}
	})
}

// TestMinimalEdits: one edit per changed region, each trimmed, rebuilding
// the new text; break-style changes fall back to one replacement.
func TestMinimalEdits(t *testing.T) {
	tests := []struct {
		old, new string
		n        int
	}{
		{"a\nb\n", "a\nb\n", 0},
		{"a\nb\nc\nd\ne\n", "A\nb\nc\nd\nE\n", 2},
		{"x := 1\ny\nz := 2\n", "x := 10\ny\nz := 20\n", 2},
		{"a\r\nb\r\n", "a\nb\n", 1}, // the line diff sees no change: one replacement
		{"\ufeffa\nb\nc\n", "\ufeffA\nb\nC\n", 2},
		{"😀a\nb\n😀c\n", "😀x\nb\n😀y\n", 2},
		{"", "new\n", 1},
		{"old\n", "", 1},
	}
	for _, tt := range tests {
		edits := minimalEdits([]byte(tt.old), []byte(tt.new))
		if len(edits) != tt.n {
			t.Errorf("minimalEdits(%q, %q): %d edits, want %d", tt.old, tt.new, len(edits), tt.n)
		}
		if got := string(applyByteEdits([]byte(tt.old), edits)); got != tt.new {
			t.Errorf("minimalEdits(%q, %q) rebuilds %q", tt.old, tt.new, got)
		}
	}
}
