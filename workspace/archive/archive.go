// Package archive reads and rewrites zip, jar, tar and gzip-compressed tar
// archives for the read, write and search tools: `bundle.zip:dir/file.txt`
// names one member. It is pure (no workspace or agent import): it reads an
// archive file its caller has opened (beneath the workspace root:
// Workspace.OpenReader), never a path.
//
// Entry points: Candidates splits a tool path into archive and member,
// NormalizeMember validates a member path (no "..", no absolute names),
// List indexes an archive, ReadMember reads one member, Each streams the
// members (the search tool), and Rewrite returns new archive bytes with one
// member replaced or added.
package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"time"
)

// Kind is an archive container format.
type Kind int

// Archive kinds.
const (
	Zip Kind = iota + 1
	Tar
	TarGz
)

// exts are the recognised archive extensions, longest first where one is a
// suffix of another.
var exts = []struct {
	ext  string
	kind Kind
}{{".tar.gz", TarGz}, {".tgz", TarGz}, {".tar", Tar}, {".zip", Zip}, {".jar", Zip}}

// MaxMemberBytes is the largest member ReadMember returns (64 MiB).
const MaxMemberBytes = 64 << 20

// Errors callers may test with errors.Is.
var (
	ErrNotFound = errors.New("no such archive member")
	ErrTooLarge = errors.New("archive member too large")
	ErrCorrupt  = errors.New("corrupt or unsupported archive")
)

// KindOf returns the kind of the archive named name (by extension).
func KindOf(name string) (Kind, bool) {
	lower := strings.ToLower(name)
	for _, e := range exts {
		if strings.HasSuffix(lower, e.ext) {
			return e.kind, true
		}
	}
	return 0, false
}

// IsArchiveName reports whether p ends in an archive extension.
func IsArchiveName(p string) bool {
	_, ok := KindOf(p)
	return ok
}

// Candidate is one way to read a tool path as archive + member.
type Candidate struct {
	Archive   string // the archive file path (as given)
	Member    string // what follows the ':' ("" when none), not yet normalised
	HasMember bool   // a ':' followed the archive name
}

// Candidates lists the ways p can name an archive (member): every archive
// extension followed by ':' or the end of p, earliest first. The caller
// picks the first whose archive file exists.
func Candidates(p string) []Candidate {
	lower := strings.ToLower(p)
	var out []Candidate
	for i := 0; i < len(lower); i++ {
		for _, e := range exts {
			if !strings.HasPrefix(lower[i:], e.ext) {
				continue
			}
			end := i + len(e.ext)
			if end == len(p) {
				out = append(out, Candidate{Archive: p})
			} else if p[end] == ':' {
				out = append(out, Candidate{Archive: p[:end], Member: p[end+1:], HasMember: true})
			}
			break
		}
	}
	return out
}

// SplitArchivePath splits "bundle.zip:src/foo.ts" into the archive path and
// the member ("" when p names no member; a leading "/" is dropped). ok is
// false when p does not hold an archive name followed by ':'.
func SplitArchivePath(p string) (archive, member string, ok bool) {
	for _, c := range Candidates(p) {
		if c.HasMember {
			return c.Archive, strings.TrimPrefix(c.Member, "/"), true
		}
	}
	return "", "", false
}

// NormalizeMember cleans a member path: '\' becomes '/', empty and "."
// segments are dropped. ".." segments, absolute paths, drive letters and NUL
// bytes are refused (zip-slip). The root of the archive is "". dir reports a
// trailing '/'.
func NormalizeMember(m string) (clean string, dir bool, err error) {
	if strings.IndexByte(m, 0) >= 0 {
		return "", false, fmt.Errorf("archive path %q contains a NUL byte", m)
	}
	m = strings.ReplaceAll(m, "\\", "/")
	if strings.HasPrefix(m, "/") {
		return "", false, fmt.Errorf("archive path %q is absolute; name the member relative to the archive root, e.g. dir/file.txt", m)
	}
	if len(m) >= 2 && m[1] == ':' && (m[0]|0x20 >= 'a' && m[0]|0x20 <= 'z') {
		return "", false, fmt.Errorf("archive path %q names a drive; name the member relative to the archive root", m)
	}
	dir = strings.HasSuffix(m, "/")
	var segs []string
	for _, s := range strings.Split(m, "/") {
		switch s {
		case "", ".":
			continue
		case "..":
			return "", false, fmt.Errorf("archive path cannot contain '..' (%q); name the member relative to the archive root", m)
		}
		segs = append(segs, s)
	}
	return strings.Join(segs, "/"), dir, nil
}

