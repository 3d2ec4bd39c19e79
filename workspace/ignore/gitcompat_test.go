package ignore

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// handPatterns are the root .gitignore: each line exercises one rule of
// gitignore(5) or one corner of wildmatch.c.
var handPatterns = []string{
	"# a comment",
	"\\#hash",
	"\\!bang",
	"*.o",
	"!keep.o",
	"*.log",
	"!important.log",
	"foo.txt",
	"file(1).txt",
	"c++",
	"x[1]",
	"x\\[1\\]z",
	"q\\*",
	"q?",
	"a?c",
	"a[!b]c",
	"a[^X]c",
	"a[a-c]c",
	"a[]]c",
	"a[-]c",
	"a[\\]]c",
	"[[:upper:]]akefile",
	"[[:digit:]]*",
	"[[:punct:]]x",
	"[[:space:]]y",
	"[[:bogus:]]z",
	"[[:alpha:]][[:alpha:]]",
	"[a-",
	"[",
	"\\",
	"a\\",
	"README.md",
	"/readme.md",
	"build/",
	"!build/keep/",
	"/build/keep/x.o",
	"!/build/keep/",
	"docs/*.md",
	"docs/**/deep.txt",
	"**/gen",
	"**/gen/**",
	"src/**/test.go",
	"deep/**/z",
	"deep/**/z/",
	"a/**/b/foo.txt",
	"*~",
	"trail\\ ",
	"trail2   ",
	"trail3\\  ",
	"trail4 \\ ",
	"tab\t",
	"core",
	"!core/",
	"a b",
	"sp\\ ace/",
	"br\\[ack\\]/",
	"br[ack]",
	".hidden/",
	".env",
	"!.env",
	"/abc",
	"abc/",
	"*.c",
	"**/foo",
	"foo/**",
	"/foo",
	"x*1",
	"x**1",
	"**/*.bak",
	"***/trip",
	"a/**/nothing",
	"**/x.d/",
	"/",
	"!",
	"!/",
	"*/mid/*",
	"logs/",
	"!logs/important/",
	"logs/important/*.log",
	"*.[oa]",
	"*.[!o]z",
	"*.[^o]y",
	"[!a-z]*.txt",
	"\\[lit\\]",
	"[[]lit]",
	"back\\\\slash",
	"?z",
	"???x",
	"*?*?*?*?*?*?*?*?*?x",
	"a**b",
	"a/b**",
	"**xa",
	"node_modules/",
	"!node_modules/pkg/",
	"node_modules/pkg/keep",
	"/deep/x/",
	"deep/x/y/",
	"!deep/x/y/z/",
	"\xef\xbb\xbfbom",
	"Makefile",
	"!/Makefile",
	"*.TXT",
	"[[:lower:]][[:lower:]][[:lower:]].md",
	"[[:xdigit:]][[:xdigit:]]",
	"[[:alnum:]]-c",
	"[[:graph:]]]",
	"[[:cntrl:]]",
	"[[:print:]].b.c",
	"[[:blank:]]q",
	"[z-a]x",
	"[a-a]b",
	"[---]dash",
	"[!]]bang",
	"[]-]rb",
	"a[[:digit:][:upper:]]c",
	"a[[:digit:]-z]c",
	"x[[:]]y",
	"src/*/",
	"src/*",
	"!src/keep*",
	"!src/gen/",
	"src/gen/*.go",
	"**/**/double",
	"/**/anch",
	"dir\\/",
	"esc\\aped",
	"\\ lead",
	" lead2",
	"\\!neg",
	"!\\!neg2",
	"foo/bar/",
	"/a/b/c/",
	"a/b/c/foo",
	"!a/b/c/foo.txt",
	"*.d/",
	"#not-a-comment-because-not-first",
}

var aPatterns = []string{
	"*",
	"!*.txt",
	"!*/",
	"b/*.o",
	"!/b/keep.o",
	"/foo",
	"foo/",
	"**/c/**",
	"!**/c/foo",
	"?.b.c",
	"[!x]bc",
	"file(1).txt",
	"!file1.txt",
	"c++",
	"!c++",
	"x[1]",
	"/Makefile",
	"core/",
	"README.md",
	"!README.md",
	"b/c/",
	"!b/c/",
	"a b/",
	"test.go",
	"/b/c/test.go",
	"*.log",
	"!**/bar.log",
	"tmp~",
	"\\#hash",
	"!\\#hash",
	"qq",
	"/qq/",
	"xa",
	"x1",
	"abc",
	"!abc",
	"aXc",
	"a-c",
	"a]c",
	"b/**/foo.txt",
}

var abPatterns = []string{
	"?",
	"foo.txt",
	"!foo.o",
	"/c",
	"c/foo",
	"!/c/foo.o",
	"*.md",
	"!README.md",
	"**/bar.log",
	"a.b.c",
	"[a-z][a-z]",
	"!qq",
	"x?",
	"!x1",
	"trail ",
	"trail\\ ",
	"c++",
	"file?1?.txt",
	"file\\(1\\).txt",
	"../escape",
	"./dot",
}

