package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The house's bounds on a function (non-test code): its lines, and its
// cyclomatic complexity as gocyclo counts it.
const (
	maxFuncLines      = 100
	maxFuncComplexity = 30
)

// TestFunctionsShortOrExplained holds every function of the module's
// non-test, non-generated Go code to 100 lines and a cyclomatic complexity
// of 30, unless its doc comment says why its length is earned in a line
// starting "Long:". With -v it lists the functions that are over and
// their reasons.
func TestFunctionsShortOrExplained(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "node_modules", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			lines := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			cc := complexity(fd)
			if lines <= maxFuncLines && cc <= maxFuncComplexity {
				continue
			}
			where := fset.Position(fd.Pos()).String()
			why := longReason(fd.Doc)
			if why == "" {
				t.Errorf("%s: %s has %d lines and complexity %d (bounds %d and %d): shorten it, or say why its length is earned in a doc comment line starting \"Long:\"", where, funcName(fd), lines, cc, maxFuncLines, maxFuncComplexity)
				continue
			}
			t.Logf("%s: %s, %d lines, complexity %d: %s", where, funcName(fd), lines, cc, why)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// longReason is the text after "Long:" in doc, with the lines that follow
// it in the same paragraph.
func longReason(doc *ast.CommentGroup) string {
	if doc == nil {
		return ""
	}
	text := doc.Text()
	i := strings.Index(text, "Long:")
	if i < 0 || (i > 0 && text[i-1] != '\n') {
		return ""
	}
	why, _, _ := strings.Cut(text[i+len("Long:"):], "\n\n")
	return strings.Join(strings.Fields(why), " ")
}

// complexity is gocyclo's count: 1, plus one for each if, for, range,
// non-default case and communication clause, && and ||.
func complexity(fd *ast.FuncDecl) int {
	c := 1
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if n.List != nil {
				c++
			}
		case *ast.CommClause:
			if n.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}
