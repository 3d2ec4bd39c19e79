package workspace

import (
	"crypto/sha256"
	"io"
	"testing"

	"github.com/hashls/hashls/internal/testsys"
)

func TestStat(t *testing.T) {
	w, _, _ := newWS(t)
	w.SetOverlay(mustResolve(t, w, "dir/unsaved.txt"), []byte("buffer only\n"), 3)
	w.SetOverlay(mustResolve(t, w, "a.txt"), []byte("edited in the editor\n"), 4)
	for _, tc := range []struct {
		path                          string
		exists, dir, regular, overlay bool
		size                          int64
	}{
		{path: "a.txt", exists: true, regular: true, overlay: true, size: 21},
		{path: "dir/b.txt", exists: true, regular: true, size: 2},
		{path: "dir", exists: true, dir: true},
		{path: "in-link", exists: true, dir: true}, // skipped without symlinks
		{path: "dir/unsaved.txt", exists: true, regular: true, overlay: true, size: 12},
		{path: "missing.txt"},
		{path: "a.txt/below"}, // ENOTDIR is "missing", not an error
		{path: "dangling-in"},
	} {
		if (tc.path == "in-link" || tc.path == "dangling-in") && !testsys.SymlinksWork() {
			continue
		}
		in, err := w.Stat(mustResolve(t, w, tc.path))
		if err != nil {
			t.Errorf("%s: %v", tc.path, err)
			continue
		}
		if in.Exists != tc.exists || in.Dir != tc.dir || in.Regular != tc.regular || in.Overlay != tc.overlay || (!tc.dir && in.Size != tc.size) {
			t.Errorf("%s: %+v, want exists %v dir %v regular %v overlay %v size %d", tc.path, in, tc.exists, tc.dir, tc.regular, tc.overlay, tc.size)
		}
		if w.Exists(mustResolve(t, w, tc.path)) != tc.exists {
			t.Errorf("%s: Exists = %v", tc.path, !tc.exists)
		}
	}
}

func TestResolveLink(t *testing.T) {
	needSymlinks(t)
	w, _, _ := newWS(t)
	for path, link := range map[string]bool{"a.txt": false, "in-link": true, "in-link/b.txt": false, "dangling-in": true, "dir/b.txt": false} {
		if got := mustResolve(t, w, path).Link; got != link {
			t.Errorf("%s: Link = %v, want %v", path, got, link)
		}
	}
}

func TestReadDir(t *testing.T) {
	needSymlinks(t)
	w, _, _ := newWS(t)
	w.SetOverlay(mustResolve(t, w, "dir/unsaved.txt"), []byte("buffer\n"), 1)
	w.SetOverlay(mustResolve(t, w, "dir/b.txt"), []byte("b in the editor\n"), 1)
	ents, err := w.ReadDir(mustResolve(t, w, "in-link"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name)
		if e.Name == "unsaved.txt" && (!e.Overlay || e.Size != 7) {
			t.Errorf("unsaved.txt: %+v", e)
		}
		if e.Name == "b.txt" && (e.Overlay || e.Size != 2) {
			t.Errorf("b.txt (on disk, open in the editor): %+v", e)
		}
	}
	if len(got) != 2 || got[0] != "b.txt" || got[1] != "unsaved.txt" {
		t.Errorf("entries %v", got)
	}
	for path, kind := range map[string]string{"missing": KindNotFound, "a.txt": KindInvalid} {
		if _, err := w.ReadDir(mustResolve(t, w, path)); !IsKind(err, kind) {
			t.Errorf("ReadDir(%s) = %v, want kind %s", path, err, kind)
		}
	}
}

func TestFileSHA256AndOpenReader(t *testing.T) {
	w, _, _ := newWS(t)
	p := mustResolve(t, w, "dir/b.txt")
	if sum, err := w.FileSHA256(p); err != nil || sum != sha256.Sum256([]byte("b\n")) {
		t.Errorf("disk: %x %v", sum, err)
	}
	w.SetOverlay(p, []byte("open\n"), 1)
	if sum, err := w.FileSHA256(p); err != nil || sum != sha256.Sum256([]byte("open\n")) {
		t.Errorf("overlay: %x %v", sum, err)
	}
	r, err := w.OpenReader(p)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r)
	r.Close()
	if string(b) != "b\n" {
		t.Errorf("OpenReader reads the disk: %q", b)
	}
	if _, err := w.OpenReader(mustResolve(t, w, "nope")); !IsKind(err, KindNotFound) {
		t.Errorf("missing: %v", err)
	}
}
