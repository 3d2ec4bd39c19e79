//go:build linux && (amd64 || arm64)

package search

import (
	"encoding/binary"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// readDir lists a directory with getdents64 into out (reused), skipping "."
// and "..": the types come from d_type (an lstat only when the file system
// does not fill it in), with none of os.ReadDir's per-entry objects or the
// poller registration of os.Open.
func readDir(path string, buf []byte, out []dirent) ([]dirent, []byte, error) {
	out, buf, fd, err := readDirFD(path, buf, out)
	if fd >= 0 {
		rawClose(fd)
	}
	return out, buf, err
}

// readDirFD is readDir that leaves the directory open (fd >= 0, the caller
// closes it) so that entries can be stat'ed relative to it.
func readDirFD(path string, buf []byte, out []dirent) ([]dirent, []byte, int, error) {
	if len(buf) < 8<<10 {
		buf = make([]byte, 32<<10)
	}
	// Raw syscalls throughout (see rawFile).
	fd, err := rawOpen(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC)
	if err != nil {
		return out, buf, -1, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	for {
		r, _, errno := syscall.RawSyscall(syscall.SYS_GETDENTS64, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
		n := int(r)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return out, buf, fd, &fs.PathError{Op: "readdirent", Path: path, Err: errno}
		}
		if n <= 0 {
			return out, buf, fd, nil
		}
		for off := 0; off+19 <= n; {
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen == 0 || off+reclen > n {
				break
			}
			typ := buf[off+18]
			name := buf[off+19 : off+reclen]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			off += reclen
			if len(name) == 0 || (name[0] == '.' && (len(name) == 1 || (len(name) == 2 && name[1] == '.'))) {
				continue
			}
			d := dirent{name: string(name)}
			switch typ {
			case syscall.DT_REG:
				d.typ = 0
			case syscall.DT_DIR:
				d.typ = fs.ModeDir
			case syscall.DT_LNK:
				d.typ = fs.ModeSymlink
			case syscall.DT_FIFO:
				d.typ = fs.ModeNamedPipe
			case syscall.DT_SOCK:
				d.typ = fs.ModeSocket
			case syscall.DT_CHR:
				d.typ = fs.ModeDevice | fs.ModeCharDevice
			case syscall.DT_BLK:
				d.typ = fs.ModeDevice
			case syscall.DT_UNKNOWN:
				fi, err := os.Lstat(path + "/" + d.name)
				if err != nil {
					continue
				}
				d.typ = fi.Mode().Type()
			default:
				d.typ = fs.ModeIrregular
			}
			out = append(out, d)
		}
	}
}

// modTimeAt returns the modification time of name in the open directory
// dirfd (not following symlinks).
func modTimeAt(dirfd int, name string) (time.Time, error) {
	var st syscall.Stat_t
	for {
		err := fstatat(dirfd, name, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return time.Time{}, err
		}
		return time.Unix(st.Mtim.Sec, st.Mtim.Nsec), nil
	}
}

const atSymlinkNoFollow = 0x100

func fstatat(dirfd int, name string, st *syscall.Stat_t) error {
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return err
	}
	_, _, e := syscall.RawSyscall6(sysFstatat, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(st)), atSymlinkNoFollow, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

func closeFD(fd int) { rawClose(fd) }

// openEntry opens a regular file the walk met, relative to its open
// parent directory during the callback.
func openEntry(e *Entry) (io.ReadCloser, error) {
	if e.dirfd >= 0 {
		f, err := openRawAt(e.dirfd, e.name)
		if err != nil {
			return nil, err
		}
		return f, nil
	}
	return openPath(e.Abs)
}
