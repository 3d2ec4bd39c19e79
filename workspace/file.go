package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
	"unicode/utf8"
)

// KindIsDir is a directory where a file was expected.
const KindIsDir = "is_directory"

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
		if st, err := os.Stat(p.Abs); err == nil && st.Mode().IsRegular() {
			f.Mode, f.ModTime = st.Mode().Perm(), st.ModTime()
		}
		return f, nil
	}
	b, st, err := readDisk(p)
	if err != nil {
		return nil, err
	}
	return &File{Path: p, Bytes: b, Mode: st.Mode().Perm(), ModTime: st.ModTime()}, nil
}

// notFound is the error for a missing file, in the words the tools use.
func notFound(p Path, err error) *Error {
	return &Error{Kind: KindNotFound, Msg: fmt.Sprintf("File not found: %s. Use the write tool to create new files.", p.Rel), Err: err}
}

// readDisk reads a regular file from disk.
func readDisk(p Path) ([]byte, fs.FileInfo, error) {
	st, err := os.Stat(p.Abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, nil, notFound(p, err)
		}
		return nil, nil, fsError("read", p.Rel, err)
	}
	if st.IsDir() {
		return nil, nil, &Error{Kind: KindIsDir, Msg: fmt.Sprintf("%s is a directory, not a file; give the path of a file inside it", p.Rel)}
	}
	if !st.Mode().IsRegular() {
		return nil, nil, &Error{Kind: KindIO, Msg: fmt.Sprintf("%s is not a regular file (%v); only regular files can be read", p.Rel, st.Mode().Type())}
	}
	f, err := os.Open(p.Abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, notFound(p, err)
		}
		return nil, nil, fsError("read", p.Rel, err)
	}
	defer f.Close()
	b, err := readAll(f, st.Size())
	if err != nil {
		return nil, nil, fsError("read", p.Rel, err)
	}
	return b, st, nil
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

// WriteFile replaces p's content. When the editor has p open and a
// BufferEditor is set, the edit goes to the editor (versioned; the overlay
// itself is updated by the editor's later didChange); otherwise the disk write
// is atomic (temp file in the same directory, fsync, rename, fsync of the
// directory) and keeps the file's mode (0644 for a new file, whose missing
// parent directories are created). old is the content the caller based the
// change on (nil for a new file: the file must not exist; a non-nil empty
// slice is an existing empty file); when the current content no longer
// equals old the write fails with KindStale and nothing is written.
func (w *Workspace) WriteFile(ctx context.Context, p Path, old, new []byte, label string) error {
	if err := ctx.Err(); err != nil {
		return &Error{Kind: KindIO, Msg: fmt.Sprintf("write %s: cancelled: %v", p.Rel, err), Err: err}
	}
	if o, ok, ed := w.overlayAndEditor(p); ok && ed != nil {
		if old == nil || !bytes.Equal(old, o.text) {
			return staleError(p, "in the editor")
		}
		return ed.ApplyEdit(ctx, p, o.version, old, new, label)
	}
	return writeDisk(p, old, new)
}

func staleError(p Path, where string) *Error {
	return &Error{Kind: KindStale, Msg: fmt.Sprintf("%s changed %s since it was read; re-read it and retry", p.Rel, where)}
}

// writeDisk checks the disk content against old and writes new atomically.
func writeDisk(p Path, old, new []byte) error {
	cur, st, err := readDisk(p)
	exists := err == nil
	if err != nil && !IsKind(err, KindNotFound) {
		return err
	}
	switch {
	case old == nil && exists:
		return &Error{Kind: KindStale, Msg: fmt.Sprintf("%s already exists on disk; read it first and edit it, or retry with its current content", p.Rel)}
	case old != nil && !exists:
		return &Error{Kind: KindStale, Msg: fmt.Sprintf("%s was deleted on disk since it was read; re-read it and retry", p.Rel), Err: err}
	case old != nil && !bytes.Equal(cur, old):
		return staleError(p, "on disk")
	}
	mode := fs.FileMode(0o644)
	if exists {
		mode = st.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	}
	dir := filepath.Dir(p.Abs)
	if !exists {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fsError("create the directory of", p.Rel, err)
		}
	}
	if err := atomicWrite(p.Abs, new, mode, st); err != nil {
		return fsError("write", p.Rel, err)
	}
	return nil
}

// atomicWrite writes data to path through a temp file in the same directory:
// write, fsync, chmod, rename, fsync the directory. The temp file is removed
// on any failure. old, when not nil, is the replaced file's info (its owner
// is kept when the process may do so).
func atomicWrite(path string, data []byte, mode fs.FileMode, old fs.FileInfo) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".hashls-*.tmp")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if old != nil {
		if sys, ok := old.Sys().(*syscall.Stat_t); ok {
			if int(sys.Uid) != os.Geteuid() || int(sys.Gid) != os.Getegid() {
				_ = tmp.Chown(int(sys.Uid), int(sys.Gid)) // best effort
			}
		}
	}
	if err = tmp.Chmod(mode); err != nil { // after Chown, which may clear setuid bits
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(name, path); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync() // the rename is done; a failed directory fsync is not a failed write
		d.Close()
	}
	return nil
}
