//go:build linux

package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// requirePrivileged is set in CI, which runs as root: the tests that need
// root (a bind mount, a second user) fail there instead of skipping.
const requirePrivileged = "HASHLS_REQUIRE_PRIVILEGED_TESTS"

// skipUnprivileged skips (or, under requirePrivileged, fails) a test that
// needs what err says this process may not do.
func skipUnprivileged(t *testing.T, what string, err error) {
	t.Helper()
	if os.Getenv(requirePrivileged) != "" {
		t.Fatalf("%s: %v (%s is set: this test must run)", what, err, requirePrivileged)
	}
	t.Skipf("%s needs root: %v", what, err)
}

// TestBindMountedRoot: one root reached by two paths (a bind mount), each
// process with the store of the path it came by: edits of one file at once
// serialize on the file's directory, which is one directory whatever the
// path, so no edit is lost (30 rounds). Needs root (CI runs it).
func TestBindMountedRoot(t *testing.T) {
	base := t.TempDir()
	root, mnt, state := filepath.Join(base, "root"), filepath.Join(base, "mnt"), filepath.Join(base, "state")
	for _, d := range []string{filepath.Join(root, "d"), mnt} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := unix.Mount(root, mnt, "", unix.MS_BIND, ""); err != nil {
		skipUnprivileged(t, "bind mount", err)
	}
	t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
	if StorePath(state, root) == StorePath(state, mnt) {
		t.Fatal("the two paths share a store: the test would not test locks across stores")
	}
	rounds := editRoundsN()
	lost := editRounds(t, rounds, "d/f.txt", [2]string{root, mnt}, [2]string{state, state})
	t.Logf("bind-mounted root, %d rounds: %d lost updates", rounds, lost)
	if lost > 0 {
		t.Fatalf("%d of %d rounds lost an edit", lost, rounds)
	}
}
