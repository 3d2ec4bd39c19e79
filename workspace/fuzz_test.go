package workspace

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzResolve checks that Resolve never panics and never returns a path
// outside the root.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"a.txt", "..", "../x", "/", "/etc/passwd", "in-link/../../x", "out-link/x", "dangling", "a/./b//c", "\x00", "~", "dir/../../root/a.txt", "..0", "...", "a/..b"} {
		f.Add(s)
	}
	w, root, _ := newWS(f)
	f.Fuzz(func(t *testing.T, p string) {
		r, err := w.Resolve(p)
		if err != nil {
			if !IsKind(err, KindOutside) && !IsKind(err, KindInvalid) {
				t.Fatalf("Resolve(%q): unexpected error kind: %v", p, err)
			}
			return
		}
		if r.Abs != root && !strings.HasPrefix(r.Abs, root+string(filepath.Separator)) {
			t.Fatalf("Resolve(%q) = %q, outside %q", p, r.Abs, root)
		}
		if r.Rel == ".." || strings.HasPrefix(r.Rel, "../") || filepath.IsAbs(r.Rel) {
			t.Fatalf("Resolve(%q).Rel = %q", p, r.Rel)
		}
	})
}

// FuzzIsBinary checks that IsBinary never panics.
func FuzzIsBinary(f *testing.F) {
	f.Add([]byte("text\n"))
	f.Add([]byte{0xff, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) { IsBinary(b) })
}
