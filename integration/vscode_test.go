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

// TestVSCodeExtension builds the VS Code extension (tsc) and runs its
// tests: the unit tests against a fake vscode module and the test that
// drives the extension's own command handlers against the real server
// binary over vscode-languageserver-protocol. It needs
// `npm ci --prefix integration/vscode` first (CI does it) and skips without
// node_modules. The real-editor test (code-server in headless Chromium,
// from the bundled platform .vsix) is heavier: .ci/run runs it as
// HASHLS_VSCODE_E2E=1 integration/vscode/e2e/run.sh after go test.
func TestVSCodeExtension(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed; skipping the VS Code extension tests")
	}
	dir, err := filepath.Abs("vscode")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		t.Skip("integration/vscode/node_modules is missing; run `npm ci --prefix integration/vscode` to enable the VS Code extension tests")
	}
	bin := buildHashls(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "test")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HASHLS_BIN="+bin, "HASHLS_STATE_DIR="+t.TempDir(), "npm_config_update_notifier=false")
	out, err := cmd.CombinedOutput()
	t.Logf("npm test:\n%s", out)
	if err != nil {
		t.Fatalf("npm test in integration/vscode: %v", err)
	}
	if strings.Contains(string(out), "SKIP: HASHLS_BIN") {
		t.Fatal("the real-server test skipped although HASHLS_BIN was set")
	}
}
