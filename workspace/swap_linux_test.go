//go:build linux

package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashls/hashls/internal/testsys"
)

// TestSwapRace: a loop swaps root/a, a directory, with root/link, a symlink
// to a directory outside the root (renameat2 RENAME_EXCHANGE), while
// workers create, write, move, delete and read files under a/. Every
// operation resolves beneath the root when it happens: nothing outside is
// made, changed, moved, removed or read, no temp file is left outside, and
// every audited change is a file inside the root. It runs for
// HASHLS_SWAP_SECONDS (testsys.RaceDuration).
func TestSwapRace(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "a"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const files = 8
	for i := 0; i < files; i++ {
		name := "f" + strconv.Itoa(i) + ".txt"
		os.WriteFile(filepath.Join(root, "a", name), []byte("inside "+name+"\n"), 0o644)
		os.WriteFile(filepath.Join(outside, name), []byte("OUTSIDE\n"), 0o644)
		os.WriteFile(filepath.Join(outside, "m"+strconv.Itoa(i)+".txt"), []byte("OUTSIDE\n"), 0o644)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	before, err := testsys.TreeSums(outside)
	if err != nil {
		t.Fatal(err)
	}
	w, err := Open(root, Options{StateDir: filepath.Join(base, "state")})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx := context.Background()
	d := testsys.RaceDuration("HASHLS_SWAP_SECONDS")
	stopSwapping, err := testsys.SwapLoop(filepath.Join(root, "a"), filepath.Join(root, "link"))
	if err != nil {
		t.Skip(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var ops, done, outsideReads atomic.Int64
	worker := func(id int) {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			ops.Add(1)
			f := fmt.Sprintf("a/f%d.txt", (id+i)%files)
			switch i % 5 {
			case 0: // create
				p, err := w.Resolve(fmt.Sprintf("a/new-%d-%d.txt", id, i))
				if err != nil {
					continue
				}
				if _, err := w.Commit(ctx, "create_file", []Change{{Path: p, Base: BaseAbsent(), New: []byte("created\n")}}, CommitOptions{}); err == nil {
					done.Add(1)
				}
			case 1: // write (read, then commit against what was read)
				p, err := w.Resolve(f)
				if err != nil {
					continue
				}
				rd, err := w.ReadFile(p)
				if err != nil {
					continue
				}
				if _, err := w.Commit(ctx, "write", []Change{{Path: p, Base: BaseOf(rd.Bytes), New: []byte("written " + f + "\n")}}, CommitOptions{}); err == nil {
					done.Add(1)
				}
			case 2: // move to m<N>.txt and back
				src, err1 := w.Resolve(f)
				dst, err2 := w.Resolve(fmt.Sprintf("a/m%d.txt", (id+i)%files))
				if err1 != nil || err2 != nil {
					continue
				}
				rd, err := w.ReadFile(src)
				if err != nil {
					continue
				}
				if _, err := w.Commit(ctx, "move_file", []Change{
					{Path: dst, Base: BaseAbsent(), New: rd.Bytes, MovedFrom: src.Rel},
					{Path: src, Base: BaseOf(rd.Bytes), Delete: true},
				}, CommitOptions{}); err == nil {
					done.Add(1)
					w.Commit(ctx, "move_file", []Change{
						{Path: src, Base: BaseAbsent(), New: rd.Bytes, MovedFrom: dst.Rel},
						{Path: dst, Base: BaseOf(rd.Bytes), Delete: true},
					}, CommitOptions{})
				}
			case 3: // delete one of the files created
				p, err := w.Resolve(fmt.Sprintf("a/new-%d-%d.txt", id, i-3))
				if err != nil {
					continue
				}
				rd, err := w.ReadFile(p)
				if err != nil {
					continue
				}
				if _, err := w.Commit(ctx, "delete_file", []Change{{Path: p, Base: BaseOf(rd.Bytes), Delete: true}}, CommitOptions{}); err == nil {
					done.Add(1)
				}
			case 4: // read, stat, list
				p, err := w.Resolve(f)
				if err != nil {
					continue
				}
				if rd, err := w.ReadFile(p); err == nil {
					done.Add(1)
					if strings.Contains(string(rd.Bytes), "OUTSIDE") {
						outsideReads.Add(1)
					}
				}
				if r, err := w.OpenReader(p); err == nil {
					b := make([]byte, 64)
					n, _ := r.Read(b)
					r.Close()
					if strings.Contains(string(b[:n]), "OUTSIDE") {
						outsideReads.Add(1)
					}
				}
				w.Stat(p)
				if dir, err := w.Resolve("a"); err == nil {
					w.ReadDir(dir)
				}
			}
		}
	}
	const workers = 4
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go worker(i)
	}
	time.Sleep(d)
	close(stop)
	wg.Wait()
	swaps := stopSwapping()
	after, err := testsys.TreeSums(outside)
	if err != nil {
		t.Fatal(err)
	}
	escaped := testsys.TreeChanges(before, after)
	log, err := w.Store().AuditLog(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range log {
		if e.Transport != "recovery" && !strings.HasPrefix(e.Path, "a/") {
			escaped = append(escaped, "audited outside a/: "+e.Path)
		}
	}
	t.Logf("%v: %d swaps, %d operations (%d succeeded), %d audit rows; outside: %d made/changed/moved/removed, %d reads of outside content",
		d, swaps, ops.Load(), done.Load(), len(log), len(escaped), outsideReads.Load())
	if len(escaped) > 0 || outsideReads.Load() > 0 {
		t.Fatalf("escaped the root: %d reads of outside content; %v", outsideReads.Load(), escaped)
	}
	if swaps == 0 || done.Load() == 0 {
		t.Fatalf("no race: %d swaps, %d operations done", swaps, done.Load())
	}
}
