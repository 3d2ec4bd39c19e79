//go:build linux

package agent

import (
	"database/sql"
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
// move_file, delete_file, read and read_file run on a/..., and search,
// search_files, find, glob, list_directory and read list and read a/, an
// archive's members in it and a SQLite database's rows: nothing outside is
// made, changed, moved, removed, read or listed (everything outside holds
// or is named OUTSIDE, and no result may show it), and no temp file is
// left there (workspace's TestSwapRace runs the commit path itself, and
// search's TestWalkSwapRace the walker; all three for 60 s in
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
	// Names only outside, and an archive and a database on both sides
	// under one name, inside holding "inside", outside "OUTSIDE".
	os.MkdirAll(filepath.Join(outside, "OUTSIDE-dir"), 0o755)
	os.WriteFile(filepath.Join(outside, "OUTSIDE-dir", "OUTSIDE-name.txt"), []byte("OUTSIDE\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "a", "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "a", "sub", "g.txt"), []byte("inside\n"), 0o644)
	for dir, word := range map[string]string{filepath.Join(root, "a"): "inside", outside: "OUTSIDE"} {
		os.WriteFile(filepath.Join(dir, "arch.zip"), zipBytes(t, map[string]string{"m.txt": word + "\n"}), 0o644)
		db, err := sql.Open("sqlite", filepath.Join(dir, "db.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`CREATE TABLE t(id INTEGER PRIMARY KEY, x TEXT); INSERT INTO t(x) VALUES ('` + word + `')`); err != nil {
			t.Fatal(err)
		}
		db.Close()
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
	var calls [18]atomic.Int64 // successful calls by case
	var shown sync.Map         // a result that showed OUTSIDE, by case
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
				c := i % 18
				switch c {
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
				case 6:
					res, err = runTool(env, "search", map[string]any{"pattern": "side", "paths": "a"})
				case 7:
					res, err = runTool(env, "search", map[string]any{"pattern": "side", "paths": []string{"a/f0.txt", "a/sub/g.txt"}})
				case 8:
					res, err = runTool(env, "search_files", map[string]any{"pattern": "side", "path": "a"})
				case 9:
					res, err = runTool(env, "find", map[string]any{"paths": "a/**"})
				case 10:
					res, err = runTool(env, "glob", map[string]any{"pattern": "**", "path": "a"})
				case 11:
					res, err = runTool(env, "list_directory", map[string]any{"path": "a", "recursive": true})
				case 12:
					res, err = runTool(env, "read", map[string]string{"path": "a"})
				case 13:
					res, err = runTool(env, "read", map[string]string{"path": "a/arch.zip:m.txt"})
				case 14:
					res, err = runTool(env, "read", map[string]string{"path": "a/arch.zip"})
				case 15:
					res, err = runTool(env, "search", map[string]any{"pattern": "side", "paths": "a/arch.zip"})
				case 16:
					res, err = runTool(env, "read", map[string]string{"path": "a/db.sqlite:t"})
				case 17:
					res, err = runTool(env, "read", map[string]string{"path": "a/db.sqlite?q=SELECT x FROM t"})
				}
				if err == nil {
					done.Add(1)
					calls[c].Add(1)
					if strings.Contains(res.Text, "OUTSIDE") {
						outsideReads.Add(1)
						shown.LoadOrStore(c, res.Text)
					}
				}
			}
		}(w)
	}
	d := testsys.RaceDuration("HASHLS_SWAP_SECONDS")
	time.Sleep(d)
	close(stop)
	wg.Wait()
	swaps := stopSwapping()
	after, err := testsys.TreeSums(outside)
	if err != nil {
		t.Fatal(err)
	}
	escaped := testsys.TreeChanges(before, after)
	var per []string
	for c := range calls {
		per = append(per, strconv.FormatInt(calls[c].Load(), 10))
	}
	t.Logf("%v: %d swaps, %d tool calls succeeded (by case: %s); outside: %d made/changed/moved/removed, %d reads or listings of outside content", d, swaps, done.Load(), strings.Join(per, " "), len(escaped), outsideReads.Load())
	shown.Range(func(c, text any) bool {
		t.Errorf("case %d showed what is outside:\n%s", c, text)
		return true
	})
	for _, c := range []int{6, 9, 11, 13, 16} { // a read, search and listing each got through sometimes
		if calls[c].Load() == 0 {
			t.Errorf("case %d never succeeded: no race shown for it", c)
		}
	}
	if len(escaped) > 0 || outsideReads.Load() > 0 {
		t.Fatalf("escaped the root: %d reads of outside content; %v", outsideReads.Load(), escaped)
	}
}
