package workspace

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
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

// TypeName names the type of a file mode for a person: "named pipe",
// "socket", "character device", "block device", "symbolic link",
// "directory", "regular file", or "irregular file".
func TypeName(m fs.FileMode) string {
	switch t := m.Type(); {
	case t&fs.ModeNamedPipe != 0:
		return "named pipe"
	case t&fs.ModeSocket != 0:
		return "socket"
	case t&fs.ModeCharDevice != 0:
		return "character device"
	case t&fs.ModeDevice != 0:
		return "block device"
	case t&fs.ModeSymlink != 0:
		return "symbolic link"
	case t&fs.ModeDir != 0:
		return "directory"
	case t == 0:
		return "regular file"
	}
	return "irregular file"
}

// Info is what Stat reports of a path. A file the editor has open exists,
// whether or not it is on disk yet.
type Info struct {
	Path    Path
	Kind    string // InfoFile, InfoDir, InfoSymlink, InfoOther; "" when missing
	Exists  bool
	Dir     bool
	Regular bool  // a regular file on disk, or an open buffer
	Overlay bool  // the editor has it open (Size is the buffer's)
	Size    int64 // bytes
	ModTime time.Time
	Mode    fs.FileMode
}

// Stat reports p as tools see it: the editor's open buffer when there is
// one, else the disk (symlinks followed). A missing path is Info{} and no
// error; other failures are KindPermission or KindIO errors.
func (w *Workspace) Stat(p Path) (Info, error) {
	in := Info{Path: p}
	w.mu.RLock()
	o, open := w.overlays[p.Abs]
	w.mu.RUnlock()
	name := rootName(p.Rel)
	st, err := w.fsroot.Stat(name)
	switch {
	case err == nil:
		in.Exists, in.Dir, in.Regular, in.Size, in.ModTime, in.Mode = true, st.IsDir(), st.Mode().IsRegular(), st.Size(), st.ModTime(), st.Mode()
		switch {
		case in.Dir:
			in.Kind = InfoDir
		case in.Regular:
			in.Kind = InfoFile
		default:
			in.Kind = InfoOther
		}
	default:
		// A link whose target is missing, or leads out of the root (it
		// is not followed there), is a link; a missing path is nothing.
		if lst, lerr := w.fsroot.Lstat(name); lerr == nil && lst.Mode()&fs.ModeSymlink != 0 {
			in.Exists, in.Kind, in.Mode = true, InfoSymlink, lst.Mode()
		} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return Info{}, fsError("stat", p.Rel, err)
		}
	}
	if open && !in.Dir {
		in.Exists, in.Regular, in.Overlay, in.Kind, in.Size = true, true, true, InfoFile, int64(len(o.text))
		if in.Mode == 0 {
			in.Mode = 0o644
		}
	}
	return in, nil
}

// Exists reports whether p exists as tools see it (an open buffer counts).
// An error other than "not found" counts as existing: the caller's next
// step then meets and reports it.
func (w *Workspace) Exists(p Path) bool {
	in, err := w.Stat(p)
	return err != nil || in.Exists
}

// DirEntry is one entry of ReadDir.
type DirEntry struct {
	Name    string
	Dir     bool
	Overlay bool // an open buffer with no file on disk yet
	Size    int64
	ModTime time.Time
}

