package reparser

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/smacker/go-tree-sitter/golang"
)

func goLanguage() unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(golang.GetLanguage()))
}

// TestParseAndCancel: a parser parses (old may be nil), a cancelled parse
// returns nil, and New refuses no language.
func TestParseAndCancel(t *testing.T) {
	if New(nil) != nil {
		t.Error("New(nil) gave a parser")
	}
	p := New(goLanguage())
	if p == nil {
		t.Fatal("New refused the Go grammar")
	}
	text := []byte("package p\n\nfunc f() {}\n")
	tree := p.Reparse(nil, text)
	if tree == nil {
		t.Fatal("no tree")
	}
	freeTree(tree)
	p.Close()
	p.Close() // twice is harmless

	p = New(goLanguage())
	defer p.Close()
	p.Cancel()
	if tree := p.Reparse(nil, []byte(strings.Repeat("func f() { x := 1; _ = x }\n", 20000))); tree != nil {
		freeTree(tree)
		t.Error("a cancelled parse gave a tree")
	}
}
