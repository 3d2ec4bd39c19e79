package ignore

import (
	"os"
	"path/filepath"
	"testing"
)

// A .gitignore is read beneath Top: one reached through a directory that
// is a link out of Top, or that is itself a link, is not read; one in a
// real directory is.
func TestGitignoreReadBeneathTop(t *testing.T) {
	base := t.TempDir()
	top, outside := filepath.Join(base, "top"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(top, "real"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, ".gitignore"), "secret\n")
	write(filepath.Join(top, "real", ".gitignore"), "secret\n")
	if err := os.Symlink(outside, filepath.Join(top, "out")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	if err := os.Mkdir(filepath.Join(top, "linked"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, ".gitignore"), filepath.Join(top, "linked", ".gitignore")); err != nil {
		t.Fatal(err)
	}
	m := New(top)
	for _, c := range []struct {
		dir, path string
		want      bool
	}{
		{"real", "real/secret", true},
		{"out", "out/secret", false},       // a directory that links out of Top
		{"linked", "linked/secret", false}, // a .gitignore that is a link
	} {
		if got := m.Frame(c.dir).Ignored(c.path, false); got != c.want {
			t.Errorf("%s ignored = %v, want %v", c.path, got, c.want)
		}
	}
}
