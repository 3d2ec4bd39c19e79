// Package lsptest is what the language-server tests share: finding a real
// server (skipping without it locally, failing under CI), a small Go module
// to navigate (testdata/gomod, copied fresh per test, and small TypeScript,
// C and Rust projects beside it), and a deterministic fake server
// (testdata/fakeserver) that publishes diagnostics, formats and renames,
// or with -hang never answers. Only tests import it.
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
	skipShort(t, "gopls")
	NeedServer(t, "gopls", "go install golang.org/x/tools/gopls@v0.23.0")
}

// skipShort skips under -short, unless the servers are Required: real
// servers take seconds to start and load a project.
func skipShort(t testing.TB, name string) {
	t.Helper()
	if testing.Short() && !Required() {
		t.Skipf("%s tests take seconds; skipped under -short", name)
	}
}

// NeedPyright makes pyright-langserver findable: PATH, or the copy `npm ci`
// installs in integration/langservers (as .ci/run does); else it skips
// (fails under CI).
func NeedPyright(t testing.TB) {
	t.Helper()
	needNodeServer(t, "pyright", "pyright-langserver")
}

// NeedTypeScript is NeedPyright for typescript-language-server (and the
// typescript package it runs, installed beside it).
func NeedTypeScript(t testing.TB) {
	t.Helper()
	needNodeServer(t, "typescript-language-server", "typescript-language-server")
}

// needNodeServer makes bin findable: PATH, or the copy `npm ci` installs
// in integration/langservers (as .ci/run does); else it skips (fails
// under CI).
func needNodeServer(t testing.TB, name, bin string) {
	t.Helper()
	skipShort(t, name)
	dir := filepath.Join(filepath.Dir(dataDir()), "..", "..", "integration", "langservers", "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(dir, bin)); err == nil {
		t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
		return
	}
	NeedServer(t, bin, "cd integration/langservers && npm ci")
}

// NeedClangd is NeedServer for clangd (CI installs Debian's, 14).
func NeedClangd(t testing.TB) {
	t.Helper()
	skipShort(t, "clangd")
	NeedServer(t, "clangd", "apt-get install clangd")
}

// NeedRustAnalyzer runs a test only where rust-analyzer is on PATH, and
// never requires it: CI cannot install it (rustup's component download
// needs the network; no Debian or npm package carries it).
func NeedRustAnalyzer(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("rust-analyzer tests take seconds; skipped under -short")
	}
	// rustup puts a rust-analyzer proxy on PATH that fails until the
	// component is added: ask it for its version.
	if err := exec.Command("rust-analyzer", "--version").Run(); err != nil {
		t.Skipf("rust-analyzer is not installed (%v), and CI cannot install it: rustup's component download needs the network, and no Debian or npm package carries it (locally: rustup component add rust-analyzer)", err)
	}
	if _, err := exec.LookPath("cargo"); err != nil {
		t.Skip("rust-analyzer needs cargo to load a project, and cargo is not installed")
	}
}

func dataDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata")
}

// GoModule returns a fresh copy of testdata/gomod: module example.com/gomod
// with main.go, report.go and shapes/shapes.go (Area, Square, Total).
func GoModule(t testing.TB) string {
	t.Helper()
	return Project(t, "gomod")
}

// Project returns a fresh copy of testdata/name: gomod (GoModule), tsproj
// (tsconfig.json, a.ts exporting total, b.ts calling it), cproj
// (compile_flags.txt, total.h defining total, main.c calling it) or rsproj
// (a Cargo package whose main.rs calls total in total.rs).
func Project(t testing.TB, name string) string {
	t.Helper()
	src := filepath.Join(dataDir(), name)
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

// HangServer returns the command of a language server that answers
// initialize and shutdown and never anything else: testdata/fakeserver
// with -hang.
func HangServer(t testing.TB) []string {
	t.Helper()
	return []string{build(t, "fakeserver"), "-hang"}
}

// FakeServer builds testdata/fakeserver, a deterministic language server
// (full text sync): it publishes an error on every line holding "ERROR",
// formats by removing trailing blanks, and renames the word under the
// cursor in every file of the root with the document's extension. It
// returns the binary's path.
func FakeServer(t testing.TB) string {
	t.Helper()
	return build(t, "fakeserver")
}

// build compiles the command in testdata/name into a temporary directory;
// without the go command (the Windows test binaries CI runs under wine) the
// test skips.
func build(t testing.TB, name string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("the go command, which builds the %s test server, is not available: %v", name, err)
	}
	bin := filepath.Join(t.TempDir(), name)
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = filepath.Join(dataDir(), name)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", name, err, out)
	}
	return bin
}
