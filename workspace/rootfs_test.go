package workspace

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTempNameFits: a temp file's name fits a file name for any name the
// file system takes, cut at a character boundary.
func TestTempNameFits(t *testing.T) {
	for _, name := range []string{
		"a.txt",
		strings.Repeat("x", 255),
		strings.Repeat("x", 229),
		strings.Repeat("é", 127), // 254 bytes
		strings.Repeat("日", 85),  // 255 bytes
		strings.Repeat("😀", 63) + "abc",
	} {
		tmp := tempName(name, "0123456789ab", 12)
		if len(tmp) > maxNameBytes || !utf8.ValidString(tmp) || !strings.HasPrefix(tmp, ".") || !strings.HasSuffix(tmp, ".hashls-0123456789ab-12.tmp") {
			t.Errorf("tempName(%d bytes) = %q (%d bytes)", len(name), tmp, len(tmp))
		}
		if len(name) < 200 && tmp != "."+name+".hashls-0123456789ab-12.tmp" {
			t.Errorf("a short name is kept whole: %q", tmp)
		}
	}
}

// TestWriteLongName: a file whose name is as long as the file system
// allows (and one just past the length at which ".NAME.hashls-…" stopped
// fitting) is written, updated and deleted like any other.
func TestWriteLongName(t *testing.T) {
	w, root, _ := newWS(t)
	ctx := context.Background()
	names := []string{strings.Repeat("n", 229) + ".txt", strings.Repeat("l", 251) + ".go"}
	if runtime.GOOS != "windows" {
		names = append(names, strings.Repeat("é", 125)+".txt") // 254 bytes
	}
	for _, name := range names {
		p := mustResolve(t, w, "dir/"+name)
		if err := writeFile(w, ctx, p, nil, []byte("one\n"), ""); err != nil {
			t.Fatalf("create a %d-byte name: %v", len(name), err)
		}
		if err := writeFile(w, ctx, p, []byte("one\n"), []byte("two\n"), ""); err != nil {
			t.Fatalf("update a %d-byte name: %v", len(name), err)
		}
		if got, _ := os.ReadFile(filepath.Join(root, "dir", name)); string(got) != "two\n" {
			t.Fatalf("%d-byte name holds %q", len(name), got)
		}
		if _, err := w.Commit(ctx, "delete", []Change{{Path: p, Base: BaseOf([]byte("two\n")), Delete: true}}, CommitOptions{}); err != nil {
			t.Fatalf("delete a %d-byte name: %v", len(name), err)
		}
	}
	if tmp := tempFiles(t, root); len(tmp) != 0 {
		t.Fatalf("temp files left: %v", tmp)
	}
}

// TestOperationsStayInRoot: a path that resolved inside the root, whose
// directory is then replaced by a link to outside, is neither read nor
// written there: the operation fails as outside the root.
func TestOperationsStayInRoot(t *testing.T) {
	needSymlinks(t)
	w, root, outside := newWS(t)
	ctx := context.Background()
	p := mustResolve(t, w, "sub/f.txt")
	q := mustResolve(t, w, "sub/secret.txt")
	// sub/ becomes a link to outside after the paths were checked.
	if err := os.Symlink(outside, filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ReadFile(q); !IsKind(err, KindOutside) {
		t.Errorf("read through the link: %v, want %s", err, KindOutside)
	}
	if err := writeFile(w, ctx, p, nil, []byte("x\n"), ""); !IsKind(err, KindOutside) {
		t.Errorf("create through the link: %v, want %s", err, KindOutside)
	}
	if _, err := w.Commit(ctx, "delete", []Change{{Path: q, Base: BaseAny(), Delete: true}}, CommitOptions{}); err == nil {
		t.Errorf("delete through the link succeeded")
	}
	if _, err := os.Stat(filepath.Join(outside, "f.txt")); err == nil {
		t.Errorf("a file was made outside the root")
	}
	if b, err := os.ReadFile(filepath.Join(outside, "secret.txt")); err != nil || string(b) != "secret\n" {
		t.Errorf("outside secret.txt: %q, %v", b, err)
	}
	if tmp := tempFiles(t, outside); len(tmp) != 0 {
		t.Errorf("temp files outside: %v", tmp)
	}
}

// TestExternalWriteBeforeRename: a program that is not hashls writes the
// file (or creates it) between the commit's check and its rename: the
// commit is refused as stale, and the other program's content stays.
func TestExternalWriteBeforeRename(t *testing.T) {
	w, root := newStoreWS(t)
	w.SetBufferEditor(nil)
	for _, n := range []string{"a.txt", "c.txt"} {
		w.CloseOverlay(mustResolve(t, w, n))
	}
	ctx := context.Background()
	for _, c := range []struct{ name, file, external string }{
		{"written in place", "a.txt", "an editor's save\n"},
		{"created", "new.txt", "git checkout\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			abs := filepath.Join(root, c.file)
			old, _ := os.ReadFile(abs)
			testHookRename = func() { os.WriteFile(abs, []byte(c.external), 0o644) }
			defer func() { testHookRename = nil }()
			err := writeFile(w, ctx, mustResolve(t, w, c.file), old, []byte("hashls\n"), "")
			if !IsKind(err, KindStale) || !strings.Contains(err.Error(), "another program") {
				t.Fatalf("commit: %v, want a stale error naming another program", err)
			}
			if got, _ := os.ReadFile(abs); string(got) != c.external {
				t.Fatalf("%s holds %q, want the other program's %q", c.file, got, c.external)
			}
			if tmp := tempFiles(t, root); len(tmp) != 0 {
				t.Fatalf("temp files left: %v", tmp)
			}
		})
	}
}
