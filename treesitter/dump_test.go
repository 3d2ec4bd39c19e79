package treesitter

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

// dumpTree renders the named-node tree (debugging aid).
func dumpTree(t *tree, text []byte) string {
	var b strings.Builder
	var rec func(i uint32, depth int)
	rec = func(i uint32, depth int) {
		n := &t.nodes[i]
		f := t.fieldOf(i)
		if f != "" {
			f += ": "
		}
		txt := firstLine(nodeText(t, text, i))
		if len(txt) > 40 {
			txt = txt[:40]
		}
		fmt.Fprintf(&b, "%s%s%s [%d:%d-%d:%d] %q\n", strings.Repeat("  ", depth), f, t.kind(i), n.StartRow+1, n.StartCol, n.EndRow+1, n.EndCol, txt)
		t.children(i, func(c uint32) bool { rec(c, depth+1); return true })
	}
	rec(0, 0)
	return b.String()
}

// TestDump prints the tree of $TSDUMP (a file path) when set.
func TestDump(t *testing.T) {
	p := os.Getenv("TSDUMP")
	if p == "" {
		t.Skip("set TSDUMP=file to print its syntax tree")
	}
	text, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := parse(context.Background(), LanguageFor(p), text)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Print(dumpTree(tr, text))
}
