package workspace

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashls/hashls/internal/lazy"
)

// Path is a path confined to the root.
type Path struct {
	Abs string // absolute, inside the root (symlinks in existing parents resolved)
	Rel string // slash-separated, relative to the root ("." for the root)
	// Link: the path as the caller spelled it is itself a symbolic link
	// (Abs is where it leads).
	Link bool
}

// maxLinks bounds symlink hops while resolving one path (like the kernel's
// ELOOP limit).
const maxLinks = 40

// Resolve confines p (relative to the root, or absolute inside it) to the
// root. "..", absolute paths outside the root and symlinks that escape it are
// refused with KindOutside. The file need not exist: the longest existing
// prefix has its symlinks resolved, and a dangling symlink is followed to its
// target's location.
func (w *Workspace) Resolve(p string) (Path, error) {
	if p == "" {
		return Path{}, &Error{Kind: KindInvalid, Msg: "path is empty; give a file path relative to the workspace root " + w.root}
	}
	if strings.IndexByte(p, 0) >= 0 {
		return Path{}, &Error{Kind: KindInvalid, Msg: fmt.Sprintf("path %q contains a NUL byte; give a valid file path", p)}
	}
	p, err := expandPath(p)
	if err != nil {
		return Path{}, err
	}
	if p, err = osPath(p); err != nil { // the OS's path grammar (path_*.go)
		return Path{}, err
	}
	var lexical string
	if filepath.IsAbs(p) {
		lexical = filepath.Clean(p)
	} else {
		lexical = filepath.Join(w.root, p)
	}
	lexInside := w.inside(lexical)
	if !lexInside && !filepath.IsAbs(p) {
		return Path{}, w.outside(p, "")
	}
	real, err := resolveExisting(lexical)
	if err != nil {
		return Path{}, &Error{Kind: KindOutside, Msg: fmt.Sprintf("path %s cannot be resolved inside the workspace root %s: %v", p, w.root, err), Err: err}
	}
	// One spelling per file where the file system accepts several (case,
	// Unicode normalisation, the drive letter's case): path_*.go.
	real = canonicalPath(real, w.root)
	if !w.inside(real) {
		if lexInside {
			return Path{}, w.outside(p, real)
		}
		return Path{}, w.outside(p, "")
	}
	rel, err := filepath.Rel(w.root, real)
	if err != nil {
		return Path{}, w.outside(p, real)
	}
	out := Path{Abs: real, Rel: filepath.ToSlash(rel)}
	if real != lexical {
		if st, err := os.Lstat(lexical); err == nil && st.Mode()&os.ModeSymlink != 0 {
			out.Link = true
		}
	}
	return out, nil
}

// schemeRE matches a URL scheme at the start of a path ("https://").
var schemeRE = lazy.Regexp(`^([A-Za-z][A-Za-z0-9+.-]*)://`)

// expandPath turns the spellings of a path that are not plain file paths
// into one: "~" and "~/…" name the home directory (still confined to the
// root afterwards), file:// URIs their path; any other scheme:// is refused
// (a write would otherwise create a directory named "https:").
func expandPath(p string) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return "", &Error{Kind: KindInvalid, Msg: fmt.Sprintf("path %s starts with ~, but there is no home directory to expand it to; give a path relative to the workspace root", p)}
		}
		return filepath.Join(home, p[1:]), nil
	}
	m := schemeRE().FindStringSubmatch(p)
	if m == nil {
		return p, nil
	}
	if strings.EqualFold(m[1], "file") {
		u, err := url.Parse(p)
		if err != nil || u.Path == "" || (u.Host != "" && u.Host != "localhost" && !uncURIs) {
			return "", &Error{Kind: KindInvalid, Msg: fmt.Sprintf("path %s is not a local file:// URI; give file:///absolute/path or a path relative to the workspace root", p)}
		}
		if u.Host != "" && u.Host != "localhost" { // Windows: file://server/share/x
			return filepath.FromSlash("//" + u.Host + u.Path), nil
		}
		// On Windows, file:///c%3A/x gives /c:/x, which osPath makes c:\x.
		return filepath.FromSlash(u.Path), nil
	}
	return "", &Error{Kind: KindInvalid, Msg: fmt.Sprintf("path %s is a %s:// URL; hashls works on files under the workspace root: give a path relative to it (nothing was created)", p, m[1])}
}

// inside reports whether the clean absolute path abs is the root or below it.
func (w *Workspace) inside(abs string) bool {
	if abs == w.root {
		return true
	}
	prefix := w.root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(abs, prefix)
}

func (w *Workspace) outside(p, via string) *Error {
	if via != "" {
		return &Error{Kind: KindOutside, Msg: fmt.Sprintf("path %s resolves through a symlink to %s, outside the workspace root %s; use a path inside the root", p, via, w.root)}
	}
	return &Error{Kind: KindOutside, Msg: fmt.Sprintf("path %s is outside the workspace root %s; use a path inside the root", p, w.root)}
}

// resolveExisting resolves the symlinks of the longest existing prefix of the
// clean absolute path abs and appends the rest. When the first missing
// element is a dangling symlink, its target is resolved in turn, so the
// result is where a write through the path would land.
func resolveExisting(abs string) (string, error) {
	for hops := 0; hops <= maxLinks; hops++ {
		// Find the longest prefix EvalSymlinks accepts.
		prefix, rest := abs, ""
		var real string
		for {
			r, err := filepath.EvalSymlinks(prefix)
			if err == nil {
				real = r
				break
			}
			parent := filepath.Dir(prefix)
			if parent == prefix { // even "/" failed
				return "", err
			}
			if rest == "" {
				rest = filepath.Base(prefix)
			} else {
				rest = filepath.Join(filepath.Base(prefix), rest)
			}
			prefix = parent
		}
		if rest == "" {
			return real, nil
		}
		first, tail, _ := strings.Cut(rest, string(filepath.Separator))
		next := filepath.Join(real, first)
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return filepath.Join(real, rest), nil
		}
		// A dangling symlink (or one EvalSymlinks could not follow):
		// continue from its target.
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(real, target)
		}
		abs = filepath.Join(filepath.Clean(target), tail)
	}
	return "", fmt.Errorf("too many levels of symbolic links")
}
