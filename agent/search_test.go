package agent

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/workspace"
)

func newSearchEnv(t *testing.T, files map[string]string) (*Env, string) {
	t.Helper()
	root := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.Open(root, workspace.Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return &Env{WS: ws}, ws.Root()
}

func runSearchTool(t *testing.T, env *Env, name string, args any) (*Result, error) {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return runEnv(env, name, b)
}

func mustRunTool(t *testing.T, env *Env, name string, args any) *Result {
	t.Helper()
	res, err := runSearchTool(t, env, name, args)
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return res
}

func TestSearchOutputFormat(t *testing.T) {
	src := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n\nfunc helper() {}\n"
	env, root := newSearchEnv(t, map[string]string{"main.go": src, "lib/util.go": "package lib\n// main is not here\nfunc Util() {}\n"})
	res := mustRunTool(t, env, "search", map[string]any{"pattern": `func main\(`, "paths": "."})
	tag := edit.Tag([]byte(src))
	want := "¶main.go#" + tag + "\n 4:\n*5:func main() {\n 6:\tfmt.Println(\"hi\")\n 7:}\n 8:\n"
	if res.Text != want {
		t.Fatalf("got\n%s\nwant\n%s", res.Text, want)
	}
	d := res.Details.(*searchDetails)
	if d.TotalMatches != 1 || d.TotalFiles != 1 || d.MatchCount != 1 || d.Files[0] != "main.go" {
		t.Fatalf("details %+v", d)
	}
	// The snapshot was recorded under the absolute path.
	if _, ok, err := env.WS.Store().Lookup(filepath.Join(root, "main.go"), tag); err != nil || !ok {
		t.Fatalf("snapshot not recorded: %v %v", ok, err)
	}
	// Adjacent matches share context rows; case-insensitive flag.
	res = mustRunTool(t, env, "search", map[string]any{"pattern": `FUNC`, "paths": []string{"main.go"}, "i": true})
	if !strings.Contains(res.Text, "*5:func main() {\n 6:") || !strings.Contains(res.Text, " 8:\n*9:func helper() {}\n") {
		t.Fatalf("got\n%s", res.Text)
	}
}

func TestSearchPagingAndCaps(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 25; i++ {
		files[fmt.Sprintf("f%02d.txt", i)] = "hit\n"
	}
	files["hot.txt"] = strings.Repeat("hit\n", 300)
	env, _ := newSearchEnv(t, files)
	res := mustRunTool(t, env, "search", map[string]any{"pattern": "hit", "paths": "."})
	d := res.Details.(*searchDetails)
	if d.FileCount != 20 || !d.FileLimitReached || d.NextSkip != 20 || d.TotalFiles != 26 || d.TotalMatches != 325 {
		t.Fatalf("page 1: %+v", d)
	}
	if !strings.Contains(res.Text, "Use skip=20 for the next page") {
		t.Fatalf("no skip hint:\n%s", res.Text)
	}
	res = mustRunTool(t, env, "search", map[string]any{"pattern": "hit", "paths": ".", "skip": 20})
	d = res.Details.(*searchDetails)
	if d.FileCount != 6 || d.FileLimitReached || d.Files[5] != "hot.txt" || d.FileMatches["hot.txt"] != 300 || !d.PerFileLimitReached {
		t.Fatalf("page 2: %+v", d)
	}
	if got := strings.Count(res.Text, "*"); got != 5+20 {
		t.Fatalf("page 2 shows %d matches, want 25", got)
	}
	// A single file shows up to 200 matches and ignores skip.
	res = mustRunTool(t, env, "search", map[string]any{"pattern": "hit", "paths": "hot.txt", "skip": 5})
	d = res.Details.(*searchDetails)
	if d.MatchCount != 200 || d.TotalMatches != 300 || !d.PerFileLimitReached {
		t.Fatalf("single: %+v", d)
	}
	// A line range restricts a single file.
	res = mustRunTool(t, env, "search", map[string]any{"pattern": "hit", "paths": "hot.txt:10-12"})
	if d := res.Details.(*searchDetails); d.MatchCount != 3 || d.TotalMatches != 3 || !strings.Contains(res.Text, "*10:hit\n*11:hit\n*12:hit\n") {
		t.Fatalf("range: %+v\n%s", d, res.Text)
	}
	// Past the last page.
	res = mustRunTool(t, env, "search", map[string]any{"pattern": "hit", "paths": ".", "skip": 100})
	if !strings.HasPrefix(res.Text, "No matches on this page") {
		t.Fatalf("past end: %s", res.Text)
	}
}

func TestSearchLongLinesAndByteCap(t *testing.T) {
	files := map[string]string{}
	long := strings.Repeat("é", 600)
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("f%02d.txt", i)] = strings.Repeat("x"+long+"\n", 20)
	}
	files["latin1.txt"] = "caf\xe9 x\n"
	env, _ := newSearchEnv(t, files)
	res := mustRunTool(t, env, "search", map[string]any{"pattern": "x", "paths": "."})
	d := res.Details.(*searchDetails)
	if !d.LinesTruncated || !d.Truncated || len(res.Text) > DefaultLimits().SearchBytes+200 {
		t.Fatalf("details %+v, %d bytes", d, len(res.Text))
	}
	if !strings.Contains(res.Text, strings.Repeat("é", 511)+"…") {
		t.Fatal("line not cut at 512 characters")
	}
	res = mustRunTool(t, env, "search", map[string]any{"pattern": "caf. x", "paths": "latin1.txt"})
	if !strings.Contains(res.Text, "*1:caf\uFFFD x") {
		t.Fatalf("non-UTF-8: %q", res.Text)
	}
}

