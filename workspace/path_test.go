package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newWS makes a root with a few files and symlinks and opens it without a
// store. Layout:
//
//	root/a.txt
//	root/dir/b.txt
//	root/in-link -> dir          (inside)
//	root/out-link -> outside     (escapes)
//	root/dangling -> ../outside/new.txt (escapes, target missing)
//	root/dangling-in -> dir/new.txt     (inside, target missing)
func newWS(t testing.TB) (*Workspace, string, string) {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "dir"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "a.txt"), "a\n")
	write(filepath.Join(root, "dir", "b.txt"), "b\n")
	write(filepath.Join(outside, "secret.txt"), "secret\n")
	links := map[string]string{
		"in-link":     "dir",
		"out-link":    outside,
		"dangling":    "../outside/new.txt",
		"dangling-in": "dir/new.txt",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	w, err := Open(root, Options{NoStore: true, StateDir: filepath.Join(base, "state")})
	if err != nil {
		t.Fatal(err)
	}
	return w, w.Root(), outside
}

func TestResolve(t *testing.T) {
	w, root, outside := newWS(t)
	outsideReal, _ := filepath.EvalSymlinks(outside)
	tests := []struct {
		in   string
		rel  string // want Rel; "" when an error is expected
		kind string // want error kind
	}{
		{in: "a.txt", rel: "a.txt"},
		{in: "./dir/b.txt", rel: "dir/b.txt"},
		{in: "dir/../a.txt", rel: "a.txt"},
		{in: ".", rel: "."},
		{in: root, rel: "."},
		{in: filepath.Join(root, "dir", "b.txt"), rel: "dir/b.txt"},
		{in: "dir/new.txt", rel: "dir/new.txt"},               // missing file, existing dir
		{in: "newdir/sub/new.txt", rel: "newdir/sub/new.txt"}, // missing dirs
		{in: "in-link/b.txt", rel: "dir/b.txt"},               // symlink inside: resolved
		{in: "in-link/new.txt", rel: "dir/new.txt"},
		{in: "dangling-in", rel: "dir/new.txt"},
		{in: "../outside/secret.txt", kind: KindOutside},
		{in: "..", kind: KindOutside},
		{in: "dir/../../x", kind: KindOutside},
		{in: filepath.Join(outside, "secret.txt"), kind: KindOutside},
		{in: "/", kind: KindOutside},
		{in: "/etc/passwd", kind: KindOutside},
		{in: "out-link/secret.txt", kind: KindOutside},
		{in: "out-link", kind: KindOutside},
		{in: "out-link/new.txt", kind: KindOutside},
		{in: "dangling", kind: KindOutside},
		{in: "", kind: KindInvalid},
		{in: "a\x00b", kind: KindInvalid},
	}
	for _, tt := range tests {
		p, err := w.Resolve(tt.in)
		if tt.kind != "" {
			if !IsKind(err, tt.kind) {
				t.Errorf("Resolve(%q) = %+v, %v; want a %s error", tt.in, p, err, tt.kind)
				continue
			}
			if tt.kind == KindOutside && (!strings.Contains(err.Error(), root) || !strings.Contains(err.Error(), tt.in)) {
				t.Errorf("Resolve(%q) error %q should name the path and the root", tt.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Resolve(%q): %v", tt.in, err)
			continue
		}
		if p.Rel != tt.rel {
			t.Errorf("Resolve(%q).Rel = %q, want %q", tt.in, p.Rel, tt.rel)
		}
		want := filepath.Join(root, filepath.FromSlash(tt.rel))
		if p.Abs != want {
			t.Errorf("Resolve(%q).Abs = %q, want %q", tt.in, p.Abs, want)
		}
		if strings.HasPrefix(p.Abs, outsideReal) {
			t.Errorf("Resolve(%q) escaped to %s", tt.in, p.Abs)
		}
	}
}

// TestResolveUnresolvedRoot opens the root through a symlink and checks that
// absolute paths through that symlink are accepted.
func TestResolveUnresolvedRoot(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	w, err := Open(link, Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	realResolved, _ := filepath.EvalSymlinks(real)
	if w.Root() != realResolved {
		t.Fatalf("Root = %q, want %q", w.Root(), realResolved)
	}
	p, err := w.Resolve(filepath.Join(link, "x", "y.go"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Rel != "x/y.go" {
		t.Fatalf("Rel = %q", p.Rel)
	}
}

func TestOpenErrors(t *testing.T) {
	base := t.TempDir()
	if _, err := Open(filepath.Join(base, "missing"), Options{NoStore: true}); !IsKind(err, KindNotFound) {
		t.Errorf("missing root: %v", err)
	}
	f := filepath.Join(base, "file")
	os.WriteFile(f, nil, 0o644)
	if _, err := Open(f, Options{NoStore: true}); err == nil {
		t.Errorf("file as root: no error")
	}
	if _, err := Open("", Options{NoStore: true}); err == nil {
		t.Errorf("empty root: no error")
	}
}

func TestStateDir(t *testing.T) {
	t.Setenv("HASHLS_STATE_DIR", "")
	t.Setenv("XDG_STATE_HOME", "/x/state")
	if d, _ := StateDir(""); d != "/x/state/hashls" {
		t.Errorf("XDG: %q", d)
	}
	t.Setenv("HASHLS_STATE_DIR", "/y")
	if d, _ := StateDir(""); d != "/y" {
		t.Errorf("HASHLS_STATE_DIR: %q", d)
	}
	if d, _ := StateDir("/z"); d != "/z" {
		t.Errorf("explicit: %q", d)
	}
	t.Setenv("HASHLS_STATE_DIR", "")
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if d, _ := StateDir(""); d != "/home/u/.local/state/hashls" {
		t.Errorf("home: %q", d)
	}
	p := StorePath("/s", "/work/my proj")
	if !strings.HasPrefix(p, "/s/roots/my_proj-") || !strings.HasSuffix(p, ".db") || len(filepath.Base(p)) != len("my_proj-")+16+3 {
		t.Errorf("StorePath = %q", p)
	}
	if StorePath("/s", "/a/x") == StorePath("/s", "/b/x") {
		t.Errorf("StorePath must differ per root")
	}
}
