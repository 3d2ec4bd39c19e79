package workspace

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/hashls/hashls/internal/testsys"
)

func mustResolve(t *testing.T, w *Workspace, p string) Path {
	t.Helper()
	r, err := w.Resolve(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// writeFile commits one change of p from old (nil: must not exist) to new,
// as the tools do.
func writeFile(w *Workspace, ctx context.Context, p Path, old, new []byte, label string) error {
	base := BaseAbsent()
	if old != nil {
		base = BaseOf(old)
	}
	_, err := w.Commit(ctx, "test", []Change{{Path: p, Base: base, New: new, NewTag: "TEST"}}, CommitOptions{Label: label})
	return err
}

// tempFiles lists leftover temp files of commits under dir.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".hashls-") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func TestReadFile(t *testing.T) {
	w, root, _ := newWS(t)
	f, err := w.ReadFile(mustResolve(t, w, "a.txt"))
	if err != nil || string(f.Bytes) != "a\n" || f.Overlay || f.Mode != osPerm(0o644) || f.ModTime.IsZero() {
		t.Fatalf("ReadFile(a.txt) = %+v, %v", f, err)
	}
	_, err = w.ReadFile(mustResolve(t, w, "dir/missing.go"))
	if !IsKind(err, KindNotFound) || err.Error() != "File not found: dir/missing.go." {
		t.Fatalf("missing: %v", err)
	}
	_, err = w.ReadFile(mustResolve(t, w, "a.txt/x")) // a file used as a directory
	if !IsKind(err, KindNotFound) {
		t.Fatalf("a.txt/x: %v", err)
	}
	_, err = w.ReadFile(mustResolve(t, w, "dir"))
	if !IsKind(err, KindIsDir) || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("dir: %v", err)
	}
	if os.Geteuid() != 0 && runtime.GOOS != "windows" { // Windows has no mode that denies reading
		os.WriteFile(filepath.Join(root, "noperm"), []byte("x"), 0o000)
		_, err = w.ReadFile(mustResolve(t, w, "noperm"))
		if !IsKind(err, KindPermission) {
			t.Fatalf("noperm: %v", err)
		}
	}
}