var excludePatterns = []string{
	"*.exclude",
	"foo.o",
	"!core",
	"abc",
	"/a/xa",
	"src/",
	"!src/",
	"*.go",
	"!test.go",
	"deep/x/y/z/1st",
	"q*",
	"xa",
	"!x1",
	"b/zz/",
	"br*",
}

var globalPatterns = []string{
	"*.global",
	"*.go",
	"a.b.c",
	"!a.b.c",
	"tmp~",
	"!*~",
	"Makefile",
	"/docs/",
	"sp ace",
	"a-c",
	"a]c",
	"#hash",
	"\\#hash",
	"readme.md",
	"!/readme.md",
}

var treeDirs = []string{
	"a", "a/b", "a/b/c", "a/foo", "build", "build/keep", "src", "src/gen", "src/keepme",
	"docs", "docs/x", "deep", "deep/x", "deep/x/y", "deep/x/y/z", "node_modules",
	"node_modules/pkg", "sp ace", "br[ack]", ".hidden", "logs", "logs/important",
	"core", "foo", "abc", "x.d", "mid", "m/mid", "m/mid/n", "anch", "z/anch", "trip", "x/trip",
	"double", "q/double", "a b",
}

var treeFiles = []string{
	"foo", "foo.txt", "foo.o", "keep.o", "x.a", "x.oz", "x.az", "x.ay", "x.oy", "bar.log", "important.log",
	"file(1).txt", "file1.txt", "c++", "c", "x[1]", "x[1]z", "x1", "xa", "x11", "xb1", "#hash",
	"!bang", "bang", "!neg", "neg2", "!neg2", "Makefile", "makefile", "README.md", "readme.md",
	"test.go", "main.go", "a.b.c", "qq", "q", "q*", "qx", ".env", "tmp~", "abc", "aXc", "abcd", "a-c",
	"a]c", "a\\c", "a b", "trail ", "trail", "trail2", "trail3 ", "trail4  ", "tab\t", "1st",
	".x", " y", "Zz", "deep.txt", "lit", "[lit]", "back\\slash", "aab", "ab", "ba", "e.TXT",
	"abc.md", "ff", "0F", "x-c", "]]", "!x.b.c", "\tq", "ax", "b", "zx", "ab", "---dash", "-dash",
	"xbang", "]bang", "]rb", "-rb", "a5c", "aZc", "a-c", "x:y", "esc", "escaped", "esaped",
	" lead", "lead", " lead2", "lead2", "keep1", "bom", "f.exclude", "f.global", "dir",
	"x.bak", "double", "anch", "trip", "8ball", "aaaaaaaaaax", "sp ace",
}

// TestMatchesGitCheckIgnore builds a tree with several hundred tricky
// patterns spread over nested .gitignore files, info/exclude and the global
// excludes file, and compares the deciding pattern of every path with
// `git check-ignore -v -n`.
func TestMatchesGitCheckIgnore(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for _, c := range []struct{ viaConfig, icase bool }{{false, false}, {true, false}, {false, true}} {
		t.Run(fmt.Sprintf("excludesFileViaConfig=%v,ignorecase=%v", c.viaConfig, c.icase), func(t *testing.T) {
			compareWithGit(t, c.viaConfig, c.icase)
		})
	}
}

func genPatterns(r *rand.Rand, n int) []string {
	atoms := []string{"foo", "x1", "xa", "a b", "a.b.c", "qq", "abc", "deep", "src", "gen", "keep.o", "bar.log", "a b", "c++", "file(1).txt"}
	wild := func(s string) string {
		b := []byte(s)
		if len(b) < 3 {
			return s
		}
		i := r.Intn(len(b))
		switch r.Intn(6) {
		case 0:
			b[i] = '?'
		case 1:
			return string(b[:i]) + "*" + string(b[i+1:])
		case 2:
			return string(b[:i]) + "[" + string(b[i]) + "x-z]" + string(b[i+1:])
		case 3:
			return string(b[:i]) + "[!" + string(b[i]) + "]" + string(b[i+1:])
		case 4:
			return string(b[:i]) + "\\" + string(b[i:])
		}
		return string(b)
	}
	var out []string
	for len(out) < n {
		p := wild(atoms[r.Intn(len(atoms))])
		if r.Intn(3) == 0 {
			p = wild(atoms[r.Intn(len(atoms))]) + "/" + p
		}
		switch r.Intn(6) {
		case 0:
			p = "/" + p
		case 1:
			p = "**/" + p
		case 2:
			p += "/**"
		case 3:
			p = p + "/"
		}
		if r.Intn(4) == 0 {
			p = "!" + p
		}
		out = append(out, p)
	}
	return out
}

