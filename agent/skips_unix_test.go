//go:build unix

package agent

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A tree nested deeper than a path can be opened (past PATH_MAX, as the
// issue's 10,000 levels are): find and search find nothing below it, and
// say that they skipped it.
func TestDeepTreeSkipSaid(t *testing.T) {
	env := newTestEnv(t)
	dir, err := os.OpenRoot(env.WS.Root())
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("d", 200)
	for range 25 { // 201 bytes a level: past 4,096
		if err := dir.Mkdir(long, 0o755); err != nil {
			t.Fatal(err)
		}
		sub, err := dir.OpenRoot(long)
		dir.Close()
		if err != nil {
			t.Fatal(err)
		}
		dir = sub
	}
	if err := dir.WriteFile("target.txt", []byte("needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir.Close()
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"find", map[string]any{"paths": "**/target.txt"}},
		{"search", map[string]any{"pattern": "needle", "paths": "."}},
	} {
		res, err := runTool(env, c.tool, c.args)
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		if !strings.Contains(res.Text, "Skipped 1 unreadable file or directory (no permission, or a path too long to open).") {
			t.Errorf("%s does not say it skipped the tree:\n%s", c.tool, res.Text[max(0, len(res.Text)-300):])
		}
	}
}

// A named pipe is called so, not by its mode bits.
func TestFIFONamed(t *testing.T) {
	env := newTestEnv(t)
	if err := syscall.Mkfifo(filepath.Join(env.WS.Root(), "pipe"), 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	_, err := runTool(env, "read", map[string]any{"path": "pipe"})
	if err == nil || !strings.Contains(err.Error(), "pipe is a named pipe, not a regular file") {
		t.Errorf("read: %v", err)
	}
	res, err := runTool(env, "list_directory", map[string]any{"path": "."})
	if err != nil || !strings.Contains(res.Text, "  pipe  (named pipe)\n") {
		t.Errorf("list_directory: %v\n%s", err, res.Text)
	}
}
