//go:build unix

package workspace

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives f the owner of the file it replaces (old), when the
// process may; best effort.
func keepOwner(f *os.File, old fs.FileInfo) {
	if old == nil {
		return
	}
	if sys, ok := old.Sys().(*syscall.Stat_t); ok {
		if int(sys.Uid) != os.Geteuid() || int(sys.Gid) != os.Getegid() {
			_ = f.Chown(int(sys.Uid), int(sys.Gid))
		}
	}
}
