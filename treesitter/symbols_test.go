package treesitter

import (
	"context"
	"strings"
	"testing"
)

const goSymbolsSrc = `package p

import (
	"fmt"
	"os"
)

// Doc comment
// over several
// lines.
type Point struct {
	X, Y int
}

type Shape interface {
	Area() float64
}

const Limit = 10

func (p *Point) Move(dx int) {
	p.X += dx
	fmt.Println(p, os.Args)
}

func main() {
	x := 1
	_ = x
}
`

func TestDocumentSymbolsGo(t *testing.T) {
	syms, err := DocumentSymbols(context.Background(), "p.go", []byte(goSymbolsSrc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range syms {
		got = append(got, s.Kind+" "+s.Name)
		sel := goSymbolsSrc[s.Selection.Start:s.Selection.End]
		if sel != s.Name {
			t.Errorf("%s: selection %q is not the name", s.Name, sel)
		}
		if s.Range.Start > s.Selection.Start || s.Range.End < s.Selection.End {
			t.Errorf("%s: selection outside range", s.Name)
		}
	}
	want := "struct Point|interface Shape|constant Limit|method Move|function main"
	if strings.Join(got, "|") != want {
		t.Errorf("symbols = %s, want %s", strings.Join(got, "|"), want)
	}
	if len(syms) > 0 && (len(syms[0].Children) != 2 || syms[0].Children[0].Name != "X") {
		t.Errorf("Point children = %+v", syms[0].Children)
	}
	if len(syms) > 3 && syms[3].Detail != "func (p *Point) Move(dx int) {" {
		t.Errorf("Move detail = %q", syms[3].Detail)
	}
	// Locals are not in the outline.
	for _, s := range syms {
		if s.Name == "main" && len(s.Children) != 0 {
			t.Errorf("main has children %+v", s.Children)
		}
	}
}

func TestDocumentSymbolsMainLanguages(t *testing.T) {
	tests := []struct {
		path, src, want string
	}{
		{"a.py", "import os\n\nclass A:\n    def m(self):\n        pass\n\n@dec\ndef f():\n    x = 1\n", "class A[method m]|function f"},
		{"a.ts", "interface I { a: number }\nexport class C {\n  m(): void {}\n}\nconst f = () => 1;\nlet v = 2;\n", "interface I[property a]|class C[method m]|function f|variable v"},
		{"a.rs", "struct S { a: u8 }\nimpl S { fn new() -> S { S { a: 0 } } }\nenum E { A, B }\ntrait T { fn t(&self); }\n", "struct S[field a]|object impl S[method new]|enum E[enummember A,enummember B]|interface T[method t]"},
		{"A.java", "class A {\n  int x;\n  A() {}\n  void m() {}\n}\n", "class A[field x,constructor A,method m]"},
		{"a.rb", "module M\n  class C\n    def m; end\n  end\nend\n", "module M[class C[method m]]"},
		{"a.c", "struct s { int a; };\nint f(void) { return 0; }\n", "struct s[field a]|function f"},
		{"a.cpp", "namespace n {\nclass C { void m(); };\n}\n", "namespace n[class C[method m]]"},
	}
	for _, tc := range tests {
		syms, err := DocumentSymbols(context.Background(), tc.path, []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if got := renderSyms(syms); got != tc.want {
			t.Errorf("%s: symbols = %s, want %s", tc.path, got, tc.want)
		}
	}
}

func renderSyms(syms []Symbol) string {
	var parts []string
	for _, s := range syms {
		p := s.Kind + " " + s.Name
		if len(s.Children) > 0 {
			var kids []string
			for _, c := range s.Children {
				kids = append(kids, renderSyms([]Symbol{c}))
			}
			p += "[" + strings.Join(kids, ",") + "]"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "|")
}

func TestFoldingRangesGo(t *testing.T) {
	folds, err := FoldingRanges(context.Background(), "p.go", []byte(goSymbolsSrc))
	if err != nil {
		t.Fatal(err)
	}
	want := map[FoldingRange]bool{
		{StartRow: 2, EndRow: 5, Kind: "imports"}:  true,
		{StartRow: 7, EndRow: 9, Kind: "comment"}:  true,
		{StartRow: 10, EndRow: 12, Kind: "region"}: true,
		{StartRow: 20, EndRow: 23, Kind: "region"}: true,
	}
	for _, f := range folds {
		delete(want, f)
		if f.EndRow <= f.StartRow {
			t.Errorf("empty fold %+v", f)
		}
	}
	for f := range want {
		t.Errorf("missing fold %+v in %+v", f, folds)
	}
}

func TestSelectionRanges(t *testing.T) {
	src := []byte(goSymbolsSrc)
	off := strings.Index(goSymbolsSrc, "dx\n") // the dx in p.X += dx
	chains, err := SelectionRanges(context.Background(), "p.go", src, []int{off, 0, len(src), -1})
	if err != nil {
		t.Fatal(err)
	}
	c := chains[0]
	if len(c) < 4 {
		t.Fatalf("chain too short: %+v", c)
	}
	if string(src[c[0].Start:c[0].End]) != "dx" {
		t.Errorf("innermost = %q, want dx", src[c[0].Start:c[0].End])
	}
	for i := 1; i < len(c); i++ {
		if c[i].Start > c[i-1].Start || c[i].End < c[i-1].End || (c[i].Start == c[i-1].Start && c[i].End == c[i-1].End) {
			t.Errorf("range %d %+v does not strictly enclose %+v", i, c[i], c[i-1])
		}
	}
	if last := c[len(c)-1]; last.Start != 0 || last.End != len(src) {
		t.Errorf("outermost = %+v, want the file", last)
	}
	if len(chains[1]) == 0 || len(chains[2]) == 0 {
		t.Errorf("offsets 0 and EOF should have chains: %v %v", chains[1], chains[2])
	}
	if len(chains[3]) != 0 {
		t.Errorf("negative offset should have no chain")
	}
}
