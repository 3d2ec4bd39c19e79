package edit

import "testing"

func TestUnifiedDiff(t *testing.T) {
	tests := []struct{ old, new, want string }{
		{"a\n", "a\n", ""},
		{"", "a\n", "--- a/x\n+++ b/x\n@@ -0,0 +1,1 @@\n+a\n"},
		{"a\nb\nc\n", "a\nB\nc\n", "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"a\r\nb\r\n", "a\nb\n", ""}, // compared on the LF view
	}
	for _, tt := range tests {
		if got := UnifiedDiff("x", []byte(tt.old), []byte(tt.new)); got != tt.want {
			t.Errorf("UnifiedDiff(%q, %q) =\n%q\nwant\n%q", tt.old, tt.new, got, tt.want)
		}
	}
}
