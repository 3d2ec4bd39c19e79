//go:build windows

package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// dirKey is the identity of the open directory f: its volume's serial
// number and its file index, the same whatever path reached it.
func dirKey(f *os.File) (string, error) {
	var d windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &d); err != nil {
		return "", err
	}
	return fmt.Sprintf("%x:%x:%x", d.VolumeSerialNumber, d.FileIndexHigh, d.FileIndexLow), nil
}

// lockDirOS locks the directory whose identity is key: Windows cannot lock
// a directory, so the lock is LockFileEx on a lock file named by key in
// the user's lock directory, %LOCALAPPDATA%\hashls\locks, which every
// process of the user sees whatever its state directory (the state
// directory's locks when there is no such directory).
func lockDirOS(ctx context.Context, f *os.File, key, stateDir string) (release func(), err error) {
	dir := filepath.Join(stateDir, "locks")
	if base, err := os.UserCacheDir(); err == nil {
		dir = filepath.Join(base, "hashls", "locks")
	}
	return lockFileIn(ctx, dir, key)
}
