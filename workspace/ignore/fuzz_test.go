package ignore

import "testing"

// FuzzParseAndMatch feeds arbitrary .gitignore content and paths through
// the parser and the matcher: nothing may panic, and a pattern must match
// the same way twice.
func FuzzParseAndMatch(f *testing.F) {
	f.Add([]byte("*.o\n!keep.o\n/build/\n**/gen/**\n[a-c]?\\ \n"), "a/b/keep.o", true)
	f.Add([]byte("\xef\xbb\xbf[[:alpha:]][!x]*\r\n\\#x\n"), "zz", false)
	f.Add([]byte("a[\n[[:\n\\\n***/x/**/y\n"), "x/y", false)
	f.Fuzz(func(t *testing.T, data []byte, path string, isDir bool) {
		ps := ParseFile(data, "", "fuzz")
		for i := range ps {
			a := ps[i].Match(path, isDir)
			b := ps[i].Match(path, isDir)
			if a != b {
				t.Fatalf("non-deterministic match of %q on %q", ps[i].String(), path)
			}
		}
		_ = lastMatch(ps, path, isDir, false)
		_ = lastMatch(ps, path, isDir, true)
	})
}

// FuzzWildmatch checks that the wildmatch port never panics and that a
// pattern without specials matches exactly itself.
func FuzzWildmatch(f *testing.F) {
	f.Add("a/**/b", "a/x/y/b", Pathname)
	f.Add("[!a-]x*", "bxx", 0)
	f.Add("[[:upper:]]*\\", "A", CaseFold)
	f.Fuzz(func(t *testing.T, pattern, text string, flags int) {
		_ = Wildmatch(pattern, text, flags&(Pathname|CaseFold))
		if noWildcard(pattern) && !containsNUL(pattern) && !containsNUL(text) {
			if got := Wildmatch(pattern, text, Pathname); got != (pattern == text) {
				t.Fatalf("literal %q vs %q: got %v", pattern, text, got)
			}
		}
	})
}

func containsNUL(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return true
		}
	}
	return false
}
