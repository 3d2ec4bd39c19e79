package treesitter

import "testing"

// TestMarkdownSectionsAreBlocks: a heading line resolves to its whole
// section, through nested deeper headings, up to the next heading of the
// same or a higher level (trailing blank lines not included).
func TestMarkdownSectionsAreBlocks(t *testing.T) {
	doc := "# Title\n" + // 1
		"\n" + // 2
		"Intro.\n" + // 3
		"\n" + // 4
		"## Install\n" + // 5
		"\n" + // 6
		"Run make.\n" + // 7
		"\n" + // 8
		"### From source\n" + // 9
		"\n" + // 10
		"Clone it.\n" + // 11
		"\n" + // 12
		"## Usage\n" + // 13
		"\n" + // 14
		"- one\n" + // 15
		"- two\n" + // 16
		"\n" + // 17
		"# Appendix\n" + // 18
		"\n" + // 19
		"Notes.\n" // 20
	tests := []struct {
		line, start, end int
		ok               bool
	}{
		{1, 1, 16, true},   // the H1 runs up to the next H1
		{5, 5, 11, true},   // H2 takes its H3 along, stops at the next H2
		{9, 9, 11, true},   // H3 stops at the H2
		{13, 13, 16, true}, // the last H2 of the H1 stops at the next H1
		{18, 18, 20, true}, // the last section runs to the end
		{2, 0, 0, false},   // a blank line
	}
	for _, tt := range tests {
		s, e, ok := DefaultResolver.BlockRange("README.md", doc, tt.line)
		if ok != tt.ok || s != tt.start || e != tt.end {
			t.Errorf("line %d: %d-%d %v, want %d-%d %v", tt.line, s, e, ok, tt.start, tt.end, tt.ok)
		}
	}
}
