// Package lsptest is what the language-server tests share: finding a real
// server (skipping without it locally, failing under CI), a small Go module
// to navigate (testdata/gomod, copied fresh per test), and a fake server
// that never answers (testdata/hangserver). Only tests import it.
package lsptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Required reports whether missing servers fail the tests instead of
// skipping them: under CI (CI=true, or HASHLS_REQUIRE_LANGSERVERS=1, which
// .ci/run sets), so that the tests that need them always run there. CI
// installs them for Linux only: the Windows test binaries it runs under
// wine skip them.
func Required() bool {
	return runtime.GOOS == "linux" && (os.Getenv("CI") == "true" || os.Getenv("HASHLS_REQUIRE_LANGSERVERS") == "1")
}

// NeedServer makes bin findable (PATH, then `go env GOPATH`/bin) or skips
// the test (fails when Required).
func NeedServer(t testing.TB, bin, install string) {
	t.Helper()
	if _, err := exec.LookPath(bin); err == nil {
		return
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		dir := filepath.Join(strings.TrimSpace(string(out)), "bin")
		if _, err := os.Stat(filepath.Join(dir, bin)); err == nil {
			t.Setenv("PATH", os.Getenv("PATH")+string(os.PathListSeparator)+dir)
			return
		}
	}
	if Required() {
		t.Fatalf("%s is not installed; .ci/run installs it (%s)", bin, install)
	}
	t.Skipf("%s is not installed (CI installs it; locally: %s)", bin, install)
}

// NeedGopls is NeedServer for gopls at the version CI pins.
// Under -short it skips (gopls takes seconds to load a module).
func NeedGopls(t testing.TB) {
	t.Helper()
	if testing.Short() && !Required() {
		t.Skip("gopls tests take seconds; skipped under -short")
	}
	NeedServer(t, "gopls", "go install golang.org/x/tools/gopls@v0.23.0")
}

// NeedPyright makes pyright-langserver findable: PATH, or the copy `npm ci`
// installs in integration/langservers (as .ci/run does); else it skips
// (fails under CI).
func NeedPyright(t testing.TB) {
	t.Helper()
	if testing.Short() && !Required() {
		t.Skip("pyright tests take seconds; skipped under -short")
	}
	bin := filepath.Join(filepath.Dir(dataDir()), "..", "..", "integration", "langservers", "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(bin, "pyright-langserver")); err == nil {
		t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		return
	}
	NeedServer(t, "pyright-langserver", "cd integration/langservers && npm ci")
}

func dataDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata")
}

// GoModule returns a fresh copy of testdata/gomod: module example.com/gomod
// with main.go, report.go and shapes/shapes.go (Area, Square, Total).
func GoModule(t testing.TB) string {
	t.Helper()
	src := filepath.Join(dataDir(), "gomod")
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// HangServer builds testdata/hangserver, a language server that answers
// initialize and shutdown and never anything else, and returns its path.
func HangServer(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hangserver")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = filepath.Join(dataDir(), "hangserver")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the fake server: %v\n%s", err, out)
	}
	return bin
}
