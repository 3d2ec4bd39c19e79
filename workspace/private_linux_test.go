//go:build linux

package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// otherUID is a second user (no account needed) for the tests that need
// one: they run as root (CI), and skip otherwise.
const otherUID = 4242

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		skipUnprivileged(t, "changing a file's owner to another user", fmt.Errorf("euid %d", os.Geteuid()))
	}
}

// TestOtherUsersStateDir: a state directory, a directory in it, or a
// store that belongs to another user is refused, whatever its mode.
func TestOtherUsersStateDir(t *testing.T) {
	needRoot(t)
	for _, c := range []struct {
		name  string
		chown func(state, db string) string
	}{
		{"state directory", func(state, db string) string { return state }},
		{"roots directory", func(state, db string) string { return filepath.Dir(db) }},
		{"store", func(state, db string) string { return db }},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			root, state := filepath.Join(base, "root"), filepath.Join(base, "state")
			os.MkdirAll(root, 0o755)
			w, err := Open(root, Options{StateDir: state})
			if err != nil {
				t.Fatal(err)
			}
			db := w.Store().Path()
			w.Close()
			if err := os.Chown(c.chown(state, db), otherUID, otherUID); err != nil {
				t.Fatal(err)
			}
			w, err = Open(root, Options{StateDir: state})
			if err == nil {
				w.Close()
				t.Fatal("opened")
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("belongs to the user %d", otherUID)) || !strings.Contains(err.Error(), "HASHLS_STATE_DIR") {
				t.Fatalf("error %v", err)
			}
		})
	}
}
