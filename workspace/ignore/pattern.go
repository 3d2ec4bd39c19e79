// Package ignore applies .gitignore rules exactly as git does: pattern
// parsing (comments, escapes, trailing spaces, negation, directory-only and
// anchored patterns), matching with a port of git's wildmatch.c ('?',
// classes, "**"), and precedence across nested .gitignore files,
// .git/info/exclude and the global excludes file (core.excludesFile,
// default $XDG_CONFIG_HOME/git/ignore). It never imports the workspace
// package: it works on an absolute root directory and slash-separated
// paths relative to it.
//
// Entry points: ParseFile / ParseLine for patterns, Wildmatch for the
// matcher, New for a Matcher over a directory tree (Ignored answers
// git check-ignore's question; Frame is the per-directory state a parallel
// walker carries down the tree).
package ignore

import (
	"bytes"
	"strings"
)

// Pattern flags, as in git's dir.c.
const (
	flagNoDir     = 1 << iota // no slash in the pattern: match the basename
	flagEndsWith              // "*literal": suffix compare
	flagMustBeDir             // trailing slash: directories only
	flagNegative              // leading "!": re-include
)

// Pattern is one parsed .gitignore line.
type Pattern struct {
	pattern string // without "!" and trailing "/"
	nowild  int    // length of the leading part without glob specials
	flags   int
	base    string // directory of the defining file relative to the root, "" or ending in "/"
	// Source and Line locate the pattern (for messages and tests).
	Source string
	Line   int
}

// Negative reports whether the pattern re-includes ("!pattern").
func (p *Pattern) Negative() bool { return p.flags&flagNegative != 0 }

// String returns the pattern as written (without trailing spaces).
func (p *Pattern) String() string {
	s := p.pattern
	if p.flags&flagMustBeDir != 0 {
		s += "/"
	}
	if p.flags&flagNegative != 0 {
		s = "!" + s
	}
	return s
}

// simpleLength is the length of the leading run without glob specials.
func simpleLength(s string) int {
	for i := 0; i < len(s); i++ {
		if isGlobSpecial(s[i]) || s[i] == 0 {
			return i
		}
	}
	return len(s)
}

func noWildcard(s string) bool { return simpleLength(s) == len(s) }

// trimTrailingSpaces removes unescaped trailing spaces (git's
// trim_trailing_spaces: only ' ', a backslash protects the next byte).
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i >= len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// ParseLine parses one line (already stripped of its line ending) of a
// file whose directory is base ("" for the root, else "dir/sub/"). ok is
// false for blank lines and comments.
func ParseLine(line, base string) (p Pattern, ok bool) {
	if line == "" || line[0] == '#' {
		return Pattern{}, false
	}
	// C strings end at NUL.
	if i := strings.IndexByte(line, 0); i >= 0 {
		line = line[:i]
	}
	line = trimTrailingSpaces(line)
	flags := 0
	if strings.HasPrefix(line, "!") {
		flags |= flagNegative
		line = line[1:]
	}
	n := len(line)
	if n > 0 && line[n-1] == '/' {
		n--
		flags |= flagMustBeDir
	}
	if strings.IndexByte(line[:n], '/') < 0 {
		flags |= flagNoDir
	}
	nowild := simpleLength(line)
	if nowild > n {
		nowild = n
	}
	if strings.HasPrefix(line, "*") && noWildcard(line[1:]) {
		flags |= flagEndsWith
	}
	return Pattern{pattern: line[:n], nowild: nowild, flags: flags, base: base}, true
}

// ParseFile parses the content of a .gitignore-style file whose directory
// is base ("" or "dir/"): a leading UTF-8 BOM is skipped, CRLF is accepted,
// blank lines and comments are dropped. source names the file.
func ParseFile(data []byte, base, source string) []Pattern {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var out []Pattern
	lineno := 1
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		if len(line) > 0 && line[0] != '#' {
			line = bytes.TrimSuffix(line, []byte("\r"))
			// A line that is only "\r" gives git an empty pattern, which
			// never matches: ParseLine drops it.
			if p, ok := ParseLine(string(line), base); ok {
				p.Source, p.Line = source, lineno
				out = append(out, p)
			}
		}
		lineno++
	}
	return out
}

// foldEq compares a and b, ASCII case-insensitively when icase (git's
// fspathncmp under core.ignorecase).
func foldEq(a, b string, icase bool) bool {
	if !icase {
		return a == b
	}
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if toLower(a[i]) != toLower(b[i]) {
			return false
		}
	}
	return true
}

// matchBasename is git's match_basename.
func (p *Pattern) matchBasename(basename string, icase bool) bool {
	pat := p.pattern
	if p.nowild == len(pat) {
		return foldEq(pat, basename, icase)
	}
	if p.flags&flagEndsWith != 0 {
		return len(pat)-1 <= len(basename) && foldEq(basename[len(basename)-(len(pat)-1):], pat[1:], icase)
	}
	flags := 0
	if icase {
		flags = CaseFold
	}
	return Wildmatch(pat, basename, flags)
}

// matchPathname is git's match_pathname; path is relative to the root.
func (p *Pattern) matchPathname(path string, icase bool) bool {
	pat := p.pattern
	prefix := p.nowild
	if strings.HasPrefix(pat, "/") {
		pat = pat[1:]
		prefix--
	}
	base := p.base
	baselen := len(base)
	if baselen > 0 {
		baselen-- // without the trailing slash
	}
	if len(path) < baselen+1 || (baselen > 0 && path[baselen] != '/') || !foldEq(path[:baselen], base[:baselen], icase) {
		return false
	}
	name := path
	if baselen > 0 {
		name = path[baselen+1:]
	}
	if prefix > 0 {
		if prefix > len(name) || !foldEq(name[:prefix], pat[:prefix], icase) {
			return false
		}
		pat = pat[prefix:]
		name = name[prefix:]
		if pat == "" && name == "" {
			return true
		}
	}
	flags := Pathname
	if icase {
		flags |= CaseFold
	}
	return Wildmatch(pat, name, flags)
}

// Match reports whether the pattern matches path (relative to the root,
// slash-separated, no trailing slash) whose last element is a directory when
// isDir. The negation flag is not applied. Matching is case-sensitive (see
// MatchFold).
func (p *Pattern) Match(path string, isDir bool) bool { return p.match(path, isDir, false) }

// MatchFold is Match with core.ignorecase semantics (ASCII case folding).
func (p *Pattern) MatchFold(path string, isDir bool) bool { return p.match(path, isDir, true) }

func (p *Pattern) match(path string, isDir, icase bool) bool {
	if p.flags&flagMustBeDir != 0 && !isDir {
		return false
	}
	if p.flags&flagNoDir != 0 {
		basename := path
		if i := strings.LastIndexByte(path, '/'); i >= 0 {
			basename = path[i+1:]
		}
		return p.matchBasename(basename, icase)
	}
	return p.matchPathname(path, icase)
}

// lastMatch returns the last pattern in ps matching path, or nil.
func lastMatch(ps []Pattern, path string, isDir, icase bool) *Pattern {
	for i := len(ps) - 1; i >= 0; i-- {
		if ps[i].match(path, isDir, icase) {
			return &ps[i]
		}
	}
	return nil
}
