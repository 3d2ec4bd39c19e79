//go:build !(linux && (amd64 || arm64))

package search

import (
	"io"
	"io/fs"
	"os"
	"time"
)

// dirHandle is an open directory: an os.Root, so that what is opened
// relative to it resolves beneath it (a link is followed only when it
// stays beneath the directory; on Windows reparse points are opened, not
// followed, and resolved within it).
type dirHandle struct{ r *os.Root }

// noDir is no directory (an Entry after its callback).
var noDir = dirHandle{}

func (h dirHandle) valid() bool { return h.r != nil }

func (h dirHandle) close() { h.r.Close() }

// openTop opens the walk root: a new Root of dir (the caller's, left open)
// when given, else root by its path.
func openTop(root string, dir *os.Root) (dirHandle, error) {
	var r *os.Root
	var err error
	if dir != nil {
		r, err = dir.OpenRoot(".")
	} else {
		r, err = os.OpenRoot(root)
	}
	if err != nil {
		return noDir, err
	}
	return dirHandle{r}, nil
}

// openDir opens the subdirectory name of h, beneath it.
func (h dirHandle) openDir(name string) (dirHandle, error) {
	r, err := h.r.OpenRoot(name)
	if err != nil {
		return noDir, err
	}
	return dirHandle{r}, nil
}

// openFile opens the file name of h for reading, beneath it.
func (h dirHandle) openFile(name string) (io.ReadCloser, error) {
	f, err := h.r.OpenFile(name, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// readDir lists h into out (reused).
func (h dirHandle) readDir(buf []byte, out []dirent) ([]dirent, []byte, error) {
	f, err := h.r.Open(".")
	if err != nil {
		return out, buf, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	for _, e := range ents {
		out = append(out, dirent{name: e.Name(), typ: e.Type()})
	}
	if err != nil && len(ents) == 0 {
		return out, buf, err
	}
	return out, buf, nil
}

// lstat returns the lstat information of name in h.
func (h dirHandle) lstat(name string) (fs.FileInfo, error) { return h.r.Lstat(name) }

// modTime returns the modification time of name in h (not following
// symlinks).
func (h dirHandle) modTime(name string) (time.Time, error) {
	fi, err := h.r.Lstat(name)
	if err != nil {
		return time.Time{}, err
	}
	return fi.ModTime(), nil
}