func TestSearchPathsAndGitignore(t *testing.T) {
	env, _ := newSearchEnv(t, map[string]string{
		".gitignore":   "gen/\n",
		"src/a.ts":     "needle\n",
		"src/b.go":     "needle\n",
		"src/x/c.ts":   "needle\n",
		"gen/g.ts":     "needle\n",
		".env":         "needle\n",
		"my dir/d.txt": "needle\n",
	})
	names := func(res *Result) string { return strings.Join(res.Details.(*searchDetails).Files, " ") }
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"paths": "."}, ".env my dir/d.txt src/a.ts src/b.go src/x/c.ts"},
		{map[string]any{"paths": ".", "gitignore": false}, ".env gen/g.ts my dir/d.txt src/a.ts src/b.go src/x/c.ts"},
		{map[string]any{"paths": "*.ts"}, "src/a.ts src/x/c.ts"},
		{map[string]any{"paths": "src/*.ts"}, "src/a.ts"},
		{map[string]any{"paths": "src/**/*.ts"}, "src/a.ts src/x/c.ts"},
		{map[string]any{"paths": []string{"src/b.go", "src/x"}}, "src/b.go src/x/c.ts"},
		{map[string]any{"paths": "src/b.go, src/a.ts"}, "src/a.ts src/b.go"},
		{map[string]any{"paths": "my dir"}, "my dir/d.txt"},
		{map[string]any{"paths": "gen/g.ts"}, "gen/g.ts"}, // explicit files ignore .gitignore
		{map[string]any{"paths": []string{"src/a.ts", "nope"}}, "src/a.ts"},
	}
	for _, c := range cases {
		c.args["pattern"] = "needle"
		res := mustRunTool(t, env, "search", c.args)
		if got := names(res); got != c.want {
			t.Errorf("%v: %q, want %q", c.args, got, c.want)
		}
	}
	res := mustRunTool(t, env, "search", map[string]any{"pattern": "needle", "paths": []string{"src/a.ts", "nope"}})
	if d := res.Details.(*searchDetails); len(d.MissingPaths) != 1 || !strings.Contains(res.Text, "Skipped missing paths: nope") {
		t.Fatalf("missing: %+v\n%s", d, res.Text)
	}
	res = mustRunTool(t, env, "search", map[string]any{"pattern": "zzz", "paths": "."})
	if res.Text != "No matches found\n" {
		t.Fatalf("no match text %q", res.Text)
	}
}

