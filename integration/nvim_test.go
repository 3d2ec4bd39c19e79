package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// buildHashls builds the hashls binary from the module root into a
// temporary directory and returns its path.
func buildHashls(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hashls")
	start := time.Now()
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build hashls: %v\n%s", err, out)
	}
	t.Logf("built %s in %v", bin, time.Since(start).Round(time.Millisecond))
	return bin
}

// TestNeovim runs integration/nvim/test/test.lua in headless Neovim against
// the built binary: read, edit through workspace/applyEdit, documentSymbol,
// the delete-block code action, search into the quickfix list, the agent
// panel (history with a `hashls tool edit` made by the CLI as another
// process on the same store, live entries, filters, the before/after diff
// under diffthis, revert and its refusal, open location), two roots with a
// main.go each, :checkhealth hashls, :help hashls and clean server exits.
func TestNeovim(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Skip("nvim is not installed (apt-get install -y neovim); skipping the Neovim plugin test")
	}
	script, err := filepath.Abs(filepath.Join("nvim", "test", "test.lua"))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildHashls(t)

	scratch := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n",
		"-c", "luafile "+script)
	cmd.Dir = scratch
	env := []string{
		"HOME=" + scratch,
		"XDG_CONFIG_HOME=" + filepath.Join(scratch, "config"),
		"XDG_DATA_HOME=" + filepath.Join(scratch, "data"),
		"XDG_STATE_HOME=" + filepath.Join(scratch, "state"),
		"XDG_CACHE_HOME=" + filepath.Join(scratch, "cache"),
		"XDG_RUNTIME_DIR=" + filepath.Join(scratch, "run"),
		"TMPDIR=" + scratch,
		"HASHLS_BIN=" + bin,
		"HASHLS_NVIM_SCRATCH=" + filepath.Join(scratch, "test"),
		"HASHLS_STATE_DIR=" + filepath.Join(scratch, "hashls-state"),
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "PATH" || k == "LANG" || k == "LC_ALL" || k == "TERM" {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	out, err := cmd.CombinedOutput()
	elapsed := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("nvim test timed out after %v:\n%s", elapsed.Round(time.Millisecond), out)
	}
	if err != nil {
		t.Fatalf("nvim test failed (%v) after %v:\n%s", err, elapsed.Round(time.Millisecond), out)
	}
	if !strings.Contains(string(out), "PASS") {
		t.Fatalf("nvim exited 0 without reporting PASS:\n%s", out)
	}
	t.Logf("nvim test passed in %v:\n%s", elapsed.Round(time.Millisecond), out)
}
