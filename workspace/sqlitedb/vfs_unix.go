//go:build unix

package sqlitedb

import (
	"os"
	"syscall"

	sqlite3 "modernc.org/sqlite/lib"
)

// sameFile reports whether the file SQLite opened at pFile (the unix VFS's
// unixFile) is name in dir, not following a link: same device and inode.
// It stats, never opens: closing a descriptor of the database would drop
// the process's POSIX locks on it, SQLite's included.
func sameFile(pFile uintptr, dir *os.Root, name string) bool {
	var got syscall.Stat_t
	if syscall.Fstat(int((*sqlite3.TunixFile)(cmem(pFile)).Fh), &got) != nil {
		return false
	}
	fi, err := dir.Lstat(name)
	if err != nil {
		return false
	}
	want, ok := fi.Sys().(*syscall.Stat_t)
	return ok && got.Dev == want.Dev && got.Ino == want.Ino
}
