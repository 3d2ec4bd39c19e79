package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashls/hashls/internal/lsptest"
	"github.com/hashls/hashls/langserver"
	"github.com/hashls/hashls/treesitter"
	"github.com/hashls/hashls/workspace"
)

// lspEnv is a tool set over a fresh copy of the test Go module with a
// language-server pool.
type lspEnv struct {
	ws *workspace.Workspace
	ts *Toolset
}

func newLSPEnv(t testing.TB, servers map[string]langserver.Server) *lspEnv {
	t.Helper()
	return newLSPEnvIn(t, lsptest.GoModule(t), servers)
}

// newLSPEnvIn is newLSPEnv over root.
func newLSPEnvIn(t testing.TB, root string, servers map[string]langserver.Server) *lspEnv {
	t.Helper()
	ws, err := workspace.Open(root, workspace.Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	pool := langserver.NewPool(langserver.Options{Logf: t.Logf, Servers: servers})
	t.Cleanup(pool.Close)
	return &lspEnv{ws: ws, ts: New(Deps{WS: ws, Resolver: &treesitter.Resolver{}, LangServers: pool})}
}

func (e *lspEnv) run(t testing.TB, tool string, args map[string]any) *Result {
	t.Helper()
	res, err := e.try(tool, args)
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	return res
}

func (e *lspEnv) try(tool string, args map[string]any) (*Result, error) {
	raw, _ := json.Marshal(args)
	return e.ts.Run(context.Background(), tool, raw, Call{Transport: "test"})
}

func (e *lspEnv) file(t testing.TB, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.ws.Root(), rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLSPToolNavigation(t *testing.T) {
	lsptest.NeedGopls(t)
	e := newLSPEnv(t, nil)
	res := e.run(t, "lsp", map[string]any{"action": "references", "file": "shapes/shapes.go", "line": 20, "symbol": "Total"})
	for _, want := range []string{"Found 3 references:", "¶main.go#", "*11:\tfmt.Println(shapes.Total([]shapes.Area{sq}))", "¶report.go#", "*7:", "¶shapes/shapes.go#", "*20:func Total(shapes []Area) float64 {"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("references lack %q:\n%s", want, res.Text)
		}
	}
	if len(res.Shown) != 3 {
		t.Errorf("shown = %+v", res.Shown)
	}
	// The rows are editable: an edit under the anchor the result minted.
	var anchor string
	for _, s := range res.Shown {
		if s.Path == "report.go" {
			anchor = "¶report.go#" + s.Tag
		}
	}
	e.run(t, "edit", map[string]any{"input": anchor + "\nreplace 7..7:\n\treturn shapes.Total(nil)\n"})
	if got := e.file(t, "report.go"); !strings.Contains(got, "return shapes.Total(nil)") {
		t.Errorf("edit from the references anchor did not land:\n%s", got)
	}

	res = e.run(t, "lsp", map[string]any{"action": "definition", "file": "main.go", "line": 10, "symbol": "Square"})
	if !strings.Contains(res.Text, "Found 1 definition:") || !strings.Contains(res.Text, "*10:type Square struct {") {
		t.Errorf("definition:\n%s", res.Text)
	}
	res = e.run(t, "lsp", map[string]any{"action": "hover", "file": "main.go", "line": 10, "symbol": "Square"})
	if !strings.Contains(res.Text, "type Square struct") {
		t.Errorf("hover:\n%s", res.Text)
	}
	res = e.run(t, "lsp", map[string]any{"action": "implementation", "file": "shapes/shapes.go", "line": 5, "symbol": "Area"})
	if !strings.Contains(res.Text, "*10:type Square struct {") {
		t.Errorf("implementation:\n%s", res.Text)
	}
	res = e.run(t, "lsp", map[string]any{"action": "symbols", "file": "shapes/shapes.go"})
	if !strings.Contains(res.Text, "function Total") || !strings.Contains(res.Text, "struct Square") {
		t.Errorf("document symbols:\n%s", res.Text)
	}
	res = e.run(t, "lsp", map[string]any{"action": "symbols", "query": "Total"})
	if !strings.Contains(res.Text, "Total") || !strings.Contains(res.Text, "shapes/shapes.go:20") {
		t.Errorf("workspace symbols:\n%s", res.Text)
	}
	res = e.run(t, "lsp", map[string]any{"action": "status"})
	if !strings.Contains(res.Text, "gopls [") || !strings.Contains(res.Text, "running (pid") {
		t.Errorf("status:\n%s", res.Text)
	}
	if _, err := e.try("lsp", map[string]any{"action": "hover", "file": "main.go", "line": 10, "symbol": "Nope"}); err == nil || KindOf(err) != KindUsage || !strings.Contains(err.Error(), `symbol "Nope" is not on line 10`) {
		t.Errorf("missing symbol: %v", err)
	}
}

// TestLSPRenameAcrossFiles: a rename lands in every file at once through
// the commit path (audited, trashed), after a preview that writes nothing.
func TestLSPRenameAcrossFiles(t *testing.T) {
	lsptest.NeedGopls(t)
	e := newLSPEnv(t, nil)
	before := e.file(t, "main.go")
	res := e.run(t, "lsp_edit", map[string]any{"action": "rename", "file": "shapes/shapes.go", "line": 20, "symbol": "Total", "newName": "Sum", "apply": false})
	if !strings.Contains(res.Text, "Rename preview (4 edits in 3 files") || !strings.Contains(res.Text, "+\tfmt.Println(shapes.Sum(") {
		t.Errorf("preview:\n%s", res.Text)
	}
	if e.file(t, "main.go") != before {
		t.Fatal("the preview wrote")
	}
	res = e.run(t, "lsp_edit", map[string]any{"action": "rename", "file": "shapes/shapes.go", "line": 20, "symbol": "Total", "newName": "Sum"})
	if len(res.Changes) != 3 {
		t.Fatalf("changes = %+v\n%s", res.Changes, res.Text)
	}
	for rel, want := range map[string]string{"main.go": "shapes.Sum([]shapes.Area{sq})", "report.go": "return shapes.Sum(", "shapes/shapes.go": "func Sum(shapes []Area)"} {
		if got := e.file(t, rel); !strings.Contains(got, want) || strings.Contains(got, "Total(") {
			t.Errorf("%s after rename:\n%s", rel, got)
		}
	}
	log, err := e.ws.Store().AuditLog(10)
	if err != nil || len(log) != 3 {
		t.Errorf("audit rows = %d (%v), want 3", len(log), err)
	}
	// The server saw the change: the module still builds.
	res = e.run(t, "lsp", map[string]any{"action": "diagnostics", "file": "**/*.go"})
	if strings.Contains(res.Text, "error") {
		t.Errorf("diagnostics after the rename:\n%s", res.Text)
	}
}

// TestLSPRenameOpenDocument: a file open in the editor is renamed in its
// buffer (through the editor), not on disk.
func TestLSPRenameOpenDocument(t *testing.T) {
	lsptest.NeedGopls(t)
	e := newLSPEnv(t, nil)
	ed := &recordingEditor{ws: e.ws}
	e.ws.SetBufferEditor(ed)
	p, err := e.ws.Resolve("main.go")
	if err != nil {
		t.Fatal(err)
	}
	disk := e.file(t, "main.go")
	buffer := strings.Replace(disk, "sq := shapes.Square{Side: 2}", "sq := shapes.Square{Side: 5} // unsaved", 1)
	e.ws.SetOverlay(p, []byte(buffer), 3)
	res := e.run(t, "lsp_edit", map[string]any{"action": "rename", "file": "shapes/shapes.go", "line": 20, "symbol": "Total", "newName": "Sum"})
	if len(ed.edits) != 1 || !strings.HasPrefix(ed.edits[0], "main.go: ") || !strings.Contains(ed.edits[0], "shapes.Sum(") || !strings.Contains(ed.edits[0], "// unsaved") {
		t.Fatalf("editor edits = %q\n%s", ed.edits, res.Text)
	}
	if e.file(t, "main.go") != disk {
		t.Error("the open document was written on disk")
	}
	if !strings.Contains(res.Text, "(open in the editor: applied to its buffer)") {
		t.Errorf("text:\n%s", res.Text)
	}
	if got := e.file(t, "report.go"); !strings.Contains(got, "shapes.Sum(") {
		t.Errorf("report.go:\n%s", got)
	}
}

// TestDiagnosticsAfterEdit: an edit that breaks the build reports the new
// error on the line it touched; the fix reports nothing new.
func TestDiagnosticsAfterEdit(t *testing.T) {
	lsptest.NeedGopls(t)
	e := newLSPEnv(t, nil)
	read := e.run(t, "read", map[string]any{"path": "main.go:10"})
	anchor := strings.SplitN(read.Text, "\n", 2)[0]
	res := e.run(t, "edit", map[string]any{"input": anchor + "\nreplace 10..10:\n\tsq := shapes.Squar{Side: 2}\n", "diagnostics": 20000})
	if res.Diagnostics == nil || len(res.Diagnostics.Touched) == 0 || res.Diagnostics.Touched[0].Line != 10 || !strings.Contains(res.Text, "On the lines you changed:\nmain.go:10:") {
		t.Fatalf("breaking edit: %+v\n%s", res.Diagnostics, res.Text)
	}
	// Collateral: renaming Square's field breaks the other files.
	e.run(t, "write", map[string]any{"path": "main.go", "content": strings.Replace(e.file(t, "main.go"), "Squar{", "Square{", 1)})
	src := e.file(t, "shapes/shapes.go")
	res = e.run(t, "write", map[string]any{"path": "shapes/shapes.go", "content": strings.Replace(src, "\tSide float64", "\tEdge float64", 1), "diagnostics": 20000})
	if res.Diagnostics == nil || len(res.Diagnostics.Elsewhere) == 0 {
		t.Fatalf("collateral: %+v\n%s", res.Diagnostics, res.Text)
	}
	res = e.run(t, "write", map[string]any{"path": "shapes/shapes.go", "content": src, "diagnostics": 20000})
	if res.Diagnostics == nil || len(res.Diagnostics.Touched)+len(res.Diagnostics.Elsewhere) != 0 || !strings.Contains(res.Text, "Diagnostics: no new problems") {
		t.Fatalf("fix: %+v\n%s", res.Diagnostics, res.Text)
	}
}

// TestLSPToolMissingServer: a server that is not installed is named, with
// how to install it.
func TestLSPToolMissingServer(t *testing.T) {
	e := newLSPEnv(t, map[string]langserver.Server{"gopls": {Command: []string{"hashls-no-such-gopls"}}})
	_, err := e.try("lsp", map[string]any{"action": "hover", "file": "main.go", "line": 10})
	if err == nil || KindOf(err) != KindNotFound || !strings.Contains(err.Error(), `"hashls-no-such-gopls" was not found`) || !strings.Contains(err.Error(), "go install golang.org/x/tools/gopls@latest") {
		t.Fatalf("err = %v", err)
	}
}

// TestLSPWorkspaceDiagnosticsAndRenameFile: "*" reports an error in a file
// no call opened; rename_file moves a file through the commit path.
func TestLSPWorkspaceDiagnosticsAndRenameFile(t *testing.T) {
	lsptest.NeedGopls(t)
	e := newLSPEnv(t, nil)
	if err := os.WriteFile(filepath.Join(e.ws.Root(), "report.go"), []byte(strings.Replace(e.file(t, "report.go"), "shapes.Total(", "shapes.Totl(", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	res := e.run(t, "lsp", map[string]any{"action": "diagnostics", "file": "*"})
	if !strings.Contains(res.Text, "report.go:7:") || !strings.Contains(res.Text, "Totl") {
		t.Errorf("workspace diagnostics:\n%s", res.Text)
	}
	res = e.run(t, "lsp_edit", map[string]any{"action": "rename_file", "file": "shapes/shapes.go", "newName": "shapes/geometry.go"})
	if _, err := os.Stat(filepath.Join(e.ws.Root(), "shapes", "shapes.go")); !os.IsNotExist(err) {
		t.Errorf("source still there: %v\n%s", err, res.Text)
	}
	if got := e.file(t, "shapes/geometry.go"); !strings.Contains(got, "func Total(") {
		t.Errorf("moved file:\n%s", got)
	}
	if !strings.Contains(res.Text, "(moved from shapes/shapes.go)") {
		t.Errorf("text:\n%s", res.Text)
	}
}

// TestLSPRenameOtherServers: a rename through the lsp tool lands in both
// files through the commit path with typescript-language-server and clangd
// too; and an edit that breaks the build reports the new error.
func TestLSPRenameOtherServers(t *testing.T) {
	for _, c := range []struct {
		name, project string
		need          func(testing.TB)
		// open is diagnosed first (clangd renames across the files in its
		// index: with compile_flags.txt, the open ones).
		open, file, symbol string
		line               int
		want               map[string]string
		breakFile, from    string
		to                 string
	}{
		{name: "typescript-language-server", project: "tsproj", need: lsptest.NeedTypeScript,
			open: "b.ts", file: "a.ts", line: 1, symbol: "total",
			want:      map[string]string{"a.ts": "export function sum(", "b.ts": "const n: number = sum([1, 2]);"},
			breakFile: "b.ts", from: "const n: number", to: "const n: string"},
		{name: "clangd", project: "cproj", need: lsptest.NeedClangd,
			open: "main.c", file: "total.h", line: 4, symbol: "total",
			want:      map[string]string{"total.h": "static inline int sum(int a", "main.c": "  return sum(1, 2);"},
			breakFile: "main.c", from: "sum(1, 2)", to: "sum(1)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.need(t)
			e := newLSPEnvIn(t, lsptest.Project(t, c.project), nil)
			res := e.run(t, "lsp", map[string]any{"action": "diagnostics", "file": c.open, "timeout": 60})
			if !strings.Contains(res.Text, "OK") {
				t.Fatalf("%s is not clean:\n%s", c.open, res.Text)
			}
			res = e.run(t, "lsp_edit", map[string]any{"action": "rename", "file": c.file, "line": c.line, "symbol": c.symbol, "newName": "sum", "timeout": 60})
			if len(res.Changes) != len(c.want) {
				t.Fatalf("changes = %+v\n%s", res.Changes, res.Text)
			}
			for rel, want := range c.want {
				if got := e.file(t, rel); !strings.Contains(got, want) || strings.Contains(got, "total(") {
					t.Errorf("%s after the rename:\n%s", rel, got)
				}
			}
			if log, err := e.ws.Store().AuditLog(10); err != nil || len(log) != len(c.want) {
				t.Errorf("audit rows = %d (%v), want %d", len(log), err, len(c.want))
			}
			src := e.file(t, c.breakFile)
			res = e.run(t, "write", map[string]any{"path": c.breakFile, "content": strings.Replace(src, c.from, c.to, 1), "diagnostics": 30000})
			if res.Diagnostics == nil || len(res.Diagnostics.Touched) == 0 || res.Diagnostics.Touched[0].Severity != "error" {
				t.Fatalf("breaking write: %+v\n%s", res.Diagnostics, res.Text)
			}
			res = e.run(t, "write", map[string]any{"path": c.breakFile, "content": src, "diagnostics": 30000})
			if res.Diagnostics == nil || len(res.Diagnostics.Touched)+len(res.Diagnostics.Elsewhere) != 0 {
				t.Fatalf("fix: %+v\n%s", res.Diagnostics, res.Text)
			}
		})
	}
}
