package reparser

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/smacker/go-tree-sitter/python"
)

// TestBlockStartReuse is upstream.patch's regression test: after a letter
// is typed before the first statement of a Python function's body, the
// reparse reuses the old tree's nodes after the function (the same ids),
// about as many as after an ordinary edit in the same body. Without the
// patch it reuses none of them.
func TestBlockStartReuse(t *testing.T) {
	var b strings.Builder
	b.WriteString("def label(x):\n    parts = []\n    for p in x:\n        parts.append(p)\n    return parts\n\n")
	for i := range 50 {
		fmt.Fprintf(&b, "class C%d:\n    def m(self):\n        if self:\n            return %d\n        return 0\n\n", i, i)
	}
	text := []byte(b.String())
	after := uint32(bytes.Index(text, []byte("class C0")))
	shared := func(at int) (int, int) {
		p := New(*(*unsafe.Pointer)(unsafe.Pointer(python.GetLanguage())))
		if p == nil {
			t.Fatal("New refused the Python grammar")
		}
		defer p.Close()
		old := p.Reparse(nil, text)
		defer freeTree(old)
		was := map[uintptr]bool{}
		for _, id := range nodeIDs(old, after) {
			was[id] = true
		}
		row := bytes.Count(text[:at], []byte("\n"))
		col := at - (bytes.LastIndexByte(text[:at], '\n') + 1)
		insertEdit(old, uint32(at), 1, uint32(row), uint32(col))
		next := append(append(append([]byte{}, text[:at]...), 'x'), text[at:]...)
		tree := p.Reparse(old, next)
		if tree == nil {
			t.Fatal("no tree")
		}
		defer freeTree(tree)
		ids := nodeIDs(tree, after+1)
		n := 0
		for _, id := range ids {
			if was[id] {
				n++
			}
		}
		return n, len(ids)
	}
	blockStart, total := shared(bytes.Index(text, []byte("parts = ")))
	ordinary, _ := shared(bytes.Index(text, []byte("append(p)")))
	t.Logf("nodes after the function reused: %d of %d after a block-start edit, %d after an ordinary edit", blockStart, total, ordinary)
	if ordinary < total/2 {
		t.Fatalf("an ordinary edit reused %d of %d nodes: the test no longer measures reuse", ordinary, total)
	}
	if blockStart < ordinary*9/10 {
		t.Errorf("a block-start edit reused %d of %d nodes after it, an ordinary edit %d: upstream.patch's change is lost", blockStart, total, ordinary)
	}
}
