//go:build linux

package testsys

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// SwapLoop swaps the names a and b (renameat2 RENAME_EXCHANGE: a directory
// and a symlink, say) as fast as it can until stop is called, which leaves
// them as they were and returns the number of swaps. It fails when the
// kernel or the file system cannot swap.
func SwapLoop(a, b string) (stop func() (swaps int64), err error) {
	swap := func() error { return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE) }
	if err := swap(); err != nil {
		return nil, fmt.Errorf("renameat2 RENAME_EXCHANGE: %w", err)
	}
	swap()
	done := make(chan struct{})
	var n atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			if swap() == nil {
				n.Add(1)
			}
		}
	}()
	return func() int64 {
		close(done)
		wg.Wait()
		if n.Load()%2 == 1 {
			swap()
		}
		return n.Load()
	}, nil
}

// TreeSums maps every entry under dir (by its path relative to dir) to
// the sha256 of its content, "dir" for a directory and "link:TARGET" for a
// symbolic link: two calls compare what changed in the tree.
func TreeSums(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.IsDir():
			out[rel] = "dir"
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link:" + target
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("%x", sha256.Sum256(b))
		}
		return nil
	})
	return out, err
}

// TreeChanges lists what differs between two TreeSums of one tree.
func TreeChanges(before, after map[string]string) []string {
	var out []string
	for k, v := range after {
		if before[k] != v {
			out = append(out, "made or changed "+k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			out = append(out, "removed or moved "+k)
		}
	}
	return out
}
