package treesitter

import (
	"context"
	"testing"
)

func TestDocCommentStart(t *testing.T) {
	goSrc := "package a\n\n// A does things.\n// Two lines.\nfunc A() {}\n\n// detached\n\nfunc B() {}\nvar x = 1 // trailing\nfunc C() {}\n/* block\n   comment */\nfunc D() {}\n"
	pySrc := "import os\n\n# helper\n# more\ndef f():\n    pass\n"
	for _, tc := range []struct {
		path, src  string
		line, want int
	}{
		{"a.go", goSrc, 5, 3},   // two comment lines directly above
		{"a.go", goSrc, 9, 9},   // a blank line between: not its doc
		{"a.go", goSrc, 11, 11}, // a comment after code on the line above
		{"a.go", goSrc, 14, 12}, // a block comment
		{"a.go", goSrc, 1, 1},
		{"a.py", pySrc, 5, 3},
		{"a.txt", "x\n", 1, 1},
	} {
		if got := DocCommentStart(context.Background(), tc.path, []byte(tc.src), tc.line); got != tc.want {
			t.Errorf("%s line %d: %d, want %d", tc.path, tc.line, got, tc.want)
		}
	}
}
