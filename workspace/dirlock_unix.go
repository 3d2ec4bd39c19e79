//go:build unix

package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// dirKey is the identity of the open directory f: its device and inode,
// the same whatever path reached it (a bind mount shares the device).
func dirKey(f *os.File) (string, error) {
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", fmt.Errorf("no device and inode for %s", f.Name())
	}
	return fmt.Sprintf("%d:%d", uint64(st.Dev), uint64(st.Ino)), nil
}

// lockDirOS locks the open directory f: flock(2) on the directory itself,
// seen by every process that opens it. A file system that cannot lock a
// directory (NFS emulates flock with byte-range locks, which need a file
// open for writing) gets a lock file in <stateDir>/locks named by key
// instead, which excludes only the processes sharing that state directory.
func lockDirOS(ctx context.Context, f *os.File, key, stateDir string) (release func(), err error) {
	if testHookDirFlock != nil {
		err = testHookDirFlock(f)
	} else {
		err = flockWait(ctx, f)
	}
	switch {
	case err == nil:
		return func() { unlockFile(f) }, nil
	case errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.EOPNOTSUPP), errors.Is(err, syscall.EBADF), errors.Is(err, syscall.EINVAL):
		return lockFileIn(ctx, filepath.Join(stateDir, "locks"), key)
	}
	return nil, err
}

// testHookDirFlock, when set (by a test), stands in for flock(2) on a
// directory: a test makes it fail as NFS does to reach the lock file.
var testHookDirFlock func(f *os.File) error
