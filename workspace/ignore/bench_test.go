package ignore

import (
	"strings"
	"testing"
)

// BenchmarkFrameIgnored measures one path decision against the ~200-line
// hand-written root file of the git comparison test plus a nested file.
func BenchmarkFrameIgnored(b *testing.B) {
	root := &Frame{m: &Matcher{}, patterns: ParseFile([]byte(strings.Join(handPatterns, "\n")), "", "root")}
	child := &Frame{m: root.m, parent: root, patterns: ParseFile([]byte(strings.Join(aPatterns, "\n")), "a/", "a")}
	paths := []string{"a/b/c/some_file.go", "a/foo.txt", "a/b/deep/x1", "a/node_modules", "a/README.md"}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		child.Ignored(paths[i%len(paths)], false)
	}
}
