package workspace

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hashls/hashls/internal/testsys"
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
		if !testsys.SymlinksWork() {
			break // the tests that use them call needSymlinks
		}
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	w, err := Open(root, Options{NoStore: true, StateDir: filepath.Join(base, "state")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() }) // its root is open (on Windows it cannot be removed until closed)
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
		{in: "/", kind: rootedKind},
		{in: "/etc/passwd", kind: rootedKind},
		{in: "out-link/secret.txt", kind: KindOutside},
		{in: "out-link", kind: KindOutside},
		{in: "out-link/new.txt", kind: KindOutside},
		{in: "dangling", kind: KindOutside},
		{in: "", kind: KindInvalid},
		{in: "a\x00b", kind: KindInvalid},
	}
	for _, tt := range tests {
		if strings.Contains(tt.in, "link") || strings.HasPrefix(tt.in, "dangling") {
			if !testsys.SymlinksWork() {
				continue // needSymlinks says why
			}
		}
		p, err := w.Resolve(tt.in)
		if tt.kind != "" {
			if !IsKind(err, tt.kind) {
				t.Errorf("Resolve(%q) = %+v, %v; want a %s error", tt.in, p, err, tt.kind)
				continue
			}
			if tt.kind == KindOutside && (!strings.Contains(err.Error(), root) || !strings.Contains(err.Error(), filepath.FromSlash(tt.in))) {
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
	needSymlinks(t)
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
	tmp := t.TempDir() // absolute on every OS ("/x" is not absolute on Windows)
	y, z := filepath.Join(tmp, "y"), filepath.Join(tmp, "z")
	t.Setenv("HASHLS_STATE_DIR", y)
	if d, _ := StateDir(""); d != y {
		t.Errorf("HASHLS_STATE_DIR: %q", d)
	}
	if d, _ := StateDir(z); d != z {
		t.Errorf("explicit: %q", d)
	}
	t.Setenv("HASHLS_STATE_DIR", "")
	for _, c := range defaultStateDirCases(tmp) {
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		if d, err := StateDir(""); d != c.want {
			t.Errorf("%s: %q (%v), want %q", c.name, d, err, c.want)
		}
	}
	p := StorePath(filepath.FromSlash("/s"), filepath.FromSlash("/work/my proj"))
	if !strings.HasPrefix(p, filepath.FromSlash("/s/roots/my_proj-")) || !strings.HasSuffix(p, ".db") || len(filepath.Base(p)) != len("my_proj-")+16+3 {
		t.Errorf("StorePath = %q", p)
	}
	if StorePath("/s", "/a/x") == StorePath("/s", "/b/x") {
		t.Errorf("StorePath must differ per root")
	}
}

// osPerm is the permission bits Go reports for a file created or chmod-ed
// with perm: perm on Unix; Windows keeps only a read-only attribute, which
// Go reports as 0o444, else 0o666.
func osPerm(perm os.FileMode) os.FileMode {
	if runtime.GOOS != "windows" {
		return perm
	}
	if perm&0o200 != 0 {
		return 0o666
	}
	return 0o444
}

// rootedKind is how a path rooted at "/" is refused: outside the root on
// Unix; on Windows "/etc" is relative to the current drive, which the path
// grammar refuses as invalid (winpath.go).
var rootedKind = map[bool]string{true: KindInvalid, false: KindOutside}[runtime.GOOS == "windows"]

// needSymlinks skips a test about symbolic links where none can be made.
func needSymlinks(t testing.TB) {
	t.Helper()
	if !testsys.SymlinksWork() {
		t.Skip(testsys.NoSymlinks)
	}
}
