//go:build linux

package search

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashls/hashls/internal/testsys"
)

// TestWalkSwapRace: a loop swaps root/a, a directory, with root/link, a
// symlink to a directory outside the root (renameat2 RENAME_EXCHANGE),
// another root/z.txt with a symlink to a file outside, while walks, scans and finds run over the root and over a/ (opened
// beneath the root), and a scan reads named files beneath it. Everything
// outside holds, and is named, OUTSIDE: no entry, hit or match may show
// it. It runs for HASHLS_SWAP_SECONDS (1 s with -short, else 5 s; 60 s in
// bench/races.sh).
func TestWalkSwapRace(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	files := map[string]string{".gitignore": "*.log\n", "z.txt": "inside\n"}
	for i := 0; i < 4; i++ {
		files[fmt.Sprintf("a/f%d.txt", i)] = "inside\n"
		files[fmt.Sprintf("a/sub%d/g.txt", i)] = "inside\n"
	}
	files["a/.gitignore"] = "*.tmp\n"
	writeTree(t, root, files)
	writeTree(t, outside, map[string]string{
		"OUTSIDE-1.txt":             "OUTSIDE\n",
		"f0.txt":                    "OUTSIDE\n",
		"OUTSIDE-dir/OUTSIDE-2.txt": "OUTSIDE\n",
		"sub0/g.txt":                "OUTSIDE\n",
		".gitignore":                "*.txt\n",
	})
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	// A file swapped too: root/z.txt with root/zlink, a symlink to a file
	// outside.
	if err := os.Symlink(filepath.Join(outside, "OUTSIDE-1.txt"), filepath.Join(root, "zlink")); err != nil {
		t.Fatal(err)
	}
	rootDir, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer rootDir.Close()
	stopSwapping, err := testsys.SwapLoop(filepath.Join(root, "a"), filepath.Join(root, "link"))
	if err != nil {
		t.Skip(err)
	}
	stopSwappingFile, err := testsys.SwapLoop(filepath.Join(root, "z.txt"), filepath.Join(root, "zlink"))
	if err != nil {
		stopSwapping()
		t.Skip(err)
	}
	// Only what is outside holds OUTSIDE: a scan for it that hits read
	// outside; one for "inside" shows the scans find what they should.
	outsideRE, err := Compile("OUTSIDE", false)
	if err != nil {
		t.Fatal(err)
	}
	insideRE, err := Compile("inside", false)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var calls, results, shown atomic.Int64
	var mu sync.Mutex
	var first []string
	outsideIf := func(what, s string) {
		results.Add(1)
		if strings.Contains(s, "OUTSIDE") {
			shown.Add(1)
			mu.Lock()
			if len(first) < 10 {
				first = append(first, what+": "+s)
			}
			mu.Unlock()
		}
	}
	scanned := func(what string, res *ScanResult, m *Matcher) {
		for _, h := range res.Hits {
			if m == outsideRE {
				outsideIf(what, "OUTSIDE content in "+h.Rel)
			} else {
				outsideIf(what, h.Rel)
			}
		}
	}
	matcher := func(i int) *Matcher {
		if i%2 == 0 {
			return outsideRE
		}
		return insideRE
	}
	walkA := func() (*os.Root, bool) {
		d, err := rootDir.OpenRoot("a")
		return d, err == nil
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				calls.Add(1)
				switch i % 6 {
				case 0: // walk the root: a is opened relative to it
					Walk(ctx, root, WalkOptions{Hidden: true, Gitignore: true, Dir: rootDir}, func(_ int, e *Entry) bool {
						outsideIf("walk", e.Rel)
						return true
					})
				case 1: // walk a, opened beneath the root
					if d, ok := walkA(); ok {
						Walk(ctx, filepath.Join(root, "a"), WalkOptions{Hidden: true, Dir: d}, func(_ int, e *Entry) bool {
							outsideIf("walk a", e.Rel)
							if fi, err := e.Info(); err == nil {
								outsideIf("walk a info", fi.Name())
							}
							return true
						})
						d.Close()
					}
				case 2: // search the root
					m := matcher(i / 6)
					res, _ := Scan(ctx, m, ScanOptions{Root: root, Dir: rootDir, Hidden: true, Gitignore: true})
					scanned("scan", res, m)
				case 3: // search a
					if d, ok := walkA(); ok {
						m := matcher(i / 6)
						res, _ := Scan(ctx, m, ScanOptions{Root: filepath.Join(root, "a"), Dir: d, Hidden: true})
						d.Close()
						scanned("scan a", res, m)
					}
				case 4: // find in the root and in a
					res, _ := Find(ctx, FindOptions{Root: root, Dir: rootDir, Hidden: true})
					for _, f := range res.Paths {
						outsideIf("find", f.Rel)
					}
				case 5: // named files, opened beneath the root
					open := func(abs string) (io.ReadCloser, error) {
						rel, _ := filepath.Rel(root, abs)
						return rootDir.Open(rel)
					}
					m := matcher(i / 6)
					res, _ := Scan(ctx, m, ScanOptions{Files: []string{filepath.Join(root, "a", "f0.txt"), filepath.Join(root, "a", "sub0", "g.txt")}, OpenFile: open})
					scanned("files", res, m)
				}
			}
		}(w)
	}
	d := testsys.RaceDuration("HASHLS_SWAP_SECONDS")
	time.Sleep(d)
	close(stop)
	wg.Wait()
	swaps := stopSwapping() + stopSwappingFile()
	t.Logf("%v: %d swaps, %d walks, scans and finds, %d entries and hits; %d showed what is outside", d, swaps, calls.Load(), results.Load(), shown.Load())
	if shown.Load() > 0 {
		t.Fatalf("listed or read outside the root:\n%s", strings.Join(first, "\n"))
	}
	if swaps == 0 || results.Load() == 0 {
		t.Fatalf("no race: %d swaps, %d results", swaps, results.Load())
	}
}
