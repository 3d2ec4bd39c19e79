//go:build unix && !linux

package search

import (
	"io"
	"syscall"
)

// rawFile reads a file through bare syscalls: os.Open also registers the
// descriptor with the runtime poller (fcntl, epoll_ctl), which doubles the
// syscalls of a search over many small files.
type rawFile struct{ fd int }

func openRaw(path string) (*rawFile, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &rawFile{fd: fd}, nil
	}
}

func (f *rawFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(f.fd, p)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f *rawFile) Close() error { return syscall.Close(f.fd) }

// Seek is lseek(2) (ScanReader reads a long line again from its start).
func (f *rawFile) Seek(offset int64, whence int) (int64, error) {
	return syscall.Seek(f.fd, offset, whence)
}
