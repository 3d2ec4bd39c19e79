//go:build linux

package agent

import (
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
	"github.com/hashls/hashls/treesitter"
	"github.com/hashls/hashls/workspace"
)

// TestToolsSwapRace is the probe's race through the tools: a loop swaps
// root/a, a directory, with root/link, a symlink to a directory outside
// the root (renameat2 RENAME_EXCHANGE), while create_file, write,
// move_file, delete_file, read and read_file run on a/...: nothing outside
// is made, changed, moved, removed or read, and no temp file is left there
// (workspace's TestSwapRace runs the commit path itself, for 60 s in
// bench/races.sh).
func TestToolsSwapRace(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	os.MkdirAll(filepath.Join(root, "a"), 0o755)
	os.MkdirAll(outside, 0o755)
	for i := 0; i < 4; i++ {
		os.WriteFile(filepath.Join(root, "a", fmt.Sprintf("f%d.txt", i)), []byte("inside\n"), 0o644)
		os.WriteFile(filepath.Join(outside, fmt.Sprintf("f%d.txt", i)), []byte("OUTSIDE\n"), 0o644)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	before, err := testsys.TreeSums(outside)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(root, workspace.Options{StateDir: filepath.Join(base, "state")})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	stopSwapping, err := testsys.SwapLoop(filepath.Join(root, "a"), filepath.Join(root, "link"))
	if err != nil {
		t.Skip(err)
	}
	env := &Env{WS: ws, Resolver: &treesitter.Resolver{}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var done, outsideReads atomic.Int64
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				f := fmt.Sprintf("a/f%d.txt", (w+i)%4)
				var res *Result
				var err error
				switch i % 6 {
				case 0:
					res, err = runTool(env, "create_file", map[string]string{"path": fmt.Sprintf("a/new-%d-%d.txt", w, i), "content": "created\n"})
				case 1:
					res, err = runTool(env, "write", map[string]string{"path": f, "content": "written\n"})
				case 2:
					res, err = runTool(env, "move_file", map[string]string{"source": f, "destination": fmt.Sprintf("a/m-%d-%d.txt", w, i)})
					if err == nil {
						runTool(env, "move_file", map[string]string{"source": fmt.Sprintf("a/m-%d-%d.txt", w, i), "destination": f})
					}
				case 3:
					res, err = runTool(env, "delete_file", map[string]string{"path": fmt.Sprintf("a/new-%d-%d.txt", w, i-3)})
				case 4:
					res, err = runTool(env, "read", map[string]string{"path": f})
				case 5:
					res, err = runTool(env, "read_file", map[string]string{"path": f})
				}
				if err == nil {
					done.Add(1)
					if strings.Contains(res.Text, "OUTSIDE") {
						outsideReads.Add(1)
					}
				}
			}
		}(w)
	}
	d := time.Second // HASHLS_SWAP_SECONDS, else 1 s with -short, 5 s without
	if s, err := strconv.Atoi(os.Getenv("HASHLS_SWAP_SECONDS")); err == nil && s > 0 {
		d = time.Duration(s) * time.Second
	} else if !testing.Short() {
		d = 5 * time.Second
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
	t.Logf("%v: %d swaps, %d tool calls succeeded; outside: %d made/changed/moved/removed, %d reads of outside content", d, swaps, done.Load(), len(escaped), outsideReads.Load())
	if len(escaped) > 0 || outsideReads.Load() > 0 {
		t.Fatalf("escaped the root: %d reads of outside content; %v", outsideReads.Load(), escaped)
	}
}
