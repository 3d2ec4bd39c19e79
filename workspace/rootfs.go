package workspace

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
)

// Confinement at the moment of use. Resolve checks a path's spelling and
// its symlinks when the tool asks for it; what is done with the path later
// (a read, a temp file, a rename, a removal, a stat) goes through the root
// opened once (Workspace.fsroot, an os.Root) by the path's Rel, so that each
// operation resolves beneath the root when it happens and never follows a
// link out of it: a directory swapped for a symlink to elsewhere between the
// check and the use makes the operation fail, never land outside. A commit
// opens each file's directory once (fileAt, itself an os.Root) and makes
// the temp file, renames it and removes files there: the temp file and its
// target are in the same directory, whatever is renamed meanwhile.
//
// What each OS gets is Go's os.Root: on Linux and macOS a walk of openat
// calls with O_NOFOLLOW, each link read and resolved by hand within the
// root; on Windows NtCreateFile relative to the directory's handle, with
// reparse points opened, not followed, and resolved within the root.

// rootName is the os.Root name of the slash-separated root-relative rel.
func rootName(rel string) string {
	if rel == "" || rel == "." {
		return "."
	}
	return filepath.FromSlash(rel)
}

// splitRel splits the slash-separated rel into its directory ("." at the
// top) and its last element.
func splitRel(rel string) (dir, base string) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return ".", rel
	}
	return rel[:i], rel[i+1:]
}

// relOf returns the absolute abs relative to the root, slash-separated; ok
// is false when abs is not below the root.
func (w *Workspace) relOf(abs string) (rel string, ok bool) {
	if !w.inside(abs) || abs == w.root {
		return "", false
	}
	r, err := filepath.Rel(w.root, abs)
	if err != nil {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// fileAt is a file as a commit reaches it: its directory, open and locked
// (lockSet.at), and its name there. dir is nil when the directory does not
// exist.
type fileAt struct {
	dir  *os.Root
	name string
}

// openSubRoot opens the root-relative directory rel beneath the root. Its
// error for something that is not a directory is ENOTDIR (os.Root's own
// says so only in words).
func (w *Workspace) openSubRoot(rel string) (*os.Root, error) {
	r, err := w.fsroot.OpenRoot(rootName(rel))
	if err != nil && !isNotExist(err) {
		if fi, serr := w.fsroot.Stat(rootName(rel)); serr == nil && !fi.IsDir() {
			return nil, &fs.PathError{Op: "open", Path: rel, Err: syscall.ENOTDIR}
		}
	}
	return r, err
}

// isNotExist reports whether err says a path does not exist (or an element
// on its way is not a directory).
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// notAFile is what fileSHA reports for something at a path that is not a
// regular file (a directory, a link, a device): it matches no content.
const notAFile = "(not a regular file)"

// fileSHA returns the sha256 hex of the regular file name in dir, "" when
// it does not exist, notAFile when it is something else.
func fileSHA(dir *os.Root, name string) (string, error) {
	if dir == nil {
		return "", nil
	}
	fi, err := dir.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return notAFile, nil
	}
	f, err := openRead(dir, name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return notAFile, nil
	}
	sum, err := sha256Of(f)
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(sum[:]), nil
}

// writeTemp creates name in dir (it must not exist), writes data, fsyncs it
// and gives it mode (and old's owner when the process may). It removes the
// file on failure.
func writeTemp(dir *os.Root, name string, data []byte, mode fs.FileMode, old fs.FileInfo) error {
	return writeTempFrom(dir, name, bytes.NewReader(data), mode, old, nil)
}

// writeTempFrom is writeTemp of what r reads (a content too large to hold,
// copied through a buffer of 1 MiB); check, when not nil, is given the
// number of bytes written, and the temp file is kept only when it returns
// nil.
func writeTempFrom(dir *os.Root, name string, r io.Reader, mode fs.FileMode, old fs.FileInfo, check func(n int64) error) (err error) {
	f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			dir.Remove(name)
		}
	}()
	var n int64
	if b, ok := r.(*bytes.Reader); ok {
		n, err = b.WriteTo(f) // one write
	} else {
		n, err = io.CopyBuffer(struct{ io.Writer }{f}, struct{ io.Reader }{r}, make([]byte, 1<<20))
	}
	if err != nil {
		return err
	}
	if check != nil {
		if err = check(n); err != nil {
			return err
		}
	}
	if err = f.Sync(); err != nil {
		return err
	}
	keepOwner(f, old)
	if err = f.Chmod(mode); err != nil { // after the owner, which may clear setuid bits
		return err
	}
	return f.Close()
}

// syncDir fsyncs dir, making the renames and removes in it durable. A
// failure is ignored: the operation is done, and a failed directory fsync
// is not a failed write (Windows cannot fsync a directory).
func syncDir(dir *os.Root) {
	if f, err := dir.Open("."); err == nil {
		_ = f.Sync()
		f.Close()
	}
}

// mkdirParents creates the root-relative directory dir and its missing
// parents, returning the directories it made, deepest first.
func (w *Workspace) mkdirParents(dir string) ([]string, error) {
	var missing []string
	for d := dir; d != "." && d != ""; d, _ = splitRel(d) {
		fi, err := w.fsroot.Stat(rootName(d))
		if err == nil && !fi.IsDir() {
			return nil, &fs.PathError{Op: "mkdir", Path: d, Err: syscall.ENOTDIR}
		}
		if !errors.Is(err, fs.ErrNotExist) {
			break
		}
		missing = append(missing, d)
	}
	var made []string
	for i := len(missing) - 1; i >= 0; i-- {
		err := w.fsroot.Mkdir(rootName(missing[i]), 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue // made by someone else meanwhile
		}
		if err != nil {
			w.removeEmptyDirs(made)
			return nil, err
		}
		made = append([]string{missing[i]}, made...)
	}
	return made, nil
}

// removeEmptyDirs removes those of the root-relative dirs that are empty,
// deepest first. (One a racing commit has just locked to create a file in
// makes that commit fail, nothing written, and its caller retry.)
func (w *Workspace) removeEmptyDirs(dirs []string) {
	dirs = slices.Clone(dirs)
	sort.Slice(dirs, func(i, j int) bool { return strings.Count(dirs[i], "/") > strings.Count(dirs[j], "/") })
	for _, d := range dirs {
		if fi, err := w.fsroot.Lstat(rootName(d)); err == nil && fi.IsDir() {
			_ = w.fsroot.Remove(rootName(d)) // fails when not empty
		}
	}
}

// escapesRoot reports whether err is os.Root refusing a path that leads
// out of the root (a symbolic link to elsewhere, met when the operation
// resolved it). os.Root says so with an error of its own that it does not
// export: "path escapes from parent".
func escapesRoot(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err != nil && strings.Contains(pe.Err.Error(), "escapes from parent")
}