// safeName normalises a member name stored in an archive; ok is false for
// names that would escape the archive root (such members are not shown).
func safeName(name string) (string, bool) {
	name = strings.TrimPrefix(name, "./")
	c, _, err := NormalizeMember(name)
	if err != nil || c == "" {
		return "", false
	}
	return c, true
}

// Entry is one member of an archive.
type Entry struct {
	Name    string // normalised, no trailing '/'
	Size    int64
	Dir     bool
	ModTime time.Time
	// Link is the target of a tar symbolic link (or, with Hard, of a hard
	// link: another member's name); "" for files and directories.
	Link string
	Hard bool
}

// ErrLink is returned for a member that is a link: it has no content of
// its own, and a write through it is refused.
var ErrLink = errors.New("archive member is a link")

// Index is the listing of an archive.
type Index struct {
	Entries []Entry // in archive order; implicit directories are not added
	Unsafe  int     // members skipped because their names escape the root
}

// List indexes the archive f (its kind from its name's extension).
func List(f *os.File) (*Index, error) {
	k, size, err := kindSize(f)
	if err != nil {
		return nil, err
	}
	idx := &Index{}
	add := func(name string, size int64, dir bool, mt time.Time, link string, hard bool) {
		c, ok := safeName(name)
		if !ok {
			if strings.Trim(name, "./") != "" {
				idx.Unsafe++
			}
			return
		}
		idx.Entries = append(idx.Entries, Entry{Name: c, Size: size, Dir: dir, ModTime: mt, Link: link, Hard: hard})
	}
	if k == Zip {
		zr, err := zip.NewReader(f, size)
		if err != nil {
			return nil, fmt.Errorf("%w: cannot open as a zip archive: %v", ErrCorrupt, err)
		}
		for _, f := range zr.File {
			add(f.Name, int64(f.UncompressedSize64), f.FileInfo().IsDir(), f.Modified, "", false)
		}
		return idx, nil
	}
	err = walkTarFile(f, size, k, func(h *tar.Header, _ io.Reader) error {
		switch h.Typeflag {
		case tar.TypeDir:
			add(h.Name, 0, true, h.ModTime, "", false)
		case tar.TypeReg:
			add(h.Name, h.Size, false, h.ModTime, "", false)
		case tar.TypeSymlink:
			add(h.Name, 0, false, h.ModTime, h.Linkname, false)
		case tar.TypeLink:
			add(h.Name, 0, false, h.ModTime, h.Linkname, true)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return idx, nil
}

// Children returns the immediate children of dir ("" = the root) of the
// index, directories first then by name; implicit directories (named only
// by their members' paths) are included. exists is false when dir is
// neither the root nor a directory of the archive.
func (x *Index) Children(dir string) (children []Entry, exists bool) {
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	seen := map[string]int{}
	exists = dir == ""
	for _, e := range x.Entries {
		if e.Name == dir && e.Dir {
			exists = true
		}
		if !strings.HasPrefix(e.Name, prefix) || e.Name == dir {
			continue
		}
		exists = true
		rest := e.Name[len(prefix):]
		child := Entry{Name: rest, Size: e.Size, Dir: e.Dir, ModTime: e.ModTime, Link: e.Link, Hard: e.Hard}
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			child = Entry{Name: rest[:i], Dir: true}
		}
		if j, ok := seen[child.Name]; ok {
			if child.Dir {
				children[j].Dir = true
			} else if !children[j].Dir {
				children[j] = child // a duplicate member: the last copy wins, as unzip and tar extract it
			}
			continue
		}
		seen[child.Name] = len(children)
		children = append(children, child)
	}
	sort.SliceStable(children, func(i, j int) bool {
		if children[i].Dir != children[j].Dir {
			return children[i].Dir
		}
		return children[i].Name < children[j].Name
	})
	return children, exists
}

// Find returns the file (or link) entry named name; of duplicate entries,
// the last, which unzip, tar and Python's zipfile extract.
func (x *Index) Find(name string) (Entry, bool) {
	for i := len(x.Entries) - 1; i >= 0; i-- {
		if e := x.Entries[i]; e.Name == name && !e.Dir {
			return e, true
		}
	}
	return Entry{}, false
}

// ReadMember reads the regular member name (normalised) of the archive f,
// refusing members larger than maxBytes with ErrTooLarge. A missing member
// is ErrNotFound.
func ReadMember(f *os.File, name string, maxBytes int64) ([]byte, error) {
	var data []byte
	var problem error
	found := false
	// Of duplicate members the last one wins, as unzip, tar and Python's
	// zipfile extract them.
	err := Each(f, func(n string) bool { return n == name }, maxBytes, func(m Member) {
		found, problem, data = true, nil, nil
		if m.Skipped != "" {
			if m.Skipped == "too large" {
				problem = fmt.Errorf("%w: %s is larger than %d MiB", ErrTooLarge, name, maxBytes>>20)
			} else {
				problem = fmt.Errorf("cannot read %s: %s", name, m.Skipped)
			}
			return
		}
		data = m.Data
	})
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, ErrNotFound
	case problem != nil:
		return nil, problem
	}
	return data, nil
}

// Member is one regular file read from an archive.
type Member struct {
	Name string // normalised
	Data []byte // nil when Skipped
	// Skipped says why the member was not read ("" when it was): too large.
	Skipped string
}

// Each calls fn with the regular members of the archive f whose
// (normalised) names satisfy want, each read up to maxBytes (larger ones
// are reported with Skipped "too large"), one at a time so that only what
// fn keeps stays in memory. Members whose names escape the archive root are
// skipped. Zip (and jar), tar and gzip-compressed tar are understood.
func Each(f *os.File, want func(name string) bool, maxBytes int64, fn func(Member)) error {
	k, size, err := kindSize(f)
	if err != nil {
		return err
	}
	if k == Zip {
		return eachZip(f, size, want, maxBytes, fn)
	}
	return walkTarFile(f, size, k, func(h *tar.Header, r io.Reader) error {
		if h.Typeflag != tar.TypeReg {
			return nil
		}
		name, ok := safeName(h.Name)
		if !ok || !want(name) {
			return nil
		}
		if h.Size > maxBytes {
			fn(Member{Name: name, Skipped: "too large"})
			return nil
		}
		data, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
		if err != nil {
			fn(Member{Name: name, Skipped: err.Error()})
			return nil
		}
		fn(Member{Name: name, Data: data})
		return nil
	})
}

func eachZip(ra io.ReaderAt, size int64, want func(string) bool, maxBytes int64, fn func(Member)) error {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return fmt.Errorf("%w: cannot open as a zip archive: %v", ErrCorrupt, err)
	}
	for _, f := range zr.File {
		if !f.Mode().IsRegular() {
			continue
		}
		name, ok := safeName(f.Name)
		if !ok || !want(name) {
			continue
		}
		if f.UncompressedSize64 > uint64(maxBytes) {
			fn(Member{Name: name, Skipped: "too large"})
			continue
		}
		rc, err := f.Open()
		if err != nil {
			fn(Member{Name: name, Skipped: err.Error()})
			continue
		}
		data, err := io.ReadAll(io.LimitReader(rc, maxBytes+1))
		rc.Close()
		switch {
		case err != nil:
			fn(Member{Name: name, Skipped: err.Error()})
		case int64(len(data)) > maxBytes:
			fn(Member{Name: name, Skipped: "too large"})
		default:
			fn(Member{Name: name, Data: data})
		}
	}
	return nil
}

