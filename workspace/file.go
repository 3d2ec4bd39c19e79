package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/hashls/hashls/internal/kinded"
)

// KindIsDir is a directory where a file was expected.
const KindIsDir = kinded.IsDir

// File is a file's content as tools see it: the overlay when the editor has
// the file open, else the disk.
type File struct {
	Path    Path
	Bytes   []byte
	Mode    fs.FileMode
	ModTime time.Time
	Overlay bool  // content came from an open editor buffer
	Version int32 // the overlay's version
}

// ReadFile reads p: the overlay if one is set, else the disk. A missing file is
// KindNotFound; a directory is KindIsDir; other failures are KindPermission or
// KindIO.
func (w *Workspace) ReadFile(p Path) (*File, error) {
	if text, version, ok := w.Overlay(p); ok {
		f := &File{Path: p, Bytes: text, Mode: 0o644, Overlay: true, Version: version}
		if st, err := w.fsroot.Stat(rootName(p.Rel)); err == nil && st.Mode().IsRegular() {
			f.Mode, f.ModTime = st.Mode().Perm(), st.ModTime()
		}
		return f, nil
	}
	b, st, err := readDisk(w.fsroot, rootName(p.Rel), p)
	if err != nil {
		return nil, err
	}
	return &File{Path: p, Bytes: b, Mode: st.Mode().Perm(), ModTime: st.ModTime()}, nil
}

// notFound is the error for a missing file, in the words the tools use.
func notFound(p Path, err error) *Error {
	return &Error{Kind: KindNotFound, Msg: fmt.Sprintf("File not found: %s.", p.Rel), Err: err}
}

// readDisk reads the regular file name in dir (the root, or p's directory
// as a commit holds it), p naming it in messages.
func readDisk(dir *os.Root, name string, p Path) ([]byte, fs.FileInfo, error) {
	f, st, err := openDisk(dir, name, p)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	b, err := readAll(f, st.Size())
	if err != nil {
		return nil, nil, fsError("read", p.Rel, err)
	}
	return b, st, nil
}

// openDisk opens the regular file name in dir for reading, with the errors
// the tools use for a missing file, a directory or anything else. It opens,
// then asks the open file what it is: the answer is about the file read. A
// nil dir is a directory that does not exist.
func openDisk(dir *os.Root, name string, p Path) (*os.File, fs.FileInfo, error) {
	if dir == nil {
		return nil, nil, notFound(p, fs.ErrNotExist)
	}
	f, err := openRead(dir, name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, nil, notFound(p, err)
		}
		return nil, nil, fsError("read", p.Rel, err)
	}
	st, err := f.Stat()
	switch {
	case err != nil:
		f.Close()
		return nil, nil, fsError("read", p.Rel, err)
	case st.IsDir():
		f.Close()
		return nil, nil, &Error{Kind: KindIsDir, Msg: fmt.Sprintf("%s is a directory, not a file; give the path of a file inside it", p.Rel)}
	case !st.Mode().IsRegular():
		f.Close()
		return nil, nil, &Error{Kind: KindIO, Msg: fmt.Sprintf("%s is a %s, not a regular file; only regular files can be read", p.Rel, TypeName(st.Mode()))}
	}
	return f, st, nil
}

// diskHolds reports whether the regular file name in dir holds exactly
// want. It reads the file through a 64 KB buffer instead of into memory of
// its own: the commit path checks, under its lock, a file the tool has just
// read whole, and a second copy of a large file is fresh memory whose page
// faults cost more than the comparison (a 480 KB file: 120 faults, about
// 3 ms on the virtual machines we measure on).
func diskHolds(dir *os.Root, name string, p Path, want []byte) (bool, fs.FileInfo, error) {
	f, st, err := openDisk(dir, name, p)
	if err != nil {
		return false, nil, err
	}
	defer f.Close()
	if st.Size() != int64(len(want)) {
		return false, st, nil
	}
	buf := make([]byte, min(64<<10, len(want)+1))
	for off := 0; ; {
		n, err := f.Read(buf)
		if n > 0 {
			if n > len(want)-off || !bytes.Equal(buf[:n], want[off:off+n]) {
				return false, st, nil
			}
			off += n
		}
		if err == io.EOF {
			return off == len(want), st, nil
		}
		if err != nil {
			return false, nil, fsError("read", p.Rel, err)
		}
	}
}

// readAll reads r to EOF, expecting about size bytes.
func readAll(r io.Reader, size int64) ([]byte, error) {
	if size < 0 || size > 1<<40 {
		size = 0
	}
	b := make([]byte, 0, size+1) // +1 so that EOF is seen without growing
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// binarySniff is how much of a file IsBinary looks at.
const binarySniff = 8 << 10

// IsBinary reports whether b looks like binary data: a NUL byte in the first
// 8 KiB, or more than 30% of the bytes there not valid UTF-8.
func IsBinary(b []byte) bool {
	head := b
	if len(head) > binarySniff {
		head = head[:binarySniff]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	invalid := 0
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && size <= 1 {
			if len(b) > len(head) && !utf8.FullRune(head[i:]) {
				break // a rune cut by the sniff window
			}
			invalid++
			size = 1
		}
		i += size
	}
	return invalid*10 > len(head)*3
}

func staleError(p Path, where string) *Error {
	return &Error{Kind: KindStale, Msg: fmt.Sprintf("%s changed %s since it was read; re-read it and retry", p.Rel, where)}
}
