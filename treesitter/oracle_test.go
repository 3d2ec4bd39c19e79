package treesitter

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// goSample returns about n .go files of GOROOT/src, spread evenly.
func goSample(t *testing.T, n int) []string {
	t.Helper()
	root := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("GOROOT source not available: %v", err)
	}
	var all []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			all = append(all, p)
		}
		return nil
	})
	sort.Strings(all)
	if len(all) <= n {
		return all
	}
	step := len(all) / n
	var out []string
	for i := 0; i < len(all) && len(out) < n; i += step {
		out = append(out, all[i])
	}
	return out
}

// TestGoOracle checks block resolution against go/ast: every top-level
// func, method and type declaration (and each spec of a grouped type
// declaration), pointed at by its first line, resolves to exactly the span
// go/ast gives.
func TestGoOracle(t *testing.T) {
	files := goSample(t, 260)
	checked, decls, skipped := 0, 0, 0
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			skipped++
			continue
		}
		tr, err := parse(t.Context(), LanguageByName("go"), src)
		if err != nil {
			t.Fatal(err)
		}
		if tr.hasError() {
			skipped++ // syntax this grammar version does not know
			continue
		}
		checked++
		type want struct{ line, start, end int }
		var wants []want
		lineCount := map[int]int{}
		add := func(from, to token.Pos) {
			s, e := fset.Position(from).Line, fset.Position(to-1).Line
			wants = append(wants, want{s, s, e})
			lineCount[s]++
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				add(d.Pos(), d.End())
			case *ast.GenDecl:
				if d.Tok != token.TYPE {
					continue
				}
				add(d.Pos(), d.End())
				if d.Lparen.IsValid() {
					for _, s := range d.Specs {
						add(s.Pos(), s.End())
					}
				}
			}
		}
		for _, w := range wants {
			if lineCount[w.line] > 1 {
				continue // two declarations start on one line
			}
			decls++
			s, e, ok := DefaultResolver.BlockRange(path, string(src), w.line)
			if !ok || s != w.start || e != w.end {
				t.Errorf("%s:%d: block %d-%d ok=%v, go/ast says %d-%d", path, w.line, s, e, ok, w.start, w.end)
			}
		}
	}
	t.Logf("checked %d files (%d skipped), %d declarations", checked, skipped, decls)
	if checked < 200 {
		t.Errorf("only %d files checked, want ≥ 200", checked)
	}
}

// TestPythonOracle checks block resolution of every def and class (with
// and without decorators, nested ones included) against Python's own ast
// over a sample of the standard library. Skipped without python3.
func TestPythonOracle(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	out, err := exec.Command(py, "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])").Output()
	if err != nil {
		t.Skipf("python3 stdlib path: %v", err)
	}
	lib := strings.TrimSpace(string(out))
	var all []string
	filepath.WalkDir(lib, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "test" || d.Name() == "tests" || d.Name() == "site-packages" || d.Name() == "idlelib" || strings.HasPrefix(d.Name(), "lib2to3")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".py") {
			all = append(all, p)
		}
		return nil
	})
	sort.Strings(all)
	var files []string
	for i := 0; i < len(all); i += max(1, len(all)/120) {
		files = append(files, all[i])
	}
	if len(files) < 50 {
		t.Skipf("only %d stdlib files found", len(files))
	}
	raw, err := exec.Command(py, append([]string{"testdata/pyoracle.py"}, files...)...).Output()
	if err != nil {
		t.Fatalf("pyoracle.py: %v", err)
	}
	var res []struct {
		File  string   `json:"file"`
		Spans [][3]int `json:"spans"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	checked, defs, skipped, bad, trailing := 0, 0, 0, 0, 0
	for _, r := range res {
		src, err := os.ReadFile(r.File)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := parse(t.Context(), LanguageByName("python"), src)
		if err != nil {
			t.Fatal(err)
		}
		if tr.hasError() {
			skipped++
			continue
		}
		checked++
		for _, w := range r.Spans {
			defs++
			s, e, ok := DefaultResolver.BlockRange(r.File, string(src), w[0])
			if ok && s == w[1] && e > w[2] && onlyComments(src, w[2]+1, e) {
				trailing++ // tree-sitter keeps indented trailing comments in the body; ast drops comments
				continue
			}
			if !ok || s != w[1] || e != w[2] {
				bad++
				if bad <= 20 {
					t.Errorf("%s:%d: block %d-%d ok=%v, ast says %d-%d", r.File, w[0], s, e, ok, w[1], w[2])
				}
			}
		}
	}
	t.Logf("checked %d files (%d skipped), %d defs/classes, %d mismatches, %d ending in trailing comments", checked, skipped, defs, bad, trailing)
	if checked < 50 {
		t.Errorf("only %d files checked", checked)
	}
}

// onlyComments reports whether lines from..to (1-based) are blank or
// Python comments.
func onlyComments(src []byte, from, to int) bool {
	for l := from; l <= to; l++ {
		ln, ok := lineAt(src, l)
		if !ok {
			return false
		}
		s := strings.TrimSpace(string(ln))
		if s != "" && !strings.HasPrefix(s, "#") {
			return false
		}
	}
	return true
}
