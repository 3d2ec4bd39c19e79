package search

import (
	"strings"
	"testing"

	"github.com/hashls/hashls/workspace/ignore"
)

func TestGlob(t *testing.T) {
	cases := []struct {
		glob, path string
		want       bool
	}{
		{"**/*.go", "main.go", true},
		{"**/*.go", "a/b/main.go", true},
		{"*.go", "a/main.go", false},
		{"src/*.ts", "src/a.ts", true},
		{"src/*.ts", "src/x/a.ts", false},
		{"src/**/*.ts", "src/x/y/a.ts", true},
		{"{a,b}/*.go", "b/x.go", true},
		{"{a,b}/*.go", "c/x.go", false},
		{"*.{go,md}", "x.md", true},
		{"*.{go,{md,txt}}", "x.txt", true},
		{"{lone", "{lone", true},
		{"x{}y", "x{}y", true},
		{"[{]x,y}", "{x,y}", true},
		{"\\{a,b}", "{a,b}", true},
		{"file?.txt", "file1.txt", true},
		{"file?.txt", "file/.txt", false},
		{"[!a]*", "b", true},
		{"[!a]*", "a", false},
		{"**/*.go", ".go", true},
		{"**/*", "a/b", true},
		{"a/b.go", "a/b.go", true},
		{"**/*.go", "a/b.go/c", false},
	}
	for _, c := range cases {
		g, err := CompileGlob(c.glob)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Match(c.path); got != c.want {
			t.Errorf("%q ~ %q = %v, want %v", c.glob, c.path, got, c.want)
		}
	}
}

func TestGlobPrune(t *testing.T) {
	cases := []struct {
		glob, dir string
		want      bool
	}{
		{"**/*.go", "a/b", true},
		{"src/*.go", "src", true},
		{"src/*.go", "lib", false},
		{"src/*.go", "src/x", false},
		{"src/**/x", "src/a/b", true},
		{"{src,lib}/*/x.go", "lib/q", true},
		{"{src,lib}/*/x.go", "lib/q/r", false},
	}
	for _, c := range cases {
		g, _ := CompileGlob(c.glob)
		if got := g.CouldMatchUnder(c.dir); got != c.want {
			t.Errorf("%q under %q = %v, want %v", c.glob, c.dir, got, c.want)
		}
	}
}

func TestGlobExplosion(t *testing.T) {
	p := ""
	for i := 0; i < 14; i++ {
		p += "{a,b}"
	}
	if _, err := CompileGlob(p); err == nil {
		t.Fatal("want an error for 2^14 alternatives")
	}
}

func FuzzGlob(f *testing.F) {
	f.Add("**/*.{go,md}", "a/b.go")
	f.Add("{a,{b,c}}[!x]?\\{", "cz?{")
	f.Add("[{]{,}", "{")
	f.Fuzz(func(t *testing.T, pattern, path string) {
		g, err := CompileGlob(pattern)
		if err != nil {
			return
		}
		got := g.Match(path)
		want := false
		for _, a := range g.alts {
			if ignore.Wildmatch(a, path, ignore.Pathname) {
				want = true
			}
		}
		if got != want && !strings.Contains(path, "\x00") { // paths hold no NUL
			t.Fatalf("fast path disagrees: %q on %q: %v, wildmatch %v", pattern, path, got, want)
		}
		_ = g.CouldMatchUnder(path)
	})
}
