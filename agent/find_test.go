package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFindGroupedNewestFirst(t *testing.T) {
	env, root := newSearchEnv(t, map[string]string{
		".gitignore":   "dist/\n",
		"main.go":      "",
		"src/a.go":     "",
		"src/b.go":     "",
		"src/sub/c.go": "",
		".hidden/h.go": "",
		"dist/d.go":    "",
		"README.md":    "",
	})
	now := time.Now()
	ages := map[string]time.Duration{"main.go": 5, "src/a.go": 1, "src/b.go": 4, "src/sub/c.go": 2, ".hidden/h.go": 3}
	for rel, h := range ages {
		ts := now.Add(-h * time.Hour)
		if err := os.Chtimes(filepath.Join(root, rel), ts, ts); err != nil {
			t.Fatal(err)
		}
	}
	res := mustRunTool(t, env, "find", map[string]any{"paths": []string{"*.go"}})
	want := "main.go\n\n# src/\na.go\nb.go\n\n# src/sub/\nc.go\n\n# .hidden/\nh.go\n"
	if res.Text != want {
		t.Fatalf("got\n%s\nwant\n%s", res.Text, want)
	}
	d := res.Details.(*findDetails)
	if got := strings.Join(d.Files, " "); got != "src/a.go src/sub/c.go .hidden/h.go src/b.go main.go" {
		t.Fatalf("files %q", got)
	}

	files := func(args map[string]any) string {
		return strings.Join(mustRunTool(t, env, "find", args).Details.(*findDetails).Files, " ")
	}
	if got := files(map[string]any{"paths": []string{"**/*.go"}, "hidden": false}); strings.Contains(got, ".hidden") {
		t.Errorf("hidden=false: %q", got)
	}
	if got := files(map[string]any{"paths": []string{"**/*.go"}, "gitignore": false}); !strings.Contains(got, "dist/d.go") {
		t.Errorf("gitignore=false: %q", got)
	}
	if got := files(map[string]any{"paths": []string{"src/*.go"}}); got != "src/a.go src/b.go" {
		t.Errorf("src/*.go: %q", got)
	}
	if got := files(map[string]any{"paths": []string{"src/sub"}}); got != "src/sub/c.go" {
		t.Errorf("directory: %q", got)
	}
	if got := files(map[string]any{"paths": []string{"README.md"}}); got != "README.md" {
		t.Errorf("exact file: %q", got)
	}
	if got := files(map[string]any{"paths": []string{"src/a.go", "README.md"}}); got != "src/a.go README.md" && got != "README.md src/a.go" {
		t.Errorf("merged: %q", got)
	}
	if got := files(map[string]any{"paths": []string{"src/*"}}); got != "src/a.go src/sub/ src/b.go" && !strings.Contains(got, "src/sub/") {
		t.Errorf("directories carry a slash: %q", got)
	}
	res = mustRunTool(t, env, "find", map[string]any{"paths": []string{"**/*.go"}, "limit": 2})
	d = res.Details.(*findDetails)
	if d.FileCount != 2 || !d.ResultLimitReached || d.TotalMatches != 5 {
		t.Fatalf("limit: %+v", d)
	}
	res = mustRunTool(t, env, "find", map[string]any{"paths": []string{"**/*.go", "nope/*.go"}})
	if d := res.Details.(*findDetails); len(d.MissingPaths) != 1 || !strings.Contains(res.Text, "Skipped missing paths: nope/*.go") {
		t.Fatalf("missing: %+v", d)
	}
	res = mustRunTool(t, env, "find", map[string]any{"paths": []string{"*.zzz"}})
	if res.Text != "No files found matching pattern\n" {
		t.Fatalf("empty: %q", res.Text)
	}
}

func TestFindErrors(t *testing.T) {
	env, _ := newSearchEnv(t, map[string]string{"a.txt": ""})
	cases := []struct {
		args map[string]any
		kind string
		msg  string
	}{
		{map[string]any{"paths": []string{""}}, KindUsage, "`paths` must contain non-empty globs or paths"},
		{map[string]any{"paths": []string{"nope"}}, KindNotFound, "Path not found: nope"},
		{map[string]any{"paths": []string{"a.txt/*.go"}}, KindUsage, "Path is not a directory"},
		{map[string]any{"paths": []string{"*"}, "limit": 0}, KindUsage, "Limit must be a positive number"},
		{map[string]any{"paths": []string{"*"}, "limit": -3}, KindUsage, "Limit must be a positive number"},
		{map[string]any{"paths": []string{"../x"}}, KindOutside, "outside"},
	}
	for _, c := range cases {
		_, err := runSearchTool(t, env, "find", c.args)
		e, ok := err.(*Error)
		if !ok || e.Kind != c.kind || !strings.Contains(e.Message, c.msg) {
			t.Errorf("%v: got %v, want %s %q", c.args, err, c.kind, c.msg)
		}
	}
	// Limits above 200 are clamped; fractional limits are floored.
	res := mustRunTool(t, env, "find", map[string]any{"paths": []string{"*"}, "limit": 1e9, "timeout": 0.01})
	if d := res.Details.(*findDetails); d.FileCount != 1 {
		t.Fatalf("%+v", d)
	}
}
