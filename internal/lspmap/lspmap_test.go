package lspmap

import (
	"slices"
	"testing"
)

// FuzzEdit: the mapper Edit derives for a changed text has the line starts
// New finds in it (breaks "\n", "\r\n" and a lone "\r", including pairs made
// or split at the change's edges).
func FuzzEdit(f *testing.F) {
	f.Add("a\r\nb\rc\nd", 2, 3, "")
	f.Add("a\r", 2, 2, "\nx")
	f.Add("a\rb", 2, 2, "\n")
	f.Add("\r\n\r\n", 1, 3, "")
	f.Add("x\ny", 0, 3, "\r")
	f.Add("", 0, 0, "\r\n")
	f.Fuzz(func(t *testing.T, old string, start, end int, ins string) {
		if len(old) > 1<<12 || len(ins) > 1<<10 {
			return
		}
		start = min(max(start, 0), len(old))
		end = min(max(end, start), len(old))
		text := []byte(old[:start] + ins + old[end:])
		got := New([]byte(old)).Edit(start, end, text)
		want := New(text)
		if !slices.Equal(got.lines, want.lines) || string(got.text) != string(want.text) {
			t.Fatalf("Edit(%q, [%d,%d) -> %q): lines %v, want %v", old, start, end, ins, got.lines, want.lines)
		}
	})
}