func TestSearchErrors(t *testing.T) {
	env, _ := newSearchEnv(t, map[string]string{"a.txt": "x\n", "d/b.txt": "x\n"})
	cases := []struct {
		args map[string]any
		kind string
		msg  string
	}{
		{map[string]any{"pattern": "  ", "paths": "."}, KindUsage, "Pattern must not be empty"},
		{map[string]any{"pattern": "x", "paths": ".", "skip": -1}, KindUsage, "Skip must be a non-negative number"},
		{map[string]any{"pattern": "[", "paths": "."}, KindUsage, "Invalid regex: "},
		{map[string]any{"pattern": "x", "paths": ""}, KindUsage, "`paths` must contain non-empty paths or globs"},
		{map[string]any{"pattern": "x", "paths": []string{}}, KindUsage, "`paths` must contain non-empty"},
		{map[string]any{"pattern": "x", "paths": "nope"}, KindNotFound, "Path not found: nope"},
		{map[string]any{"pattern": "x", "paths": []string{"nope", "nada"}}, KindNotFound, "Path not found: nope, nada"},
		{map[string]any{"pattern": "x", "paths": "d:1-2"}, KindUsage, "Line-range selector requires a single file: d is a directory"},
		{map[string]any{"pattern": "x", "paths": "*.txt:1-2"}, KindUsage, "Line-range selector requires a single file, not a glob"},
		{map[string]any{"pattern": "x", "paths": "nope.txt:3"}, KindNotFound, "Path not found for line-range selector"},
		{map[string]any{"pattern": "x", "paths": "../outside"}, KindOutside, "outside"},
		{map[string]any{"pattern": "x", "paths": ".", "bogus": 1}, KindUsage, "unknown argument"},
	}
	for _, c := range cases {
		_, err := runSearchTool(t, env, "search", c.args)
		e, ok := err.(*Error)
		if !ok || e.Kind != c.kind || !strings.Contains(e.Message, c.msg) {
			t.Errorf("%v: got %v (%T), want %s %q", c.args, err, err, c.kind, c.msg)
		}
	}
}

func TestSearchProgress(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 50; i++ {
		files[fmt.Sprintf("d%d/f.txt", i)] = "x\n"
	}
	env, _ := newSearchEnv(t, files)
	calls := 0
	env.Progress = func(string, int, int) { calls++ }
	mustRunTool(t, env, "search", map[string]any{"pattern": "x", "paths": "."})
	_ = calls // progress fires every 100 ms; a fast search may report nothing
}

