//go:build windows

package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// newWinWS opens a workspace over root\Main.go, root\dir\Sub.txt and
// root\longfilename.txt, without a store.
func newWinWS(t *testing.T) *Workspace {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "Root")
	if err := os.MkdirAll(filepath.Join(root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"Main.go", `dir\Sub.txt`, "longfilename.txt"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x\r\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(base, "secret.txt"), []byte("s\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Open(root, Options{NoStore: true, StateDir: filepath.Join(base, "state")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() }) // its root is open (on Windows it cannot be removed until closed)
	return w
}

func TestResolveWindows(t *testing.T) {
	w := newWinWS(t)
	root := w.Root()
	vol := filepath.VolumeName(root)
	if vol != strings.ToUpper(vol) {
		t.Errorf("root %s: the volume is not upper-cased", root)
	}
	lowerDrive := strings.ToLower(vol) + root[len(vol):]
	fileURI := "file:///" + strings.ToLower(vol[:1]) + "%3A" + filepath.ToSlash(root[len(vol):]) + "/Main.go"
	ok := []struct{ in, rel string }{
		{"Main.go", "Main.go"},
		{"main.go", "Main.go"},
		{"MAIN.GO", "Main.go"},
		{`DIR\sub.TXT`, "dir/Sub.txt"},
		{"dir/Sub.txt", "dir/Sub.txt"},
		{`dir\..\Main.go`, "Main.go"},
		{root + `\Main.go`, "Main.go"},
		{strings.ToUpper(root) + `\main.go`, "Main.go"},
		{lowerDrive + `\Main.go`, "Main.go"},
		{`\\?\` + root + `\Main.go`, "Main.go"},
		{"/" + filepath.ToSlash(root) + "/Main.go", "Main.go"},
		{fileURI, "Main.go"},
		{`dir\new.txt`, "dir/new.txt"},
		{`Dir\New.txt`, "dir/New.txt"},
	}
	for _, tt := range ok {
		p, err := w.Resolve(tt.in)
		if err != nil || p.Rel != tt.rel {
			t.Errorf("Resolve(%q) = %+v, %v; want Rel %q", tt.in, p, err, tt.rel)
			continue
		}
		if want := filepath.Join(root, filepath.FromSlash(tt.rel)); p.Abs != want {
			t.Errorf("Resolve(%q).Abs = %q, want %q (one key per file)", tt.in, p.Abs, want)
		}
	}
	refused := []struct{ in, kind string }{
		{`..\secret.txt`, KindOutside},
		{`dir\..\..\secret.txt`, KindOutside},
		{filepath.Dir(root) + `\secret.txt`, KindOutside},
		{`\\?\` + root + `\..\secret.txt`, KindOutside},
		{vol + "secret.txt", KindInvalid},
		{`\secret.txt`, KindInvalid},
		{"NUL", KindInvalid},
		{`dir\com1.txt`, KindInvalid},
		{"Main.go:stream", KindInvalid},
		{"Main.go::$DATA", KindInvalid},
		{"Main.go.", KindInvalid},
		{`\\.\` + root + `\Main.go`, KindInvalid},
		{vol, KindInvalid},                       // "C:": the drive's current directory
		{vol + `..\secret.txt`, KindInvalid},     // drive-relative, climbing
		{`..\Root\..\secret.txt`, KindOutside},   // back in, then out again
		{`\\srv\share\secret.txt`, KindOutside},  // UNC: another volume
		{`\\?\UNC\srv\share\a.txt`, KindOutside}, // the same, long form
		{"CON", KindInvalid},
		{`dir\Aux.go`, KindInvalid},
		{"Main.go:Zone.Identifier:$DATA", KindInvalid},
		{`dir:x\Sub.txt`, KindInvalid},
	}
	for _, tt := range refused {
		p, err := w.Resolve(tt.in)
		var we *Error
		if err == nil || !errors.As(err, &we) || we.Kind != tt.kind {
			t.Errorf("Resolve(%q) = %+v, %v; want a %s refusal", tt.in, p, err, tt.kind)
		}
	}
}

// An 8.3 short name of an existing file is the same file.
func TestResolveWindowsShortName(t *testing.T) {
	w := newWinWS(t)
	long := filepath.Join(w.Root(), "longfilename.txt")
	buf := make([]uint16, windows.MAX_PATH)
	lp, _ := windows.UTF16PtrFromString(long)
	n, err := windows.GetShortPathName(lp, &buf[0], uint32(len(buf)))
	if err != nil || n == 0 {
		t.Skipf("no short name: %v", err)
	}
	short := windows.UTF16ToString(buf[:n])
	if filepath.Base(short) == "longfilename.txt" {
		t.Skip("8.3 names are disabled on this volume")
	}
	p, err := w.Resolve(filepath.Base(short))
	if err != nil || p.Rel != "longfilename.txt" {
		t.Errorf("Resolve(%q) = %+v, %v; want longfilename.txt", filepath.Base(short), p, err)
	}
}

// replaceFile replaces a read-only file, and a file another handle holds
// open with sharing that allows it; it gives up, saying why, when a handle
// denies sharing.
func TestReplaceFileWindows(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "a.txt")
	write := func(name, s string) {
		if err := os.WriteFile(name, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(dst, "old")
	if err := os.Chmod(dst, 0o444); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	write(dst+".tmp", "new")
	if err := replaceFile(root, "a.txt.tmp", "a.txt"); err != nil {
		t.Fatalf("replace a read-only file: %v", err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "new" {
		t.Fatalf("content = %q, want new", b)
	}
	// A handle without FILE_SHARE_DELETE blocks the replace.
	name, _ := windows.UTF16PtrFromString(dst)
	h, err := windows.CreateFile(name, windows.GENERIC_READ, windows.FILE_SHARE_READ, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	write(dst+".tmp", "newer")
	err = replaceFile(root, "a.txt.tmp", "a.txt")
	windows.CloseHandle(h)
	if err == nil || !strings.Contains(err.Error(), "another program") {
		t.Fatalf("replace a file held open = %v, want the error to name another program", err)
	}
	if err := replaceFile(root, "a.txt.tmp", "a.txt"); err != nil {
		t.Fatalf("replace after the handle closed: %v", err)
	}
}
