package treesitter

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	sitter "github.com/smacker/go-tree-sitter"
)

// commentedYAML has comments inside its document, which the grammar
// aliases: a cursor started at an aliased node gives its alias to every
// extra below it, which once renamed these comments "document".
const commentedYAML = `# top
name: app
services:
  # the web server
  web:
    image: nginx # pinned below
    ports:
      - 80
  # the database
  db:
    image: postgres
---
# second document
x: 1
`

// TestWalksLikeCursor: the C walks (trees.c) give the named nodes a
// walk of the binding's TreeCursor from the root gives: hl_flatten whole
// and pruned, and hl_skeleton's walk without reuse (whose tops have no
// field). On every sample of testdata/langs.txtar and commentedYAML.
func TestWalksLikeCursor(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/langs.txtar")
	if err != nil {
		t.Fatal(err)
	}
	files := append(ar.Files, txtar.File{Name: "commented.yaml", Data: []byte(commentedYAML)})
	for _, f := range files {
		lang := LanguageFor(f.Name)
		if lang == nil {
			t.Fatalf("%s: no language", f.Name)
		}
		st, err := parseWith(context.Background(), lang, nil, f.Data)
		if err != nil {
			t.Fatal(err)
		}
		for _, prune := range []int{0, 3} {
			got, err := flatten(st, prune)
			if err != nil {
				t.Fatal(err)
			}
			if want := cursorNodes(lang, st, prune); !slices.Equal(got, want) {
				t.Errorf("%s: flatten(%d) differs from the cursor's walk:\n%s", f.Name, prune, firstDiff(lang, got, want))
			}
		}
		wb := newWalkBufs()
		got, _, err := flattenSkeleton(st, wb, false)
		switch {
		case err == errNoSkeleton:
		case err != nil:
			t.Fatal(err)
		default:
			want := cursorNodes(lang, st, 0)
			for i := range want {
				if want[i].Parent == 0 {
					want[i].Field = 0
				}
			}
			if got := slices.Clone(got); !slices.Equal(got, want) {
				t.Errorf("%s: the skeleton walk differs from the cursor's:\n%s", f.Name, firstDiff(lang, got, want))
			}
		}
		wb.free()
		st.Close()
	}
}

// cursorNodes is what hl_flatten writes, computed with the binding's
// TreeCursor from the root.
func cursorNodes(lang *Language, st *sitter.Tree, prune int) []node {
	c := sitter.NewTreeCursor(st.RootNode())
	defer c.Close()
	type open struct{ index, depth int }
	var out []node
	var stack []open
	closeTo := func(depth int) {
		for len(stack) > 0 && stack[len(stack)-1].depth >= depth {
			out[stack[len(stack)-1].index].End = uint32(len(out))
			stack = stack[:len(stack)-1]
		}
	}
	for depth := 0; ; {
		n := c.CurrentNode()
		if n.IsNamed() {
			closeTo(depth)
			parent := noParent
			if len(stack) > 0 {
				parent = uint32(stack[len(stack)-1].index)
			}
			var flags uint32
			if n.IsMissing() {
				flags |= flagMissing
			}
			if n.HasError() {
				flags |= flagError
			}
			if n.IsExtra() {
				flags |= flagExtra
			}
			sp, ep := n.StartPoint(), n.EndPoint()
			out = append(out, node{StartByte: n.StartByte(), EndByte: n.EndByte(),
				StartRow: sp.Row, StartCol: sp.Column, EndRow: ep.Row, EndCol: ep.Column,
				Parent: parent, Symbol: uint16(n.Symbol()), Field: uint16(max(0, slices.Index(lang.fields, c.CurrentFieldName()))),
				Flags: flags})
			stack = append(stack, open{len(out) - 1, depth})
		}
		if !(prune > 0 && int(n.EndPoint().Row-n.StartPoint().Row)+1 < prune) && c.GoToFirstChild() {
			depth++
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				closeTo(0)
				return out
			}
			depth--
		}
	}
}

func firstDiff(lang *Language, got, want []node) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("node %d (%s): got %+v\nwant %+v (%s)", i, lang.syms[got[i].Symbol], got[i], want[i], lang.syms[want[i].Symbol])
		}
	}
	return fmt.Sprintf("got %d nodes, want %d", len(got), len(want))
}
