package search

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func hitNames(r *ScanResult) []string {
	var out []string
	for _, h := range r.Hits {
		out = append(out, h.Rel)
	}
	return out
}

func TestScanIgnoreHiddenGitAndLoops(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".gitignore":           "build/\n*.log\n!keep.log\n",
		"a.go":                 "needle\n",
		"build/out.go":         "needle\n",
		"x.log":                "needle\n",
		"keep.log":             "needle\n",
		".hidden/h.go":         "needle\n",
		".git/config":          "needle\n",
		"sub/.gitignore":       "secret.txt\n",
		"sub/secret.txt":       "needle\n",
		"sub/open.txt":         "needle needle\nneedle\n",
		"bin.dat":              "needle\x00",
		"deep/a/b/c/d/e/f.txt": "no\nneedle\n",
	})
	// A directory loop through a symlink must not trap the walk.
	if err := os.Symlink("..", filepath.Join(root, "sub", "loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.go", filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	m, _ := Compile("needle", false)
	var calls atomic.Int32
	res, err := Scan(context.Background(), m, ScanOptions{Root: root, Hidden: true, Gitignore: true, Progress: func(int, int) { calls.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(hitNames(res), " ")
	want := ".hidden/h.go a.go deep/a/b/c/d/e/f.txt keep.log sub/open.txt"
	if got != want {
		t.Fatalf("hits %q, want %q", got, want)
	}
	if res.Lines != 6 || res.Binary != 1 {
		t.Fatalf("lines %d binary %d", res.Lines, res.Binary)
	}

	res, _ = Scan(context.Background(), m, ScanOptions{Root: root, Hidden: false, Gitignore: false})
	got = strings.Join(hitNames(res), " ")
	want = "a.go build/out.go deep/a/b/c/d/e/f.txt keep.log sub/open.txt sub/secret.txt x.log"
	if got != want {
		t.Fatalf("no-ignore hits %q, want %q", got, want)
	}

	g, _ := CompileGlob("**/*.go")
	res, _ = Scan(context.Background(), m, ScanOptions{Root: root, Glob: g, Hidden: true, Gitignore: true})
	if got := strings.Join(hitNames(res), " "); got != ".hidden/h.go a.go" {
		t.Fatalf("glob hits %q", got)
	}
}

// TestScanInsideRepoSubdir: a walk rooted below a repository's top applies
// the .gitignore files above it and the repository's info/exclude.
// newRepo writes files into a new directory, isolated from the user's and
// the system's git configuration (no global excludes file), and returns it.
func newRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	top := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	writeTree(t, top, files)
	return top
}

func TestScanInsideRepoSubdir(t *testing.T) {
	top := newRepo(t, map[string]string{
		".git/info/exclude": "*.excluded\n",
		".gitignore":        "/src/gen/\n*.tmp\n",
		"src/a.go":          "needle\n",
		"src/b.tmp":         "needle\n",
		"src/c.excluded":    "needle\n",
		"src/gen/g.go":      "needle\n",
	})
	m, _ := Compile("needle", false)
	res, err := Scan(context.Background(), m, ScanOptions{Root: filepath.Join(top, "src"), Hidden: true, Gitignore: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(hitNames(res), " "); got != "a.go" {
		t.Fatalf("hits %q, want a.go", got)
	}
}

// TestScanHugeSparseFile: a 1 GiB sparse file is streamed (it is all NUL,
// so it is dropped as binary at the first chunk), never loaded.
func TestScanHugeSparseFile(t *testing.T) {
	root := t.TempDir()
	f, err := os.Create(filepath.Join(root, "huge.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Skip("sparse files unsupported:", err)
	}
	f.Close()
	writeTree(t, root, map[string]string{"small.txt": "needle\n"})
	m, _ := Compile("needle", false)
	start := time.Now()
	res, err := Scan(context.Background(), m, ScanOptions{Root: root, Files: []string{filepath.Join(root, "huge.bin")}, Hidden: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Binary != 2 || len(res.Hits) != 1 {
		t.Fatalf("%+v", res)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v: the file was read whole", d)
	}
}

func TestScanUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads everything")
	}
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no mode that denies reading (chmod sets only the read-only attribute)")
	}
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "needle\n", "b.txt": "needle\n", "d/c.txt": "needle\n"})
	os.Chmod(filepath.Join(root, "b.txt"), 0)
	os.Chmod(filepath.Join(root, "d"), 0)
	defer os.Chmod(filepath.Join(root, "d"), 0o755)
	m, _ := Compile("needle", false)
	res, _ := Scan(context.Background(), m, ScanOptions{Root: root, Hidden: true})
	if len(res.Hits) != 1 || res.Unreadable != 2 {
		t.Fatalf("%+v", res)
	}
}

func TestFindOrderAndFlags(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".gitignore": "ignored/\n",
		"old.go":     "", "new.go": "", "mid/x.go": "", ".h/y.go": "", "ignored/z.go": "", "readme.md": "",
	})
	now := time.Now()
	for rel, age := range map[string]time.Duration{"old.go": 3 * time.Hour, "new.go": 0, "mid/x.go": time.Hour, ".h/y.go": 2 * time.Hour} {
		os.Chtimes(filepath.Join(root, rel), now.Add(-age), now.Add(-age))
	}
	g, _ := CompileGlob("**/*.go")
	res, err := Find(context.Background(), FindOptions{Root: root, Glob: g, Hidden: true, Gitignore: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range res.Paths {
		got = append(got, p.Rel)
	}
	if s := strings.Join(got, " "); s != "new.go mid/x.go .h/y.go old.go" {
		t.Fatalf("order %q", s)
	}
	res, _ = Find(context.Background(), FindOptions{Root: root, Glob: g, Hidden: false, Gitignore: false})
	got = got[:0]
	for _, p := range res.Paths {
		got = append(got, p.Rel)
	}
	sort.Strings(got)
	if s := strings.Join(got, " "); s != "ignored/z.go mid/x.go new.go old.go" {
		t.Fatalf("flags %q", s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = Find(ctx, FindOptions{Root: root, Glob: g})
	if err != nil || !res.TimedOut {
		t.Fatalf("cancelled find: %+v %v", res, err)
	}
}

func BenchmarkScanGoroot(b *testing.B) {
	root := goroot(b)
	m, _ := Compile(`func \w+\(ctx context\.Context`, false)
	for b.Loop() {
		Scan(context.Background(), m, ScanOptions{Root: root, Hidden: true, Gitignore: true})
	}
}

// TestScanCountsUnopenable works as root too: a file that vanished between
// listing and opening is counted as unreadable, the scan goes on.
func TestScanCountsUnopenable(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "needle\n"})
	m, _ := Compile("needle", false)
	res, err := Scan(context.Background(), m, ScanOptions{Files: []string{filepath.Join(root, "gone.txt"), filepath.Join(root, "a.txt")}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Unreadable != 1 || len(res.Hits) != 1 {
		t.Fatalf("%+v", res)
	}
}
