package agent

import (
	"strings"
	"testing"
)

// TestAfterEditTools: exactly the tools that take the after-edit
// arguments declare them in their schema.
func TestAfterEditTools(t *testing.T) {
	for _, tool := range New(Deps{}).Tools() {
		_, marked := tool.(afterEditTool)
		has := strings.Contains(string(tool.Schema()), `"diagnostics":{"type":"integer"`)
		if marked != has {
			t.Errorf("%s: takes after-edit args %v, schema declares them %v", tool.Name(), marked, has)
		}
	}
}

func TestChangedSpan(t *testing.T) {
	for _, c := range []struct {
		old, new string
		want     [2]int
	}{
		{"a\nb\nc\n", "a\nB\nc\n", [2]int{2, 2}},
		{"a\nb\nc\n", "a\nb\nx\ny\nc\n", [2]int{3, 4}},
		{"a\nb\nc\n", "a\nc\n", [2]int{2, 2}},
		{"", "x\ny\n", [2]int{1, 2}},
		{"a\nb\n", "A\nb\nB\n", [2]int{1, 3}},
	} {
		if got := changedSpan([]byte(c.old), []byte(c.new)); got != c.want {
			t.Errorf("changedSpan(%q, %q) = %v, want %v", c.old, c.new, got, c.want)
		}
	}
}