func TestReadLargeFile(t *testing.T) {
	w, root, _ := newWS(t)
	big := bytes.Repeat([]byte("0123456789abcdef\n"), (64<<20)/17+1)
	if err := os.WriteFile(filepath.Join(root, "big.txt"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := w.ReadFile(mustResolve(t, w, "big.txt"))
	if err != nil || !bytes.Equal(f.Bytes, big) {
		t.Fatalf("big read: %v (len %d)", err, len(f.Bytes))
	}
	if IsBinary(f.Bytes) {
		t.Fatal("big text file reported binary")
	}
}

func TestIsBinary(t *testing.T) {
	latin1 := bytes.Repeat([]byte("caf\xe9 cr\xe8me br\xfbl\xe9e, "), 20)
	tests := []struct {
		name string
		in   []byte
		want bool
	}{
		{"empty", nil, false},
		{"ascii", []byte("hello\nworld\n"), false},
		{"utf8", []byte("héllo wörld ✓ 日本語\n"), false},
		{"nul", []byte("abc\x00def"), true},
		{"latin1 text", latin1, false},
		{"high bytes", bytes.Repeat([]byte{0xff, 0xfe, 0x80, 'a'}, 100), true},
		{"nul after 8k", append(bytes.Repeat([]byte("a"), 9000), 0), false},
		{"cut rune at 8k", append(bytes.Repeat([]byte("a"), 8191), []byte("é and more")...), false},
	}
	for _, tt := range tests {
		if got := IsBinary(tt.in); got != tt.want {
			t.Errorf("%s: IsBinary = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestWriteFile(t *testing.T) {
	ctx := context.Background()
	w, root, _ := newWS(t)
	exe := filepath.Join(root, "run.sh")
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	os.Chmod(exe, 0o755)

	tests := []struct {
		name     string
		path     string
		old, new string
		nilOld   bool
		kind     string // expected error kind
		want     string // content after
		mode     os.FileMode
	}{
		{name: "replace keeps mode", path: "run.sh", old: "#!/bin/sh\n", new: "#!/bin/sh\necho hi\n", want: "#!/bin/sh\necho hi\n", mode: 0o755},
		{name: "stale old", path: "a.txt", old: "not a\n", new: "x", kind: KindStale, want: "a\n", mode: 0o644},
		{name: "stale old of the same size", path: "a.txt", old: "b\n", new: "x", kind: KindStale, want: "a\n", mode: 0o644},
		{name: "create", path: "new.txt", nilOld: true, new: "fresh", want: "fresh", mode: 0o644},
		{name: "create in new dirs", path: "x/y/z.txt", nilOld: true, new: "deep", want: "deep", mode: 0o644},
		{name: "create existing", path: "a.txt", nilOld: true, new: "x", kind: KindStale, want: "a\n", mode: 0o644},
		{name: "old for missing", path: "gone.txt", old: "", new: "x", kind: KindStale},
		{name: "through inside symlink", path: "in-link/b.txt", old: "b\n", new: "B\n", want: "B\n", mode: 0o644},
		{name: "empty content", path: "a.txt", old: "a\n", new: "", want: "", mode: 0o644},
	}
	for _, tt := range tests {
		if strings.Contains(tt.path, "link") && !testsys.SymlinksWork() {
			continue
		}
		p := mustResolve(t, w, tt.path)
		var old []byte
		if !tt.nilOld {
			old = []byte(tt.old)
		}
		err := writeFile(w, ctx, p, old, []byte(tt.new), tt.name)
		if tt.kind != "" {
			if !IsKind(err, tt.kind) {
				t.Errorf("%s: err = %v, want %s", tt.name, err, tt.kind)
			}
		} else if err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		if tt.mode == 0 {
			if _, err := os.Stat(p.Abs); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: file created: %v", tt.name, err)
			}
			continue
		}
		got, err := os.ReadFile(p.Abs)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: content %q, %v; want %q", tt.name, got, err, tt.want)
		}
		if st, err := os.Stat(p.Abs); err != nil || st.Mode().Perm() != osPerm(tt.mode) {
			t.Errorf("%s: mode %v, want %v", tt.name, st, osPerm(tt.mode))
		}
	}
	if fi, err := os.Lstat(filepath.Join(root, "in-link")); testsys.SymlinksWork() && (err != nil || fi.Mode()&os.ModeSymlink == 0) {
		t.Errorf("in-link is no longer a symlink")
	}
	if left := tempFiles(t, root); len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
	stale := writeFile(w, ctx, mustResolve(t, w, "run.sh"), []byte("old"), []byte("new"), "")
	if !strings.Contains(stale.Error(), "re-read it and retry") || !strings.Contains(stale.Error(), "run.sh") {
		t.Errorf("stale message: %v", stale)
	}
}

func TestWriteFileFailureLeavesNoTemp(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions")
	}
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no directory mode that denies creating files in it")
	}
	w, root, _ := newWS(t)
	p := mustResolve(t, w, "dir/b.txt")
	os.Chmod(filepath.Join(root, "dir"), 0o555)
	defer os.Chmod(filepath.Join(root, "dir"), 0o755)
	err := writeFile(w, context.Background(), p, []byte("b\n"), []byte("x"), "")
	if !IsKind(err, KindPermission) {
		t.Fatalf("err = %v", err)
	}
	if left := tempFiles(t, root); len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
}

// TestCommitOverDirectory refuses to replace a directory and leaves no
// temp file.
func TestCommitOverDirectory(t *testing.T) {
	w, root, _ := newWS(t)
	os.MkdirAll(filepath.Join(root, "t", "child"), 0o755)
	if err := writeFile(w, context.Background(), mustResolve(t, w, "t"), nil, []byte("x"), ""); !IsKind(err, KindIsDir) {
		t.Fatalf("commit over a directory: %v", err)
	}
	if left := tempFiles(t, root); len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
}

type fakeEditor struct {
	mu    sync.Mutex
	calls []string
	err   error
}

func (f *fakeEditor) ApplyEdit(ctx context.Context, p Path, version int32, old, new []byte, label string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, p.Rel+"@"+string(rune('0'+version))+":"+string(old)+"->"+string(new)+"/"+label)
	return f.err
}

