package workspace

import (
	"path/filepath"
	"strings"
	"testing"
)

// foldFS is a fake macOS-like file system: a name finds an entry in any
// case and in NFC or NFD (for the few accented letters the tests use).
type foldFS map[string][]string // directory -> stored names

func foldKey(s string) string {
	s = strings.NewReplacer("é", "e\u0301", "É", "E\u0301", "ü", "u\u0308").Replace(s) // NFC -> NFD
	return strings.ToLower(s)
}

func (f foldFS) names(dir string) ([]string, error) {
	n, ok := f[dir]
	if !ok {
		return nil, errFake
	}
	return n, nil
}

func (f foldFS) same(dir, a, b string) bool {
	if foldKey(a) != foldKey(b) {
		return false
	}
	for _, n := range f[dir] {
		if foldKey(n) == foldKey(a) {
			return true
		}
	}
	return false
}

var errFake = &Error{Kind: KindNotFound, Msg: "no such directory"}

func TestCanonicalNames(t *testing.T) {
	if filepath.Separator != '/' {
		t.Skip("the fake file system is written with '/'")
	}
	fsys := foldFS{
		"/":                              {"Users"},
		"/Users":                         {"Me"},
		"/Users/Me":                      {"Proj"},
		"/Users/Me/Proj":                 {"Main.go", "caf\u00e9.txt", "Caf\u0065\u0301", "README.md", "src", "b.go", "B.GO.orig"},
		"/Users/Me/Proj/src":             {"Util.go"},
		"/Users/Me/Proj/Caf\u0065\u0301": {"x.go"},
	}
	tests := []struct {
		in, known, want string
	}{
		{"/Users/Me/Proj/Main.go", "", "/Users/Me/Proj/Main.go"},
		{"/users/me/proj/main.go", "", "/Users/Me/Proj/Main.go"},
		{"/USERS/ME/PROJ/SRC/UTIL.GO", "", "/Users/Me/Proj/src/Util.go"},
		// Another normalisation: NFD on disk, NFC asked, and the reverse.
		{"/Users/Me/Proj/caf\u00e9/x.go", "", "/Users/Me/Proj/Caf\u0065\u0301/x.go"},
		{"/Users/Me/Proj/CAFE\u0301.TXT", "", "/Users/Me/Proj/caf\u00e9.txt"},
		// A missing element ends the walk; the rest stays as written.
		{"/users/me/proj/SRC/New.go", "", "/Users/Me/Proj/src/New.go"},
		{"/users/me/proj/nodir/Sub/x.go", "", "/Users/Me/Proj/nodir/Sub/x.go"},
		{"/Users/Me/Proj/b.go", "", "/Users/Me/Proj/b.go"},
		// Under a known canonical root only the rest is walked.
		{"/Users/Me/Proj/main.go", "/Users/Me/Proj", "/Users/Me/Proj/Main.go"},
		{"/Users/Me/Proj", "/Users/Me/Proj", "/Users/Me/Proj"},
		{"/users/me/proj/main.go", "/Users/Me/Proj", "/Users/Me/Proj/Main.go"},
		{"/", "", "/"},
		{"/elsewhere/a", "", "/elsewhere/a"},
	}
	for _, tt := range tests {
		if got := canonicalNames(tt.in, tt.known, fsys); got != tt.want {
			t.Errorf("canonicalNames(%q, %q) = %q, want %q", tt.in, tt.known, got, tt.want)
		}
	}
}
