package ignore

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Matcher holds the ignore rules of one directory tree: the per-directory
// .gitignore files (loaded lazily), .git/info/exclude and the global
// excludes file. Paths are slash-separated and relative to Top. It is safe
// for concurrent use.
type Matcher struct {
	top     string    // absolute directory paths are relative to
	gitDir  string    // "" when Top is not a repository's top level
	exclude []Pattern // .git/info/exclude
	global  []Pattern // core.excludesFile
	icase   bool      // core.ignorecase

	mu     sync.Mutex
	frames map[string]*Frame // directory rel ("" for top) → frame
}

// Frame is the ignore state of one directory: its own .gitignore on top of
// its parent's frames. Frames are immutable once built.
type Frame struct {
	m        *Matcher
	parent   *Frame
	patterns []Pattern // this directory's .gitignore (nil if none)
}

// New returns a Matcher for the tree rooted at the absolute directory top.
// When top holds a .git directory (or a gitdir file) its info/exclude and
// config are read. The global excludes file is read from core.excludesFile
// (system, global and repository config; "~/" expanded) or
// $XDG_CONFIG_HOME/git/ignore (default ~/.config/git/ignore). Unreadable
// files are treated as empty, as git does. core.ignorecase makes matching
// ASCII case-insensitive, as in git.
func New(top string) *Matcher {
	m := &Matcher{top: top, frames: map[string]*Frame{}}
	m.gitDir = gitDirOf(top)
	if m.gitDir != "" {
		common := m.gitDir
		if b, err := os.ReadFile(filepath.Join(m.gitDir, "commondir")); err == nil {
			c := strings.TrimSpace(string(b))
			if !filepath.IsAbs(c) {
				c = filepath.Join(m.gitDir, c)
			}
			common = c
		}
		p := filepath.Join(common, "info", "exclude")
		if b, err := os.ReadFile(p); err == nil {
			m.exclude = ParseFile(b, "", p)
		}
	}
	files := configFiles(m.gitDir)
	if v, ok := lastConfigValue(files, "core", "ignorecase"); ok {
		m.icase = configBool(v)
	}
	if p := globalExcludesFile(files); p != "" {
		if b, err := os.ReadFile(p); err == nil {
			m.global = ParseFile(b, "", p)
		}
	}
	return m
}

// Top returns the directory paths are relative to.
func (m *Matcher) Top() string { return m.top }

// IsRepo reports whether Top is the top level of a git repository.
func (m *Matcher) IsRepo() bool { return m.gitDir != "" }

// gitDirOf returns the git directory of a worktree top, or "".
func gitDirOf(top string) string {
	p := filepath.Join(top, ".git")
	fi, err := os.Stat(p)
	if err != nil {
		return ""
	}
	if fi.IsDir() {
		return p
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(b))
	if !strings.HasPrefix(s, "gitdir:") {
		return ""
	}
	d := strings.TrimSpace(strings.TrimPrefix(s, "gitdir:"))
	if !filepath.IsAbs(d) {
		d = filepath.Join(top, d)
	}
	return d
}

