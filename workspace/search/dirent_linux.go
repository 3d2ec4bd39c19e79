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

// dirHandle is an open directory: its file descriptor, read and opened
// relative to with raw system calls (see rawFile).
type dirHandle int

// noDir is no directory (an Entry after its callback).
const noDir dirHandle = -1

func (h dirHandle) valid() bool { return h >= 0 }

func (h dirHandle) close() { rawClose(int(h)) }

const dirFlags = syscall.O_RDONLY | syscall.O_DIRECTORY | syscall.O_CLOEXEC

// openTop opens the walk root: a new descriptor of dir (the caller's, left
// open) when given, else root by its path.
func openTop(root string, dir *os.Root) (dirHandle, error) {
	if dir == nil {
		fd, err := rawOpen(root, dirFlags)
		if err != nil {
			return noDir, &fs.PathError{Op: "open", Path: root, Err: err}
		}
		return dirHandle(fd), nil
	}
	f, err := dir.Open(".")
	if err != nil {
		return noDir, err
	}
	defer f.Close()
	sc, err := f.SyscallConn()
	if err != nil {
		return noDir, err
	}
	fd := -1
	cerr := sc.Control(func(d uintptr) { fd, err = rawOpenAt(d, ".", dirFlags) })
	if cerr != nil {
		return noDir, cerr
	}
	if err != nil {
		return noDir, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	return dirHandle(fd), nil
}

// openDir opens the subdirectory name of h, not following a link: a
// directory swapped for a link since it was listed fails (ELOOP or
// ENOTDIR) instead of being entered.
func (h dirHandle) openDir(name string) (dirHandle, error) {
	fd, err := rawOpenAt(uintptr(h), name, dirFlags|syscall.O_NOFOLLOW)
	if err != nil {
		return noDir, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return dirHandle(fd), nil
}

// openFile opens the file name of h for reading, not following a link
// (see rawFile).
func (h dirHandle) openFile(name string) (io.ReadCloser, error) {
	f, err := openRawAt(int(h), name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// readDir lists h with getdents64 into out (reused), skipping "." and "..":
// the types come from d_type (an fstatat only when the file system does
// not fill it in), with none of os.ReadDir's per-entry objects.
func (h dirHandle) readDir(buf []byte, out []dirent) ([]dirent, []byte, error) {
	if len(buf) < 8<<10 {
		buf = make([]byte, 32<<10)
	}
	for {
		r, _, errno := syscall.RawSyscall(syscall.SYS_GETDENTS64, uintptr(h), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
		n := int(r)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return out, buf, &fs.PathError{Op: "readdirent", Path: ".", Err: errno}
		}
		if n <= 0 {
			return out, buf, nil
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
				var st syscall.Stat_t
				if fstatat(int(h), d.name, &st) != nil {
					continue
				}
				d.typ = statInfo{st: st}.Mode().Type()
			default:
				d.typ = fs.ModeIrregular
			}
			out = append(out, d)
		}
	}
}

// lstat returns the lstat information of name in h.
func (h dirHandle) lstat(name string) (fs.FileInfo, error) {
	var st syscall.Stat_t
	if err := fstatat(int(h), name, &st); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	return statInfo{name: name, st: st}, nil
}

// modTime returns the modification time of name in h (not following
// symlinks).
func (h dirHandle) modTime(name string) (time.Time, error) {
	var st syscall.Stat_t
	if err := fstatat(int(h), name, &st); err != nil {
		return time.Time{}, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	return time.Unix(st.Mtim.Sec, st.Mtim.Nsec), nil
}

const atSymlinkNoFollow = 0x100

// fstatat is fstatat(2) with AT_SYMLINK_NOFOLLOW, retried on EINTR.
func fstatat(dirfd int, name string, st *syscall.Stat_t) error {
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return err
	}
	for {
		_, _, e := syscall.RawSyscall6(sysFstatat, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(st)), atSymlinkNoFollow, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return e
		}
		return nil
	}
}

// statInfo is an fs.FileInfo of a Stat_t (as os.Lstat makes one).
type statInfo struct {
	name string
	st   syscall.Stat_t
}

func (s statInfo) Name() string       { return s.name }
func (s statInfo) Size() int64        { return s.st.Size }
func (s statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Sec, s.st.Mtim.Nsec) }
func (s statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s statInfo) Sys() any           { return &s.st }

func (s statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if s.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