// ReadDir lists the directory p, sorted by name: its entries on disk (links
// followed for the kind and size) plus the editor's open buffers directly
// inside it that are not on disk yet. A missing directory is KindNotFound,
// a file KindIsDir's opposite (KindInvalid).
func (w *Workspace) ReadDir(p Path) ([]DirEntry, error) {
	ents, dir, err := w.readDirIn(p)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, &Error{Kind: KindNotFound, Msg: fmt.Sprintf("directory not found: %s; check the path", p.Rel), Err: err}
		case errors.Is(err, syscall.ENOTDIR):
			return nil, &Error{Kind: KindInvalid, Msg: fmt.Sprintf("%s is a file, not a directory; read it instead", p.Rel), Err: err}
		}
		return nil, fsError("list", p.Rel, err)
	}
	defer dir.Close()
	out := make([]DirEntry, 0, len(ents))
	seen := make(map[string]bool, len(ents))
	for _, e := range ents {
		d := DirEntry{Name: e.Name(), Dir: e.IsDir()}
		// Links are followed within the root only (one out of it is
		// shown as the link it is).
		fi, err := dir.Lstat(e.Name())
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if st, serr := w.fsroot.Stat(rootName(path.Join(p.Rel, e.Name()))); serr == nil {
				fi = st
			}
		}
		if err == nil {
			d.Dir, d.Size, d.ModTime = fi.IsDir(), fi.Size(), fi.ModTime()
		}
		seen[d.Name] = true
		out = append(out, d)
	}
	w.mu.RLock()
	for abs, o := range w.overlays {
		dir, name := splitAbs(abs)
		if dir == p.Abs && !seen[name] {
			out = append(out, DirEntry{Name: name, Overlay: true, Size: int64(len(o.text))})
		}
	}
	w.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// readDirIn lists the directory p, opened beneath the root, and returns it
// open (as an os.Root) for the entries' stats.
func (w *Workspace) readDirIn(p Path) ([]fs.DirEntry, *os.Root, error) {
	dir, err := w.openSubRoot(p.Rel)
	if err != nil {
		return nil, nil, err
	}
	f, err := dir.Open(".")
	if err != nil {
		dir.Close()
		return nil, nil, err
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		dir.Close()
		return nil, nil, err
	}
	return ents, dir, nil
}

// OpenDir opens the directory p beneath the root when it is called (a
// link out of the root on its way fails, KindOutside), for what reads by
// names relative to it: the walks of search, find and list_directory
// (search.WalkOptions.Dir) and SQLite (sqlitedb.File). The caller closes
// it. It is for reading: changes go through Commit.
func (w *Workspace) OpenDir(p Path) (*os.Root, error) {
	dir, err := w.openSubRoot(p.Rel)
	if err != nil {
		if errors.Is(err, syscall.ENOTDIR) {
			return nil, &Error{Kind: KindInvalid, Msg: fmt.Sprintf("%s is a file, not a directory", p.Rel), Err: err}
		}
		return nil, fsError("open", p.Rel, err)
	}
	return dir, nil
}

// OpenParent opens p's directory beneath the root (OpenDir) and returns
// p's name in it.
func (w *Workspace) OpenParent(p Path) (dir *os.Root, name string, err error) {
	d, base := splitRel(p.Rel)
	dir, err = w.OpenDir(Path{Rel: d})
	return dir, base, err
}

// splitAbs splits an absolute path into its directory and base name.
func splitAbs(abs string) (dir, name string) {
	for i := len(abs) - 1; i >= 0; i-- {
		if os.IsPathSeparator(abs[i]) {
			if i == 0 {
				return abs[:1], abs[1:]
			}
			return abs[:i], abs[i+1:]
		}
	}
	return "", abs
}

// OpenReader opens p's disk content for streaming (files too large to
// read whole, archives, SQLite headers), beneath the root when it is
// called. It does not see open buffers: callers use it only for files over
// the size an editor buffer can have, or that no editor holds as text.
func (w *Workspace) OpenReader(p Path) (*os.File, error) {
	f, err := openRead(w.fsroot, rootName(p.Rel))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, notFound(p, err)
		}
		return nil, fsError("open", p.Rel, err)
	}
	return f, nil
}

// FileSHA256 returns the sha256 of p's content as tools see it (the open
// buffer when there is one), streaming files on disk.
func (w *Workspace) FileSHA256(p Path) ([32]byte, error) {
	if text, _, ok := w.Overlay(p); ok {
		return sha256.Sum256(text), nil
	}
	r, err := w.OpenReader(p)
	if err != nil {
		return [32]byte{}, err
	}
	defer r.Close()
	sum, err := sha256Of(r)
	if err != nil {
		return [32]byte{}, fsError("read", p.Rel, err)
	}
	return sum, nil
}