// kindSize returns the kind of the archive f (by its name) and its size.
func kindSize(f *os.File) (Kind, int64, error) {
	k, ok := KindOf(f.Name())
	if !ok {
		return 0, 0, fmt.Errorf("%s is not a supported archive (zip, jar, tar, tar.gz, tgz)", f.Name())
	}
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	return k, st.Size(), nil
}

// walkTarFile walks the tar (or gzip-compressed tar) of size bytes in ra.
func walkTarFile(ra io.ReaderAt, size int64, k Kind, fn func(*tar.Header, io.Reader) error) error {
	var r io.Reader = io.NewSectionReader(ra, 0, size)
	if k == TarGz {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return fmt.Errorf("%w: not a gzip file: %v", ErrCorrupt, err)
		}
		defer zr.Close()
		r = zr
	}
	return walkTar(r, fn)
}

func walkTar(r io.Reader, fn func(*tar.Header, io.Reader) error) error {
	tr := tar.NewReader(r)
	seen := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if seen > 0 {
				return nil // a truncated archive: keep what was read
			}
			return fmt.Errorf("%w: cannot read the tar archive: %v", ErrCorrupt, err)
		}
		seen++
		if err := fn(h, tr); err != nil {
			return err
		}
	}
}

// Rewrite returns the bytes of an archive of kind k that is old (nil or
// empty: a new archive) with member (normalised, non-empty) set to data:
// replaced in place when it exists, appended otherwise. Every other member
// is copied unchanged. A directory named member is an error.
func Rewrite(old []byte, k Kind, member string, data []byte, now time.Time) ([]byte, error) {
	if member == "" {
		return nil, errors.New("archive write path must target a file inside the archive, e.g. bundle.zip:dir/file.txt")
	}
	if k == Zip {
		return rewriteZip(old, member, data, now)
	}
	return rewriteTar(old, k, member, data, now)
}

