//go:build unix

package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func modeOf(t *testing.T, p string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// TestStateDirPrivate: what hashls makes in the state directory is the
// user's alone: directories 0700, the store's files 0600 (a store another
// hashls left 0644 is made 0600).
func TestStateDirPrivate(t *testing.T) {
	base := t.TempDir()
	root, state := filepath.Join(base, "root"), filepath.Join(base, "state")
	os.MkdirAll(root, 0o755)
	w, err := Open(root, Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	db := w.Store().Path()
	w.Close()
	for _, d := range []string{state, filepath.Dir(db)} {
		if m := modeOf(t, d); m != 0o700 {
			t.Errorf("%s: mode %04o, want 0700", d, m)
		}
	}
	for _, f := range []string{db, db + "-wal", db + "-shm"} {
		if _, err := os.Stat(f); err == nil && modeOf(t, f) != 0o600 {
			t.Errorf("%s: mode %04o, want 0600", f, modeOf(t, f))
		}
	}
	os.Chmod(db, 0o644)
	os.Chmod(filepath.Dir(db), 0o755)
	w, err = Open(root, Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if m := modeOf(t, db); m != 0o600 {
		t.Errorf("a 0644 store reopened: mode %04o, want 0600", m)
	}
	if m := modeOf(t, filepath.Dir(db)); m != 0o700 {
		t.Errorf("a 0755 roots directory reopened: mode %04o, want 0700", m)
	}
	sock, _ := HubSocket(state, root)
	if err := MkdirHub(sock); err != nil || modeOf(t, filepath.Dir(sock)) != 0o700 {
		t.Errorf("hub directory: %v, mode %04o", err, modeOf(t, filepath.Dir(sock)))
	}
}

// TestStateDirRefused: a state directory (or one above it) others may
// write, or a store others may write, is refused with a message that says
// what to do; nothing is opened or made there.
func TestStateDirRefused(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, base, state string)
		want  string
	}{
		{"state directory writable by all", func(t *testing.T, base, state string) {
			os.MkdirAll(state, 0o700)
			os.Chmod(state, 0o777)
		}, "writable by every user"},
		{"sticky but writable by all", func(t *testing.T, base, state string) {
			os.MkdirAll(state, 0o700)
			os.Chmod(state, 0o777|os.ModeSticky)
		}, "writable by every user"},
		{"a directory above it writable by all", func(t *testing.T, base, state string) {
			os.MkdirAll(state, 0o700)
			os.Chmod(filepath.Dir(state), 0o777)
		}, "holds the state directory"},
		{"store writable by all", func(t *testing.T, base, state string) {
			root := filepath.Join(base, "root")
			w, err := Open(root, Options{StateDir: state})
			if err != nil {
				t.Fatal(err)
			}
			db := w.Store().Path()
			w.Close()
			os.Chmod(db, 0o666)
		}, "chmod 600"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			root, state := filepath.Join(base, "root"), filepath.Join(base, "mid", "state")
			os.MkdirAll(root, 0o755)
			os.MkdirAll(filepath.Dir(state), 0o755)
			c.setup(t, base, state)
			w, err := Open(root, Options{StateDir: state})
			if err == nil {
				w.Close()
				t.Fatal("opened")
			}
			if !IsKind(err, KindStore) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "HASHLS_STATE_DIR") {
				t.Fatalf("error %v; want a store error saying %q and what to do", err, c.want)
			}
			if c.name == "store writable by all" {
				return // the directories are fine
			}
			sock, _ := HubSocket(state, root)
			if err := MkdirHub(sock); err == nil {
				t.Fatal("MkdirHub accepted the state directory")
			}
			if err := CheckHub(sock); err == nil {
				t.Fatal("CheckHub accepted the state directory")
			}
		})
	}
}
