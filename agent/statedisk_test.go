package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashls/hashls/workspace"
)

// stateOnTmpfs mounts a tmpfs of 2 MB (opts added) as a state directory,
// 0700 as a state directory must be, and returns it; it skips the test
// where mounting needs a root it is not.
func stateOnTmpfs(t *testing.T, opts string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		t.Skip("a size-limited state directory needs a tmpfs mount (root)")
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m,mode=0700"+opts, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("no tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// envOnTmpfs is a test Env whose state directory is a 2 MB tmpfs (opts
// added), and that directory.
func envOnTmpfs(t *testing.T, opts string) (*Env, string) {
	t.Helper()
	state := stateOnTmpfs(t, opts)
	ws, err := workspace.Open(t.TempDir(), workspace.Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return &Env{WS: ws}, state
}

// A full state directory does not stop reads and searches: they work,
// record nothing, and say so once; a change is refused with the cause.
func TestFullStateDir(t *testing.T) {
	env, state := envOnTmpfs(t, "")
	writeRootFile(t, env, "big.txt", numbered(200))
	if _, err := runTool(env, "read", map[string]any{"path": "big.txt:3"}); err != nil {
		t.Fatal(err)
	}
	// Fill the disk, and change the file so that a read needs new rows.
	fill, err := os.Create(filepath.Join(state, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	for {
		if _, err := fill.Write(buf); err != nil {
			break
		}
	}
	fill.Close()
	writeRootFile(t, env, "big.txt", numbered(300))

	res, err := runTool(env, "read", map[string]any{"path": "big.txt:6"})
	if err != nil {
		t.Fatalf("read on a full state directory: %v", err)
	}
	if !strings.Contains(res.Text, "6:line 6\n") || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "could not record what this call showed") || !strings.Contains(res.Warnings[0], "the disk holding it is full") {
		t.Errorf("read: warnings %q\n%.200s", res.Warnings, res.Text)
	}
	res, err = runTool(env, "search", map[string]any{"pattern": "line 25[0-9]", "paths": "big.txt"})
	if err != nil {
		t.Fatalf("search on a full state directory: %v", err)
	}
	if !strings.Contains(res.Text, "*255:line 255") || len(res.Warnings) != 0 {
		t.Errorf("search (said once already): warnings %q\n%.200s", res.Warnings, res.Text)
	}
	_, err = runTool(env, "write", map[string]any{"path": "big.txt", "content": "x\n"})
	if err == nil || !strings.Contains(err.Error(), "nothing was changed") || !strings.Contains(err.Error(), "full") {
		t.Errorf("write on a full state directory: %v", err)
	}
	// Room again: reads record again, and a later loss is said again.
	os.Remove(filepath.Join(state, "fill"))
	if res, err := runTool(env, "read", map[string]any{"path": "big.txt:7"}); err != nil || len(res.Warnings) != 0 {
		t.Errorf("read with room: %v %q", err, res.Warnings)
	}
}

// A read-only state directory: the refusal of a change says its cause
// once, not three times.
func TestReadOnlyStateMessage(t *testing.T) {
	env, state := envOnTmpfs(t, ",ro")
	writeRootFile(t, env, "a.txt", "a\n")
	_, err := runTool(env, "write", map[string]any{"path": "a.txt", "content": "b\n"})
	if err == nil {
		t.Fatal("a write with a read-only store")
	}
	msg := err.Error()
	store := workspace.StorePath(state, env.WS.Root())
	for what, n := range map[string]int{store: 1, "read-only or not writable": 1, "read-only file system": 1, "nothing was changed": 1} {
		if got := strings.Count(msg, what); got != n {
			t.Errorf("%q appears %d times, want %d:\n%s", what, got, n, msg)
		}
	}
	res, err := runTool(env, "read", map[string]any{"path": "a.txt"})
	if err != nil || len(res.Warnings) != 0 {
		t.Errorf("the read after the refusal repeats it: %v %q", err, res.Warnings)
	}
}
