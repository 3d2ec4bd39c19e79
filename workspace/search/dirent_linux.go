//go:build linux

package search

import (
	"encoding/binary"
	"io/fs"
	"os"
	"syscall"
)

// readDir lists a directory with getdents64 into out (reused), skipping "."
// and "..": the types come from d_type (an lstat only when the file system
// does not fill it in), with none of os.ReadDir's per-entry objects or the
// poller registration of os.Open.
func readDir(path string, buf []byte, out []dirent) ([]dirent, []byte, error) {
	if len(buf) < 8<<10 {
		buf = make([]byte, 32<<10)
	}
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return out, buf, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return out, buf, &fs.PathError{Op: "readdirent", Path: path, Err: err}
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
