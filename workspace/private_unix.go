//go:build unix

package workspace

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ownerOf returns fi's owner and group.
func ownerOf(fi fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}

// writableByOthers says who besides the owner may write fi ("" when
// nobody): other users, or a group that is not the user's own.
func writableByOthers(fi fs.FileInfo, gid int) string {
	switch perm := fi.Mode().Perm(); {
	case perm&0o002 != 0:
		return fmt.Sprintf("is writable by every user (mode %04o)", perm)
	case perm&0o020 != 0 && gid != os.Getegid():
		return fmt.Sprintf("is writable by the group %d (mode %04o)", gid, perm)
	}
	return ""
}

// checkStateDir checks the state directory (links followed) and the
// directories above it.
func checkStateDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return stateDirErr(dir, err)
	}
	uid, gid, ok := ownerOf(fi)
	if !ok {
		return nil
	}
	if uid != os.Geteuid() {
		return notPrivate(dir, fmt.Sprintf("belongs to the user %d, not to you (%d)", uid, os.Geteuid()))
	}
	if why := writableByOthers(fi, gid); why != "" {
		return notPrivate(dir, why)
	}
	// Above it: another user who may rename it could put their own in its
	// place (a sticky directory, /tmp, lets only the owner rename).
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return stateDirErr(dir, err)
	}
	for d := filepath.Dir(real); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode()&fs.ModeSticky == 0 {
			if _, gid, ok := ownerOf(fi); ok {
				if why := writableByOthers(fi, gid); why != "" {
					return notPrivate(d, why+", and holds the state directory "+dir)
				}
			}
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// checkOwnDir checks a directory hashls keeps in the state directory: the
// user's, made 0700 when looser (not a link).
func checkOwnDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return stateDirErr(dir, err)
	}
	if !fi.IsDir() {
		return notPrivate(dir, "is not a directory")
	}
	if uid, _, ok := ownerOf(fi); ok && uid != os.Geteuid() {
		return notPrivate(dir, fmt.Sprintf("belongs to the user %d, not to you (%d)", uid, os.Geteuid()))
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return stateDirErr(dir, err)
		}
	}
	return nil
}

// checkOwnFile checks a file of the store (when it exists): the user's,
// not writable by others (it could have been changed), made 0600 when
// others may read it.
func checkOwnFile(name string) error {
	fi, err := os.Lstat(name)
	if err != nil {
		return nil // missing: SQLite makes it with the database's mode
	}
	if !fi.Mode().IsRegular() {
		return notPrivate(name, "is not a regular file")
	}
	uid, gid, ok := ownerOf(fi)
	if !ok {
		return nil
	}
	if uid != os.Geteuid() {
		return notPrivate(name, fmt.Sprintf("belongs to the user %d, not to you (%d)", uid, os.Geteuid()))
	}
	if why := writableByOthers(fi, gid); why != "" {
		return notPrivate(name, why+" (if you trust its content, chmod 600 it)")
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(name, 0o600); err != nil {
			return stateDirErr(name, err)
		}
	}
	return nil
}
