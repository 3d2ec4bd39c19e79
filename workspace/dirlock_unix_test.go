//go:build unix

package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// On a file system that cannot flock a directory (NFS answers ENOLCK or
// EOPNOTSUPP), the directory's lock is a lock file in the state directory
// named by its identity: a second locker of the same directory waits for
// the first, and gets the lock once it is let go.
func TestDirLockFallsBackToLockFile(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.ENOLCK, syscall.EOPNOTSUPP} {
		t.Run(errno.Error(), func(t *testing.T) {
			testHookDirFlock = func(*os.File) error { return errno }
			defer func() { testHookDirFlock = nil }()
			dir, state := t.TempDir(), t.TempDir()
			f, err := os.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			key, err := dirKey(f)
			if err != nil {
				t.Fatal(err)
			}
			release, err := lockDirOS(context.Background(), f, key, state)
			if err != nil {
				t.Fatal(err)
			}
			if locks, _ := filepath.Glob(filepath.Join(state, "locks", "*.lock")); len(locks) != 1 {
				t.Fatalf("lock files in the state directory: %v", locks)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
			defer cancel()
			if _, err := lockDirOS(ctx, f, key, state); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("a second lock while the first is held: %v, want to wait until the deadline", err)
			}
			release()
			release2, err := lockDirOS(context.Background(), f, key, state)
			if err != nil {
				t.Fatalf("after the first lock was let go: %v", err)
			}
			release2()
		})
	}
}