func TestOverlay(t *testing.T) {
	ctx := context.Background()
	w, root, _ := newWS(t)
	p := mustResolve(t, w, "a.txt")
	text := []byte("buffer\n")
	w.SetOverlay(p, text, 3)
	text[0] = 'X' // the workspace keeps its own copy
	f, err := w.ReadFile(p)
	if err != nil || string(f.Bytes) != "buffer\n" || !f.Overlay || f.Version != 3 {
		t.Fatalf("overlay read = %+v, %v", f, err)
	}
	// Overlay of a file that does not exist on disk.
	np := mustResolve(t, w, "unsaved.txt")
	w.SetOverlay(np, nil, 1)
	if f, err := w.ReadFile(np); err != nil || len(f.Bytes) != 0 || !f.Overlay {
		t.Fatalf("unsaved overlay = %+v, %v", f, err)
	}
	if got := w.Overlays(); len(got) != 2 || got[0].Rel != "a.txt" || got[1].Rel != "unsaved.txt" {
		t.Fatalf("Overlays = %v", got)
	}

	// Without an editor, writes go to disk and check the disk content.
	if err := writeFile(w, ctx, p, []byte("buffer\n"), []byte("x"), ""); !IsKind(err, KindStale) {
		t.Fatalf("disk write against overlay text: %v", err)
	}

	ed := &fakeEditor{}
	w.SetBufferEditor(ed)
	if err := writeFile(w, ctx, p, []byte("buffer\n"), []byte("new\n"), "edit a"); err != nil {
		t.Fatal(err)
	}
	if len(ed.calls) != 1 || ed.calls[0] != "a.txt@3:buffer\n->new\n/edit a" {
		t.Fatalf("calls = %q", ed.calls)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(got) != "a\n" {
		t.Fatalf("disk changed: %q", got)
	}
	if f, _ := w.ReadFile(p); string(f.Bytes) != "buffer\n" {
		t.Fatalf("overlay changed by WriteFile: %q", f.Bytes)
	}
	// Stale against the buffer: the editor is not called.
	if err := writeFile(w, ctx, p, []byte("other"), []byte("new\n"), ""); !IsKind(err, KindStale) || len(ed.calls) != 1 {
		t.Fatalf("stale buffer: %v, calls %d", err, len(ed.calls))
	}
	// The editor's error comes back.
	ed.err = &Error{Kind: KindStale, Msg: "buffer moved"}
	if err := writeFile(w, ctx, p, []byte("buffer\n"), []byte("new\n"), ""); !IsKind(err, KindStale) {
		t.Fatalf("editor error: %v", err)
	}
	// After close, reads and writes use the disk.
	w.CloseOverlay(p)
	if f, _ := w.ReadFile(p); string(f.Bytes) != "a\n" || f.Overlay {
		t.Fatalf("after close: %+v", f)
	}
	if err := writeFile(w, ctx, p, []byte("a\n"), []byte("disk\n"), ""); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(got) != "disk\n" {
		t.Fatalf("disk = %q", got)
	}
}

func TestOverlayConcurrent(t *testing.T) {
	w, _, _ := newWS(t)
	p := mustResolve(t, w, "a.txt")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				w.SetOverlay(p, []byte{byte(j)}, int32(j))
				w.ReadFile(p)
				if j%7 == 0 {
					w.CloseOverlay(p)
				}
				w.SetBufferEditor(nil)
			}
		}(i)
	}
	wg.Wait()
}