func TestSearchArchiveMembers(t *testing.T) {
	env, root := newSearchEnv(t, map[string]string{"plain.txt": "needle\n"})
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for name, content := range map[string]string{
		"src/a.txt":  "one\nneedle here\nthree\n",
		"src/b.md":   "needle\n",
		"bin/x.bin":  "needle\x00",
		"latin1.txt": "needle caf\xe9\n",
	} {
		w, _ := zw.Create(name)
		w.Write([]byte(content))
	}
	zw.Close()
	if err := os.WriteFile(filepath.Join(root, "bundle.zip"), zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	res := mustRunTool(t, env, "search", map[string]any{"pattern": "needle", "paths": "bundle.zip:src/a.txt"})
	if res.Text != "¶bundle.zip:src/a.txt\n 1:one\n*2:needle here\n 3:three\n" {
		t.Fatalf("member:\n%s", res.Text)
	}
	res = mustRunTool(t, env, "search", map[string]any{"pattern": "needle", "paths": "bundle.zip:src/a.txt:3"})
	if !strings.HasPrefix(res.Text, "No matches found") {
		t.Fatalf("member with range:\n%s", res.Text)
	}
	res = mustRunTool(t, env, "search", map[string]any{"pattern": "needle", "paths": []string{"bundle.zip", "plain.txt"}})
	d := res.Details.(*searchDetails)
	if got := strings.Join(d.Files, " "); got != "bundle.zip:src/a.txt bundle.zip:src/b.md plain.txt" {
		t.Fatalf("files %q", got)
	}
	if len(d.ArchiveSkipped) != 2 || !strings.Contains(res.Text, "Skipped unreadable archive members") {
		t.Fatalf("skipped %v\n%s", d.ArchiveSkipped, res.Text)
	}
	res = mustRunTool(t, env, "search", map[string]any{"pattern": "needle", "paths": "bundle.zip:**/*.md"})
	if got := strings.Join(res.Details.(*searchDetails).Files, " "); got != "bundle.zip:src/b.md" {
		t.Fatalf("glob member %q", got)
	}
	for _, bad := range []string{"bundle.zip:bin/x.bin", "bundle.zip:nope.txt"} {
		_, err := runSearchTool(t, env, "search", map[string]any{"pattern": "needle", "paths": bad})
		if e, ok := err.(*Error); !ok || !strings.Contains(e.Message, "Cannot search archive member(s)") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// A page cut by the byte cap ends before the first file it cannot hold,
// and nextSkip names that file: paging shows every file exactly once.
func TestSearchByteCapNextSkip(t *testing.T) {
	files := map[string]string{}
	line := "hit " + strings.Repeat("y", 400) + "\n"
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("f%02d.txt", i)] = strings.Repeat(line, 20) // ~8 KiB shown per file
	}
	env, _ := newSearchEnv(t, files)
	seen := map[string]int{}
	skip := 0
	for range 20 {
		res := mustRunTool(t, env, "search", map[string]any{"pattern": "hit", "paths": ".", "skip": skip})
		d := res.Details.(*searchDetails)
		if len(res.Text) > DefaultLimits().SearchBytes+200 {
			t.Fatalf("skip=%d: %d bytes", skip, len(res.Text))
		}
		for _, f := range d.Files {
			seen[f]++
			if !strings.Contains(res.Text, "¶"+f+"#") {
				t.Fatalf("skip=%d: %s listed but not shown", skip, f)
			}
		}
		if d.NextSkip == 0 {
			break
		}
		if d.NextSkip != skip+d.FileCount {
			t.Fatalf("skip=%d: nextSkip %d after %d files", skip, d.NextSkip, d.FileCount)
		}
		if !strings.Contains(res.Text, fmt.Sprintf("Use skip=%d for the next page", d.NextSkip)) {
			t.Fatalf("no skip hint:\n%s", res.Text[len(res.Text)-300:])
		}
		skip = d.NextSkip
	}
	if len(seen) != 20 {
		t.Fatalf("shown %d of 20 files: %v", len(seen), seen)
	}
	for f, n := range seen {
		if n != 1 {
			t.Fatalf("%s shown %d times", f, n)
		}
	}
}

// Literal mode matches the pattern as a fixed string; comma-joined globs
// are split into their globs (search and find); find's literal mode takes
// glob characters as parts of names.
func TestSearchFindLiteralAndCommaGlobs(t *testing.T) {
	env, _ := newSearchEnv(t, map[string]string{
		"src/x.go":       "a.b( x\naxb\n",
		"pkg/y.py":       "a.b( y\n",
		"docs/z.md":      "a.b( z\n",
		"lit/[draft].md": "draft\n",
		"lit/d.md":       "d\n",
	})
	cases := []struct {
		tool  string
		args  map[string]any
		want  []string
		not   []string
		isErr bool
	}{
		{tool: "search", args: map[string]any{"pattern": "a.b(", "paths": ".", "literal": true}, want: []string{"¶src/x.go#", "*1:a.b( x", "¶pkg/y.py#"}, not: []string{"*2:axb"}},
		{tool: "search", args: map[string]any{"pattern": " x", "paths": "src", "literal": true}, want: []string{"*1:a.b( x"}},
		{tool: "search", args: map[string]any{"pattern": "a.b", "paths": "src/*.go,pkg/*.py"}, want: []string{"¶src/x.go#", "¶pkg/y.py#"}, not: []string{"docs/z.md"}},
		{tool: "search", args: map[string]any{"pattern": "a.b", "paths": "src/*.go; pkg/*.py"}, want: []string{"¶src/x.go#", "¶pkg/y.py#"}},
		{tool: "find", args: map[string]any{"paths": "src/*.go,pkg/*.py"}, want: []string{"x.go", "y.py"}, not: []string{"z.md"}},
		{tool: "find", args: map[string]any{"paths": "lit/[draft].md", "literal": true}, want: []string{"[draft].md"}, not: []string{"d.md\n"}},
		{tool: "find", args: map[string]any{"paths": "lit/[draft].md"}, want: []string{"d.md"}},
	}
	for _, c := range cases {
		res, err := runSearchTool(t, env, c.tool, c.args)
		if err != nil {
			t.Errorf("%s %v: %v", c.tool, c.args, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(res.Text, w) {
				t.Errorf("%s %v: no %q in\n%s", c.tool, c.args, w, res.Text)
			}
		}
		for _, n := range c.not {
			if strings.Contains(res.Text, n) {
				t.Errorf("%s %v: %q in\n%s", c.tool, c.args, n, res.Text)
			}
		}
	}
}
