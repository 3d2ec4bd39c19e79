package langserver

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashls/hashls/internal/kinded"
	"github.com/hashls/hashls/internal/lsptest"
	"github.com/hashls/hashls/workspace"
)

func openWS(t testing.TB, root string) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Open(root, workspace.Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

func newManager(t testing.TB, root string, servers map[string]Server) *Manager {
	t.Helper()
	p := NewPool(Options{Logf: t.Logf, Servers: servers})
	t.Cleanup(p.Close)
	return p.For(openWS(t, root))
}

func ctxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestGoplsNavigation(t *testing.T) {
	lsptest.NeedGopls(t)
	root := lsptest.GoModule(t)
	m := newManager(t, root, nil)
	ctx := ctxFor(t, 60*time.Second)
	main := filepath.Join(root, "main.go")
	shapes := filepath.Join(root, "shapes", "shapes.go")

	// main.go line 11: fmt.Println(shapes.Total(...)); "Total" at byte 20.
	col := strings.Index("\tfmt.Println(shapes.Total([]shapes.Area{sq}))", "Total")
	defs, err := m.Locations(ctx, "textDocument/definition", main, Pos{Line: 11, Col: col})
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) != 1 || defs[0].Path != shapes || defs[0].Start.Line != 20 || defs[0].Start.Col != 5 {
		t.Fatalf("definition of Total = %+v, want shapes.go:20:5", defs)
	}
	refs, err := m.Locations(ctx, "textDocument/references", shapes, Pos{Line: 20, Col: 5})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range refs {
		rel, _ := filepath.Rel(root, r.Path)
		got = append(got, filepath.ToSlash(rel)+":"+strconv.Itoa(r.Start.Line))
	}
	if strings.Join(got, " ") != "main.go:11 report.go:7 shapes/shapes.go:20" {
		t.Fatalf("references of Total = %v", got)
	}
	hover, err := m.Hover(ctx, main, Pos{Line: 10, Col: strings.Index("\tsq := shapes.Square{Side: 2}", "Square")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(hover, "type Square struct") {
		t.Fatalf("hover of Square = %q", hover)
	}
	syms, err := m.DocumentSymbols(ctx, shapes)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, s := range syms {
		names[s.Name] = true
	}
	for _, want := range []string{"Area", "Square", "Total"} {
		if !names[want] {
			t.Errorf("document symbols lack %s: %+v", want, syms)
		}
	}
	ws, err := m.WorkspaceSymbols(ctx, "", "Total")
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) == 0 || ws[0].Name != "Total" || ws[0].Loc.Path != shapes {
		t.Fatalf("workspace symbols for Total = %+v", ws)
	}
}

func TestGoplsDiagnosticsAppearAndDisappear(t *testing.T) {
	lsptest.NeedGopls(t)
	root := lsptest.GoModule(t)
	m := newManager(t, root, nil)
	ctx := ctxFor(t, 60*time.Second)
	main := filepath.Join(root, "main.go")
	good, _ := os.ReadFile(main)

	diags, fresh, err := m.Diagnostics(ctx, main)
	if err != nil || !fresh || len(diags) != 0 {
		t.Fatalf("clean file: diags=%+v fresh=%v err=%v", diags, fresh, err)
	}
	bad := strings.Replace(string(good), "shapes.Square{", "shapes.Squar{", 1)
	if err := os.WriteFile(main, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	diags, fresh, err = m.Diagnostics(ctx, main)
	if err != nil || !fresh || len(diags) == 0 || diags[0].Start.Line != 10 || diags[0].Severity != "error" {
		t.Fatalf("broken file: diags=%+v fresh=%v err=%v", diags, fresh, err)
	}
	if err := os.WriteFile(main, good, 0o644); err != nil {
		t.Fatal(err)
	}
	diags, fresh, err = m.Diagnostics(ctx, main)
	if err != nil || !fresh || len(diags) != 0 {
		t.Fatalf("fixed file: diags=%+v fresh=%v err=%v", diags, fresh, err)
	}
}

func TestMissingServerNamesBinaryAndInstall(t *testing.T) {
	root := t.TempDir()
	m := newManager(t, root, map[string]Server{"zzls": {Command: []string{"hashls-no-such-zzls"}, FileTypes: []string{".zz"}, Install: "go install example.com/zzls@latest"}})
	f := filepath.Join(root, "a.zz")
	os.WriteFile(f, []byte("x\n"), 0o644)
	_, err := m.Hover(ctxFor(t, 5*time.Second), f, Pos{Line: 1})
	if !kinded.Is(err, kinded.NotFound) || !errors.Is(err, exec.ErrNotFound) || !strings.Contains(err.Error(), "hashls-no-such-zzls") || !strings.Contains(err.Error(), "go install example.com/zzls@latest") {
		t.Fatalf("err = %v", err)
	}
	_, err = m.Hover(ctxFor(t, 5*time.Second), filepath.Join(root, "b.unknownext"), Pos{Line: 1})
	if !kinded.Is(err, kinded.Usage) || !errors.Is(err, ErrNoServer) {
		t.Fatalf("unknown type: err = %v", err)
	}
}

func TestHangingServerTimesOutAndRestarts(t *testing.T) {
	hang := lsptest.HangServer(t)
	root := t.TempDir()
	m := newManager(t, root, map[string]Server{"hang": {Command: hang, FileTypes: []string{".hang"}}})
	f := filepath.Join(root, "a.hang")
	os.WriteFile(f, []byte("x\n"), 0o644)
	for i := 0; i < 2; i++ {
		// (Re)start it with time to spare (a loaded machine starts
		// processes slowly), then ask with a short timeout.
		if _, err := m.ServerFor(ctxFor(t, 30*time.Second), f); err != nil {
			t.Fatalf("call %d: starting: %v", i, err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		_, err := m.Hover(ctx, f, Pos{Line: 1})
		cancel()
		if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "hang did not answer textDocument/hover") {
			t.Fatalf("call %d: err = %v", i, err)
		}
	}
	_, st, err := m.Status()
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 1 || st[0].Restarts != 1 || st[0].Running {
		t.Fatalf("status = %+v, want one restart and the hung server stopped", st)
	}
}

func TestUTF16Conversion(t *testing.T) {
	li := newLineIndex([]byte("a€😀b\r\nx"))
	for _, c := range []struct {
		units, byteCol int
	}{{0, 0}, {1, 1}, {2, 4}, {4, 8}, {5, 9}, {9, 9}} {
		if got := li.offset(wirePos{Character: c.units}); got != c.byteCol {
			t.Errorf("utf16 %d -> byte %d, want %d", c.units, got, c.byteCol)
		}
	}
	if got := li.wire(Pos{Line: 1, Col: 8}); got.Character != 4 {
		t.Errorf("byte 8 -> utf16 %d, want 4", got.Character)
	}
	if got := li.offset(wirePos{Line: 1, Character: 1}); got != 12 {
		t.Errorf("line 2 col 1 -> %d, want 12", got)
	}
}

// TestPyrightDiagnostics drives the Node server CI installs (pyright):
// a type error appears, and disappears after the fix.
func TestPyrightDiagnostics(t *testing.T) {
	lsptest.NeedPyright(t)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "pyrightconfig.json"), []byte("{}\n"), 0o644)
	f := filepath.Join(root, "a.py")
	os.WriteFile(f, []byte("def f(x: int) -> int:\n    return x\n\nf(1)\n"), 0o644)
	m := newManager(t, root, map[string]Server{"basedpyright": {Disabled: true}})
	ctx := ctxFor(t, 60*time.Second)
	diags, fresh, err := m.Diagnostics(ctx, f)
	if err != nil || !fresh || len(diags) != 0 {
		t.Fatalf("clean: %+v %v %v", diags, fresh, err)
	}
	os.WriteFile(f, []byte("def f(x: int) -> int:\n    return x\n\nf(\"one\")\n"), 0o644)
	diags, fresh, err = m.Diagnostics(ctx, f)
	if err != nil || !fresh || len(diags) == 0 || diags[0].Start.Line != 4 || diags[0].Severity != "error" {
		t.Fatalf("broken: %+v %v %v", diags, fresh, err)
	}
	os.WriteFile(f, []byte("def f(x: int) -> int:\n    return x\n\nf(2)\n"), 0o644)
	diags, fresh, err = m.Diagnostics(ctx, f)
	if err != nil || !fresh || len(diags) != 0 {
		t.Fatalf("fixed: %+v %v %v", diags, fresh, err)
	}
}

// TestServerDiesAndIdles: a server that died is restarted on the next
// request; one idle past IdleTimeout is stopped.
func TestServerDiesAndIdles(t *testing.T) {
	hang := lsptest.HangServer(t)
	root := t.TempDir()
	f := filepath.Join(root, "a.hang")
	os.WriteFile(f, []byte("x\n"), 0o644)
	var mu sync.Mutex
	var events []string
	notify := func(level, msg string) {
		mu.Lock()
		events = append(events, level+": "+msg)
		mu.Unlock()
	}
	p := NewPool(Options{Logf: t.Logf, Notify: notify, IdleTimeout: 300 * time.Millisecond, Servers: map[string]Server{"hang": {Command: hang, FileTypes: []string{".hang"}}}})
	t.Cleanup(p.Close)
	m := p.For(openWS(t, root))
	if _, err := m.ServerFor(ctxFor(t, 30*time.Second), f); err != nil {
		t.Fatal(err)
	}
	_, st, _ := m.Status()
	proc, err := os.FindProcess(st[0].PID)
	if err != nil {
		t.Fatal(err)
	}
	proc.Kill()
	deadline := time.Now().Add(10 * time.Second)
	for m.Running(f) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := m.ServerFor(ctxFor(t, 30*time.Second), f); err != nil {
		t.Fatal(err)
	}
	if _, st, _ = m.Status(); !st[0].Running || st[0].Restarts != 1 || st[0].PID == proc.Pid {
		t.Fatalf("after the kill: %+v", st)
	}
	deadline = time.Now().Add(10 * time.Second)
	for m.Running(f) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if m.Running(f) {
		t.Fatal("the idle server was not stopped")
	}
	// What a user hears of (an MCP server's clients): started, died and
	// restarted, started, stopped when idle.
	mu.Lock()
	defer mu.Unlock()
	want := []string{"info: language server hang started", "warning: language server hang exited", "info: language server hang started", "info: language server hang stopped after"}
	if len(events) != len(want) {
		t.Fatalf("events %q, want %d", events, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(events[i], w) {
			t.Errorf("event %d %q, want %q…", i, events[i], w)
		}
	}
}