func isDirConflict(name, member string, dir bool) bool {
	return (name == member && dir) || strings.HasPrefix(name, member+"/")
}

func rewriteZip(old []byte, member string, data []byte, now time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	writeNew := func() error {
		h := &zip.FileHeader{Name: member, Method: zip.Deflate, Modified: now}
		h.SetMode(0o644)
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	replaced := false
	if len(old) > 0 {
		zr, err := zip.NewReader(bytes.NewReader(old), int64(len(old)))
		if err != nil {
			return nil, fmt.Errorf("%w: cannot open as a zip archive: %v", ErrCorrupt, err)
		}
		zw.SetComment(zr.Comment)
		for _, f := range zr.File {
			name, _ := safeName(f.Name)
			if isDirConflict(name, member, f.FileInfo().IsDir()) {
				return nil, fmt.Errorf("%s is a directory in the archive; write a file inside it", member)
			}
			if name == member {
				if replaced {
					continue // a duplicate entry: keep one
				}
				replaced = true
				if err := writeNew(); err != nil {
					return nil, err
				}
				continue
			}
			if err := zw.Copy(f); err != nil {
				return nil, fmt.Errorf("%w: cannot copy member %s: %v", ErrCorrupt, f.Name, err)
			}
		}
	}
	if !replaced {
		if err := writeNew(); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func rewriteTar(old []byte, k Kind, member string, data []byte, now time.Time) ([]byte, error) {
	var buf bytes.Buffer
	var out io.Writer = &buf
	var gz *gzip.Writer
	if k == TarGz {
		gz = gzip.NewWriter(&buf)
		out = gz
	}
	tw := tar.NewWriter(out)
	newHeader := &tar.Header{Name: member, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data)), ModTime: now, Format: tar.FormatPAX}
	replaced := false
	if len(old) > 0 {
		var r io.Reader = bytes.NewReader(old)
		if k == TarGz {
			zr, err := gzip.NewReader(r)
			if err != nil {
				return nil, fmt.Errorf("%w: not a gzip file: %v", ErrCorrupt, err)
			}
			defer zr.Close()
			r = zr
		}
		tr := tar.NewReader(r)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%w: cannot read the tar archive: %v; the archive was not changed", ErrCorrupt, err)
			}
			name, _ := safeName(h.Name)
			if isDirConflict(name, member, h.Typeflag == tar.TypeDir) {
				return nil, fmt.Errorf("%s is a directory in the archive; write a file inside it", member)
			}
			if name == member && (h.Typeflag == tar.TypeSymlink || h.Typeflag == tar.TypeLink) {
				return nil, fmt.Errorf("%w: %s links to %s; write the member it points to instead", ErrLink, member, h.Linkname)
			}
			if name == member {
				if replaced {
					continue
				}
				replaced = true
				nh := *h
				nh.Typeflag, nh.Size, nh.ModTime, nh.Linkname = tar.TypeReg, int64(len(data)), now, ""
				nh.AccessTime, nh.ChangeTime = time.Time{}, time.Time{}
				nh.Format = tar.FormatPAX
				if err := tw.WriteHeader(&nh); err != nil {
					return nil, err
				}
				if _, err := tw.Write(data); err != nil {
					return nil, err
				}
				continue
			}
			if err := tw.WriteHeader(h); err != nil {
				return nil, fmt.Errorf("cannot copy member %s: %w", h.Name, err)
			}
			if _, err := io.Copy(tw, tr); err != nil {
				return nil, fmt.Errorf("%w: cannot copy member %s: %v", ErrCorrupt, h.Name, err)
			}
		}
	}
	if !replaced {
		if err := tw.WriteHeader(newHeader); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if gz != nil {
		if err := gz.Close(); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// Dir returns the directory part of a normalised member name ("" = root).
func Dir(name string) string {
	d := path.Dir(name)
	if d == "." {
		return ""
	}
	return d
}