func writeLines(t *testing.T, path string, lines []string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func compareWithGit(t *testing.T, viaConfig, icase bool) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "repo")
	home := filepath.Join(tmp, "home")
	xdg := filepath.Join(tmp, "xdg")
	for _, d := range []string{root, home, xdg} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	os.Unsetenv("GIT_CONFIG_GLOBAL")
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CEILING_DIRECTORIES"} {
		if v, ok := os.LookupEnv(k); ok {
			t.Setenv(k, v)
			os.Unsetenv(k)
		}
	}
	git := func(stdin []byte, args ...string) []byte {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Stdin = bytes.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Fatalf("git %v: %v\n%s", args, err, errb.String())
			}
		}
		return out.Bytes()
	}
	git(nil, "init", "-q")
	git(nil, "config", "core.ignorecase", fmt.Sprint(icase))

	r := rand.New(rand.NewSource(7))
	rootPats := append(append([]string{}, handPatterns...), genPatterns(r, 60)...)
	if viaConfig {
		// Re-include every directory so that files below are decided by
		// their own rules.
		rootPats = append(rootPats, "!*/")
	}
	aPats := append(append([]string{}, aPatterns...), genPatterns(r, 30)...)
	writeLines(t, filepath.Join(root, ".gitignore"), rootPats)
	writeLines(t, filepath.Join(root, "a", ".gitignore"), aPats)
	writeLines(t, filepath.Join(root, "a", "b", ".gitignore"), abPatterns)
	writeLines(t, filepath.Join(root, "src", "gen", ".gitignore"), []string{"!*.go", "x1"})
	writeLines(t, filepath.Join(root, "node_modules", "pkg", ".gitignore"), []string{"!*", "keep"})
	// CRLF, BOM and a missing final newline.
	if err := os.MkdirAll(filepath.Join(root, "deep", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "deep", "x", ".gitignore"), []byte("\xef\xbb\xbfx1\r\n!foo.o\r\n\r\n  \r\nqq  \r\nabc"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeLines(t, filepath.Join(root, ".git", "info", "exclude"), excludePatterns)
	total := len(rootPats) + len(aPats) + len(abPatterns) + len(excludePatterns) + len(globalPatterns) + 10
	if viaConfig {
		p := filepath.Join(home, "my-excludes")
		writeLines(t, p, append(globalPatterns, "*.viaconfig"))
		git(nil, "config", "core.excludesFile", "~/my-excludes")
	} else {
		writeLines(t, filepath.Join(xdg, "git", "ignore"), globalPatterns)
	}
	if total < 200 {
		t.Fatalf("only %d patterns", total)
	}

	var paths []string
	for _, d := range append([]string{""}, treeDirs...) {
		dir := filepath.Join(root, filepath.FromSlash(d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if d != "" {
			paths = append(paths, d)
		}
	}
	for _, d := range append([]string{""}, treeDirs...) {
		for _, f := range treeFiles {
			rel := f
			if d != "" {
				rel = d + "/" + f
			}
			abs := filepath.Join(root, filepath.FromSlash(rel))
			if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
				continue
			}
			if err := os.WriteFile(abs, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, rel)
		}
	}
	sort.Strings(paths)
	paths = slices.Compact(paths)

	out := git([]byte(strings.Join(paths, "\x00")+"\x00"), "check-ignore", "--stdin", "-z", "-v", "-n", "--no-index")
	fields := strings.Split(string(out), "\x00")
	type verdict struct {
		source string
		line   int
	}
	want := map[string]verdict{}
	for i := 0; i+3 < len(fields); i += 4 {
		src, ln, path := fields[i], fields[i+1], fields[i+3]
		v := verdict{}
		if src != "" {
			v.source = src
			v.line, _ = strconv.Atoi(ln)
		}
		want[path] = v
	}
	if len(want) != len(paths) {
		t.Fatalf("git answered %d of %d paths", len(want), len(paths))
	}

	m := New(root)
	mismatches, ignored := 0, 0
	deciders := map[string]int{}
	for _, p := range paths {
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		got := verdict{}
		if pat := m.Decide(p, fi.IsDir()); pat != nil {
			src, err := filepath.Rel(root, pat.Source)
			if err != nil || strings.HasPrefix(src, "..") {
				src = pat.Source
			}
			got = verdict{filepath.ToSlash(src), pat.Line}
		}
		w := want[p]
		// git names the global file as configured; compare by base name.
		if filepath.Base(w.source) != filepath.Base(got.source) || w.line != got.line {
			mismatches++
			if mismatches <= 30 {
				t.Errorf("%q (dir=%v): git says %s:%d, we say %s:%d", p, fi.IsDir(), w.source, w.line, got.source, got.line)
			}
		}
		if m.Ignored(p, fi.IsDir()) {
			ignored++
			deciders[m.Decide(p, fi.IsDir()).String()]++
		}
	}
	if mismatches > 0 {
		t.Errorf("%d of %d paths disagree with git", mismatches, len(paths))
	}
	if testing.Verbose() {
		t.Logf("deciding patterns: %v", deciders)
	}
	t.Logf("%d patterns, %d paths (%d ignored), all agree with git check-ignore", total, len(paths), ignored)
}
