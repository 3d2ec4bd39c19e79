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

func TestChangedSpans(t *testing.T) {
	tests := []struct {
		old, new string
		want     []Span
	}{
		{"a\nb\n", "a\nb\n", nil},
		{"a\nb\nc\n", "a\nB\nc\n", []Span{{2, 4, 2, 4}}},
		{"a\nb\nc\nd\ne\n", "A\nb\nc\nd\nE\n", []Span{{0, 2, 0, 2}, {8, 10, 8, 10}}},
		{"a\nb\n", "a\nx\ny\nb\n", []Span{{2, 2, 2, 6}}},
		{"a\nb", "a\nb\n", []Span{{2, 3, 2, 4}}},
		{"\ufeffa\nb\n", "\ufeffa\nc\n", []Span{{5, 7, 5, 7}}},
		{"", "a\n", []Span{{0, 0, 0, 2}}},
	}
	for _, tt := range tests {
		got := ChangedSpans([]byte(tt.old), []byte(tt.new))
		if len(got) != len(tt.want) {
			t.Errorf("ChangedSpans(%q, %q) = %v, want %v", tt.old, tt.new, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("ChangedSpans(%q, %q) = %v, want %v", tt.old, tt.new, got, tt.want)
			}
		}
	}
}
