//go:build unix

package workspace

import (
	"os"
	"syscall"
)

// replaceFile renames tmp onto name in dir, atomically replacing it
// (renameat(2) on dir's descriptor: both names in that directory).
func replaceFile(dir *os.Root, tmp, name string) error { return dir.Rename(tmp, name) }

// sameVersion reports whether a and b are one file (device and inode) with
// the same size and modification time.
func sameVersion(a, b os.FileInfo) bool {
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && sa.Dev == sb.Dev && sa.Ino == sb.Ino && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// removeFile removes the file name in dir.
func removeFile(dir *os.Root, name string) error { return dir.Remove(name) }

// openRead opens name in dir for reading. O_NONBLOCK: opening a named pipe
// put where a file was expected returns at once (the caller then finds it is
// not a regular file) instead of waiting for a writer; it changes nothing
// for a regular file.
func openRead(dir *os.Root, name string) (*os.File, error) {
	return dir.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
