//go:build darwin

package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

// On a case-insensitive, normalisation-insensitive volume (the macOS
// default), every spelling of an existing file resolves to its stored name.
func TestResolveDarwinCase(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "Root")
	nfd := "Cafe\u0301.txt"
	if err := os.MkdirAll(filepath.Join(root, "Dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"Main.go", filepath.Join("Dir", "Sub.txt"), nfd} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "main.go")); err != nil {
		t.Skip("this volume is case-sensitive")
	}
	w, err := Open(root, Options{NoStore: true, StateDir: filepath.Join(base, "state")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ in, rel string }{
		{"main.go", "Main.go"},
		{"MAIN.GO", "Main.go"},
		{"dir/sub.TXT", "Dir/Sub.txt"},
		{"dir/New.txt", "Dir/New.txt"},
		{"Caf\u00e9.txt", nfd}, // NFC asked, NFD stored
		{"CAFE\u0301.TXT", nfd},
		{filepath.Join(base, "root", "main.go"), "Main.go"},
	} {
		p, err := w.Resolve(tt.in)
		if err != nil || p.Rel != tt.rel || p.Abs != filepath.Join(w.Root(), tt.rel) {
			t.Errorf("Resolve(%q) = %+v, %v; want Rel %q", tt.in, p, err, tt.rel)
		}
	}
	if _, err := w.Resolve("../root/../../x"); err == nil {
		t.Error("Resolve escaped the root")
	}
}
