//go:build !linux

package sqlitedb

import "os"

// pinned: only Linux names a directory by a descriptor (/proc/self/fd);
// elsewhere SQLite names the database by its path, checked at each open
// (vfsOpen).
func pinned(*os.Root, string) (string, func()) { return "", func() {} }
