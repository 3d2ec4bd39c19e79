package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Kinds of Info.Kind.
const (
	InfoFile    = "file"
	InfoDir     = "directory"
	InfoSymlink = "symlink" // a link whose target is missing (Resolve follows the others)
	InfoOther   = "other"   // a device, socket or named pipe
)

// Info is one path as the tools see it: an open editor buffer is a file of
// its buffer's length (even before anything is on disk), anything else is
// what the disk holds.
type Info struct {
	Path    Path
	Kind    string      // InfoFile, InfoDir, InfoSymlink or InfoOther
	Size    int64       // bytes: the buffer's when Overlay, else the disk's (0 for a directory)
	ModTime time.Time   // on disk; zero for a buffer with nothing on disk
	Mode    fs.FileMode // permission bits on disk
	Overlay bool        // the editor has the file open
}

// Stat describes p, seeing open buffers: a missing path is KindNotFound,
// other failures KindPermission or KindIO. It reads no content from disk.
func (w *Workspace) Stat(p Path) (Info, error) {
	in := Info{Path: p}
	st, err := os.Stat(p.Abs)
	switch {
	case err == nil:
		in.ModTime, in.Mode, in.Size = st.ModTime(), st.Mode().Perm(), st.Size()
		switch {
		case st.IsDir():
			in.Kind, in.Size = InfoDir, 0
		case st.Mode().IsRegular():
			in.Kind = InfoFile
		default:
			in.Kind = InfoOther
		}
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		if _, lerr := os.Lstat(p.Abs); lerr == nil {
			in.Kind = InfoSymlink
		}
	default:
		return Info{}, fsError("stat", p.Rel, err)
	}
	w.mu.RLock()
	o, open := w.overlays[p.Abs]
	w.mu.RUnlock()
	if open && in.Kind != InfoDir {
		in.Kind, in.Size, in.Overlay = InfoFile, int64(len(o.text)), true
	}
	if in.Kind == "" {
		return Info{}, &Error{Kind: KindNotFound, Msg: fmt.Sprintf("%s not found", p.Rel), Err: err}
	}
	return in, nil
}

// IsSymlink reports whether spelled, a path as the caller wrote it
// (relative to the root, or absolute), is itself a symbolic link. Resolve
// follows links, so a tool that must not delete or move through one asks
// here first.
func (w *Workspace) IsSymlink(spelled string) bool {
	p, err := expandPath(spelled)
	if err != nil {
		return false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.root, p)
	}
	st, err := os.Lstat(filepath.Clean(p))
	return err == nil && st.Mode()&fs.ModeSymlink != 0
}