// TestDiskHolds checks the commit path's comparison of a file with the
// content a tool read: equal only when every byte is, across its 64 KB
// reads, and the same errors as a read for what is not a regular file.
func TestDiskHolds(t *testing.T) {
	root := t.TempDir()
	w, err := Open(root, Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	big := bytes.Repeat([]byte("0123456789abcdef"), 20000) // 320 KB: five reads
	lastByte := bytes.Clone(big)
	lastByte[len(lastByte)-1] = 'X'
	os.Mkdir(filepath.Join(root, "dir"), 0o755)
	for _, c := range []struct {
		name       string
		disk, want []byte // disk nil: no file
		same       bool
		kind       string // the error's kind, "" for none
	}{
		{"equal", big, big, true, ""},
		{"empty", []byte{}, []byte{}, true, ""},
		{"last byte differs", lastByte, big, false, ""},
		{"first byte differs", append([]byte("X"), big[1:]...), big, false, ""},
		{"longer on disk", append(bytes.Clone(big), '\n'), big, false, ""},
		{"shorter on disk", big[:len(big)-1], big, false, ""},
		{"missing", nil, big, false, KindNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := mustResolve(t, w, "f.txt")
			os.Remove(p.Abs)
			if c.disk != nil {
				if err := os.WriteFile(p.Abs, c.disk, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			same, _, err := diskHolds(w.fsroot, rootName(p.Rel), p, c.want)
			if same != c.same || (c.kind == "") != (err == nil) || (c.kind != "" && !IsKind(err, c.kind)) {
				t.Fatalf("diskHolds = %v, %v; want %v and an error of kind %q", same, err, c.same, c.kind)
			}
		})
	}
	if _, _, err := diskHolds(w.fsroot, "dir", mustResolve(t, w, "dir"), nil); !IsKind(err, KindIsDir) {
		t.Fatalf("diskHolds of a directory: %v, want %s", err, KindIsDir)
	}
}

// TestFileStateUnchangedFile: the commit path's check of a file that still
// holds what the tool read shares the tool's bytes (no second copy), with
// its sum, and keeps the mode bits a write keeps.
func TestFileStateUnchangedFile(t *testing.T) {
	root := t.TempDir()
	w, err := Open(root, Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	p := mustResolve(t, w, "run.sh")
	content := []byte("#!/bin/sh\necho hi\n")
	if err := os.WriteFile(p.Abs, content, 0o755); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if err := os.Chmod(p.Abs, 0o755|os.ModeSetuid); err != nil {
			t.Fatal(err)
		}
	}
	base := BaseOf(bytes.Clone(content))
	locks, err := w.lockFiles(context.Background(), []Path{p})
	if err != nil {
		t.Fatal(err)
	}
	defer locks.unlock()
	at := locks.at(p.Rel)
	st, err := w.fileState(p, at, false, base)
	if err != nil {
		t.Fatal(err)
	}
	if !st.exists || &st.content[0] != &base.content[0] || &st.disk[0] != &base.content[0] || st.sum != base.sum || st.diskSum != base.sum {
		t.Fatalf("fileState of an unchanged file: %+v; want base's bytes and sum", st)
	}
	if want := fs.FileMode(0o755) | fs.ModeSetuid; runtime.GOOS != "windows" && st.mode != want {
		t.Fatalf("mode %v, want %v", st.mode, want)
	}
	// Changed after the read: read whole, its own bytes and sum.
	if err := os.WriteFile(p.Abs, []byte("#!/bin/sh\necho HI\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	st, err = w.fileState(p, at, false, base)
	if err != nil || string(st.content) != "#!/bin/sh\necho HI\n" || st.sum == base.sum {
		t.Fatalf("fileState of a changed file: %q %v", st.content, err)
	}
}
