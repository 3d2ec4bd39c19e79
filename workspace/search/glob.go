package search

import (
	"fmt"
	"strings"

	"github.com/hashls/hashls/workspace/ignore"
)

// maxAlternatives bounds brace expansion ({a,b}{c,d}... grows fast).
const maxAlternatives = 4096

// Glob is a compiled path glob: '*' and '?' stay within one path element,
// "**" spans directories, "[...]" classes (with '!' or '^' negation and
// POSIX classes), '\' escapes, and "{a,b}" alternatives (nested allowed).
// Matching uses the same wildmatch engine as .gitignore.
type Glob struct {
	src  string
	alts []string
	fast []fastGlob // per alternative
}

// fastGlob is a shortcut for common alternative shapes.
type fastGlob struct {
	kind int    // fastNone, fastSuffix ("**/*LIT"), fastExact (no specials)
	lit  string // the literal part
}

const (
	fastNone = iota
	fastSuffix
	fastExact
)

func classify(alt string) fastGlob {
	if !strings.ContainsAny(alt, "*?[\\\x00") {
		return fastGlob{fastExact, alt}
	}
	if rest, ok := strings.CutPrefix(alt, "**/*"); ok && !strings.ContainsAny(rest, "*?[\\/\x00") {
		return fastGlob{fastSuffix, rest}
	}
	return fastGlob{}
}

// CompileGlob parses pattern. Unbalanced braces are literal; the only
// error is an expansion that would exceed 4096 alternatives.
func CompileGlob(pattern string) (*Glob, error) {
	alts, err := expandBraces(pattern, 0)
	if err != nil {
		return nil, err
	}
	g := &Glob{src: pattern, alts: alts}
	for _, a := range alts {
		g.fast = append(g.fast, classify(a))
	}
	return g, nil
}

// String returns the pattern as given.
func (g *Glob) String() string { return g.src }

// Match reports whether the slash-separated relative path matches.
func (g *Glob) Match(rel string) bool {
	for i, a := range g.alts {
		switch f := g.fast[i]; f.kind {
		case fastExact:
			if rel == f.lit {
				return true
			}
		case fastSuffix:
			if strings.HasSuffix(rel, f.lit) {
				return true
			}
		default:
			if ignore.Wildmatch(a, rel, ignore.Pathname) {
				return true
			}
		}
	}
	return false
}

// CouldMatchUnder reports whether some path below the directory rel could
// match; false lets a walker prune the directory.
func (g *Glob) CouldMatchUnder(rel string) bool {
	dirSegs := strings.Split(rel, "/")
	for _, a := range g.alts {
		if strings.Contains(a, "\\/") {
			return true
		}
		segs := strings.Split(a, "/")
		ok := true
		for i, d := range dirSegs {
			if i >= len(segs)-1 {
				ok = false // the pattern ends above this directory's children
				break
			}
			if strings.Contains(segs[i], "**") {
				return true
			}
			if !ignore.Wildmatch(segs[i], d, ignore.Pathname) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// expandBraces expands "{a,b}" groups (outermost first, recursively).
// Braces inside [...] classes and escaped braces are literal.
func expandBraces(p string, depth int) ([]string, error) {
	if depth > 32 {
		return []string{p}, nil
	}
	open, close, commas := findBraceGroup(p)
	if open < 0 {
		return []string{p}, nil
	}
	prefix, suffix := p[:open], p[close+1:]
	var parts []string
	last := open + 1
	for _, c := range commas {
		parts = append(parts, p[last:c])
		last = c + 1
	}
	parts = append(parts, p[last:close])
	var out []string
	for _, part := range parts {
		sub, err := expandBraces(prefix+part+suffix, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
		if len(out) > maxAlternatives {
			return nil, fmt.Errorf("glob %q expands to more than %d alternatives; use fewer {a,b} groups", p, maxAlternatives)
		}
	}
	return out, nil
}

// findBraceGroup finds the first balanced "{...}" holding a top-level comma.
func findBraceGroup(p string) (open, close int, commas []int) {
	for start := 0; start < len(p); start++ {
		if p[start] == '\\' {
			start++
			continue
		}
		if p[start] == '[' {
			start = skipClass(p, start)
			continue
		}
		if p[start] != '{' {
			continue
		}
		depth := 0
		commas = commas[:0]
		for i := start; i < len(p); i++ {
			switch p[i] {
			case '\\':
				i++
			case '[':
				i = skipClass(p, i)
			case '{':
				depth++
			case '}':
				depth--
				if depth == 0 {
					if len(commas) > 0 {
						return start, i, commas
					}
					i = len(p) // no comma: literal braces; look further
				}
			case ',':
				if depth == 1 {
					commas = append(commas, i)
				}
			}
		}
	}
	return -1, -1, nil
}

// skipClass returns the index of the ']' closing the class at p[i] == '[',
// or i when the class is not closed (then '[' is an ordinary byte).
func skipClass(p string, i int) int {
	j := i + 1
	if j < len(p) && (p[j] == '!' || p[j] == '^') {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for ; j < len(p); j++ {
		if p[j] == '\\' {
			j++
			continue
		}
		if p[j] == ']' {
			return j
		}
	}
	return i
}

// HasGlobMeta reports whether s holds a glob metacharacter (* ? [ {).
func HasGlobMeta(s string) bool { return strings.ContainsAny(s, "*?[{") }