// FindTop walks up from the absolute directory dir to the nearest directory
// holding .git and returns it; ok is false when there is none.
func FindTop(dir string) (top string, ok bool) {
	for d := dir; ; {
		if gitDirOf(d) != "" {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// Root returns the frame of Top (its .gitignore loaded).
func (m *Matcher) Root() *Frame { return m.frame("") }

// Frame returns the frame of directory rel (relative to Top, "" for Top),
// with every .gitignore from Top down to rel loaded, whether or not rel is
// itself ignored: a walk that starts inside an ignored directory still
// applies the rules above it to what it finds.
func (m *Matcher) Frame(rel string) *Frame { return m.frame(strings.Trim(rel, "/")) }

// frame returns (building and caching) the frame of directory rel, loading
// every .gitignore from Top down. It does not check whether rel itself is
// ignored.
func (m *Matcher) frame(rel string) *Frame {
	m.mu.Lock()
	f, ok := m.frames[rel]
	m.mu.Unlock()
	if ok {
		return f
	}
	var parent *Frame
	if rel != "" {
		dir := ""
		if i := strings.LastIndexByte(rel, '/'); i >= 0 {
			dir = rel[:i]
		}
		parent = m.frame(dir)
	} else {
		parent = &Frame{m: m}
	}
	f = parent.Child(rel)
	m.mu.Lock()
	m.frames[rel] = f
	m.mu.Unlock()
	return f
}

// Child returns the frame of the directory rel (relative to Top), a child of
// f's directory, with rel/.gitignore loaded. A .gitignore that is a symlink
// is not followed, as in git.
func (f *Frame) Child(rel string) *Frame {
	b, ok := f.m.readGitignore(rel)
	if !ok {
		return f // nothing new: share the frame
	}
	return f.ChildFrom(rel, b)
}

// readGitignore reads rel/.gitignore beneath Top (os.Root): no link, nor a
// directory swapped for one while it is read, leads the read out of Top. A
// .gitignore that is not a regular file (a symlink, as in git) is not
// read; ok is false when there is nothing to read.
func (m *Matcher) readGitignore(rel string) (b []byte, ok bool) {
	// Most directories have none: one lstat by path says so (nothing is
	// read through it) before the read beneath Top is set up.
	if _, err := os.Lstat(filepath.Join(m.top, filepath.FromSlash(rel), ".gitignore")); err != nil {
		return nil, false
	}
	r, err := os.OpenRoot(m.top)
	if err != nil {
		return nil, false
	}
	defer r.Close()
	name := filepath.Join(filepath.FromSlash(rel), ".gitignore")
	if fi, err := r.Lstat(name); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	file, err := r.Open(name)
	if err != nil {
		return nil, false
	}
	defer file.Close()
	if fi, err := file.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	b, err = ReadFile(file)
	return b, err == nil
}

// MaxFileBytes is the largest .gitignore read (by a walk, or through
// Frame); a larger one is taken as empty, as git does.
const MaxFileBytes = 100 << 20

// ReadFile reads an ignore file from r, up to MaxFileBytes.
func ReadFile(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err == nil && len(b) > MaxFileBytes {
		return nil, errors.New(".gitignore too large")
	}
	return b, err
}

// ChildFrom is Child with rel/.gitignore's content given: a walker that
// reads the file through the directory it holds open (not by its path)
// passes what it read.
func (f *Frame) ChildFrom(rel string, gitignore []byte) *Frame {
	base := ""
	if rel != "" {
		base = rel + "/"
	}
	ps := ParseFile(gitignore, base, filepath.Join(f.m.top, filepath.FromSlash(rel), ".gitignore"))
	if len(ps) == 0 {
		return f // nothing new: share the frame
	}
	return &Frame{m: f.m, parent: f, patterns: ps}
}

// Match returns the pattern deciding path (relative to Top; its parent
// directory must be f's directory or below the directories whose .gitignore
// f holds): the deepest .gitignore first, then info/exclude, then the global
// file; within a file the last matching line wins. nil means no rule.
func (f *Frame) Match(path string, isDir bool) *Pattern {
	for fr := f; fr != nil; fr = fr.parent {
		if len(fr.patterns) > 0 {
			if p := lastMatch(fr.patterns, path, isDir, f.m.icase); p != nil {
				return p
			}
		}
	}
	if p := lastMatch(f.m.exclude, path, isDir, f.m.icase); p != nil {
		return p
	}
	return lastMatch(f.m.global, path, isDir, f.m.icase)
}

// Ignored reports whether path (a direct child of f's directory) is ignored
// by f's rules alone (parents are the walker's business).
func (f *Frame) Ignored(path string, isDir bool) bool {
	p := f.Match(path, isDir)
	return p != nil && !p.Negative()
}

// Ignored answers `git check-ignore` for path (relative to Top, slash
// separated): a path under an ignored directory is ignored whatever its own
// rules say; .gitignore files inside ignored directories are not read.
func (m *Matcher) Ignored(path string, isDir bool) bool {
	p := m.Decide(path, isDir)
	return p != nil && !p.Negative()
}

// Decide returns the pattern that decides path as `git check-ignore -v`
// reports it (nil when none). When an ancestor directory is ignored, its
// pattern is returned.
func (m *Matcher) Decide(path string, isDir bool) *Pattern {
	path = strings.Trim(path, "/")
	parts := strings.Split(path, "/")
	f := m.frame("")
	for i := 0; i < len(parts)-1; i++ {
		d := strings.Join(parts[:i+1], "/")
		if p := f.Match(d, true); p != nil && !p.Negative() {
			return p
		}
		f = m.frame(d)
	}
	return f.Match(path, isDir)
}
