package langserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashls/hashls/internal/lsptest"
)

// serverCase is one real server driven through the same checks as gopls:
// diagnostics appear after a breaking edit and disappear after the fix,
// definition, and a rename across two files.
type serverCase struct {
	name    string
	need    func(testing.TB)
	project string // in internal/lsptest/testdata
	servers map[string]Server

	// file's line breakLine holds from; replacing it by to breaks the build.
	breakFile, from, to string
	breakLine           int

	// The definition of defSym on line defLine of defFile is on line
	// wantLine of wantFile.
	defFile, defSym    string
	defLine            int
	wantFile           string
	wantLine, wantCol0 int

	// Renaming defSym at its definition (wantFile, wantLine) to newName
	// edits every file of renamed.
	newName string
	renamed []string
}

var serverCases = []serverCase{
	{
		name: "typescript-language-server", need: lsptest.NeedTypeScript, project: "tsproj",
		breakFile: "b.ts", from: "const n: number = total([1, 2]);", to: "const n: string = total([1, 2]);", breakLine: 3,
		defFile: "b.ts", defSym: "total", defLine: 3, wantFile: "a.ts", wantLine: 1, wantCol0: strings.Index("export function total(", "total"),
		newName: "sum", renamed: []string{"a.ts", "b.ts"},
	},
	{
		name: "clangd", need: lsptest.NeedClangd, project: "cproj",
		breakFile: "main.c", from: "  return total(1, 2);", to: "  return total(1);", breakLine: 4,
		defFile: "main.c", defSym: "total", defLine: 4, wantFile: "total.h", wantLine: 4, wantCol0: strings.Index("static inline int total(", "total"),
		newName: "sum", renamed: []string{"main.c", "total.h"},
	},
	{
		name: "rust-analyzer", need: lsptest.NeedRustAnalyzer, project: "rsproj",
		breakFile: "src/main.rs", from: "    let n: i32 = total::total(1, 2);", to: "    let n: i32 = total::total(1);", breakLine: 4,
		defFile: "src/main.rs", defSym: "total(", defLine: 4, wantFile: "src/total.rs", wantLine: 1, wantCol0: strings.Index("pub fn total(", "total"),
		newName: "sum", renamed: []string{"src/main.rs", "src/total.rs"},
	},
}

// TestLangServers runs serverCases: every server CI installs must pass
// them (rust-analyzer, which CI cannot install, skips).
func TestLangServers(t *testing.T) {
	for _, sc := range serverCases {
		t.Run(sc.name, func(t *testing.T) {
			sc.need(t)
			root := lsptest.Project(t, sc.project)
			m := newManager(t, root, sc.servers)
			ctx := ctxFor(t, 90*time.Second)
			abs := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
			if name, err := m.ServerFor(ctx, abs(sc.breakFile)); err != nil || name != sc.name {
				t.Fatalf("server for %s = %q, %v; want %s", sc.breakFile, name, err, sc.name)
			}

			// Diagnostics: clean, broken on the line, clean again.
			f := abs(sc.breakFile)
			good, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			diags, fresh, err := m.Diagnostics(ctx, f)
			if err != nil || !fresh || len(errorsOf(diags)) != 0 {
				t.Fatalf("clean: diags=%+v fresh=%v err=%v", diags, fresh, err)
			}
			bad := strings.Replace(string(good), sc.from, sc.to, 1)
			if bad == string(good) {
				t.Fatalf("%s lacks %q", sc.breakFile, sc.from)
			}
			os.WriteFile(f, []byte(bad), 0o644)
			diags, fresh, err = m.Diagnostics(ctx, f)
			if errs := errorsOf(diags); err != nil || !fresh || len(errs) == 0 || errs[0].Start.Line != sc.breakLine {
				t.Fatalf("broken: diags=%+v fresh=%v err=%v; want an error on line %d", diags, fresh, err, sc.breakLine)
			}
			os.WriteFile(f, good, 0o644)
			diags, fresh, err = m.Diagnostics(ctx, f)
			if err != nil || !fresh || len(errorsOf(diags)) != 0 {
				t.Fatalf("fixed: diags=%+v fresh=%v err=%v", diags, fresh, err)
			}

			// Definition.
			at := symbolPos(t, abs(sc.defFile), sc.defLine, sc.defSym)
			defs, err := m.Locations(ctx, "textDocument/definition", abs(sc.defFile), at)
			if err != nil {
				t.Fatal(err)
			}
			if len(defs) != 1 || defs[0].Path != abs(sc.wantFile) || defs[0].Start.Line != sc.wantLine || defs[0].Start.Col != sc.wantCol0 {
				t.Fatalf("definition = %+v, want %s:%d:%d", defs, sc.wantFile, sc.wantLine, sc.wantCol0)
			}

			// Rename across files: the edit names every file, each file's
			// new text has the new name and not the old.
			we, err := m.Rename(ctx, abs(sc.wantFile), Pos{Line: sc.wantLine, Col: sc.wantCol0}, sc.newName)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			old := strings.TrimSuffix(sc.defSym, "(")
			for _, fs := range we.Files() {
				rel, _ := filepath.Rel(root, fs.Path)
				got = append(got, filepath.ToSlash(rel))
				if !strings.Contains(string(fs.New), sc.newName+"(") || strings.Contains(string(fs.New), old+"(") {
					t.Errorf("%s after the rename:\n%s", rel, fs.New)
				}
			}
			if strings.Join(got, " ") != strings.Join(sc.renamed, " ") {
				t.Fatalf("rename edits %v, want %v", got, sc.renamed)
			}
		})
	}
}

// errorsOf keeps the errors (servers also publish hints and warnings,
// e.g. unused code).
func errorsOf(ds []Diagnostic) []Diagnostic {
	var out []Diagnostic
	for _, d := range ds {
		if d.Severity == "error" {
			out = append(out, d)
		}
	}
	return out
}

// symbolPos is the position of the last sym on line (1-based) of path.
func symbolPos(t *testing.T, path string, line int, sym string) Pos {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	if line > len(lines) || !strings.Contains(lines[line-1], sym) {
		t.Fatalf("%s:%d lacks %q", path, line, sym)
	}
	return Pos{Line: line, Col: strings.LastIndex(lines[line-1], sym)}
}
