package search

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestFilterAgreesWithWalk checks that Filter skips exactly what Walk
// leaves out (every path of the tree, walked from the repository's top and
// from a subdirectory, with each combination of options).
func TestFilterAgreesWithWalk(t *testing.T) {
	top := newRepo(t, map[string]string{
		".git/info/exclude":      "*.excluded\n",
		".gitignore":             "/src/gen/\n*.tmp\nbuild/\n!keep.tmp\n",
		".hidden/x.go":           "",
		"src/a.go":               "",
		"src/b.tmp":              "",
		"src/keep.tmp":           "",
		"src/c.excluded":         "",
		"src/gen/g.go":           "",
		"src/.env":               "",
		"src/sub/.gitignore":     "local.txt\n",
		"src/sub/local.txt":      "",
		"src/sub/deep/local.txt": "",
		"src/sub/ok.txt":         "",
		"build/out.go":           "",
		"other/build/x.go":       "",
	})
	for _, start := range []string{".", "src"} {
		root := filepath.Join(top, start)
		var all []string
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && p != root {
				rel, _ := filepath.Rel(root, p)
				all = append(all, filepath.ToSlash(rel))
			}
			return nil
		})
		for _, opts := range []WalkOptions{{}, {Hidden: true}, {Gitignore: true}, {Hidden: true, Gitignore: true}} {
			var mu sync.Mutex
			walked := map[string]bool{}
			if _, err := Walk(context.Background(), root, opts, func(_ int, e *Entry) bool {
				mu.Lock()
				walked[e.Rel] = true
				mu.Unlock()
				return true
			}); err != nil {
				t.Fatal(err)
			}
			f := NewFilter(root, opts)
			for _, rel := range all {
				fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
				isDir := err == nil && fi.IsDir()
				if skip := f.Skip(rel, isDir); skip == walked[rel] {
					t.Errorf("from %s with %+v: %s: Filter.Skip = %v, but Walk reported it: %v", start, opts, rel, skip, walked[rel])
				}
			}
		}
	}
}
