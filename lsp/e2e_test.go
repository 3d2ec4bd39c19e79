package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The end-to-end tests build the server binary: the root hashls command
// (`hashls serve --stdio`) once main wires it to Serve, else the small
// testdata/servemain. Building needs the go tool; each test skips without it.

var (
	binOnce sync.Once
	binPath string
	binArgs []string
	binErr  error
	binDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func serverBinary(tb testing.TB) (string, []string) {
	tb.Helper()
	binOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			binErr = fmt.Errorf("no go tool: %w", err)
			return
		}
		binDir, binErr = os.MkdirTemp("", "hashls-e2e-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "hashls")
		pkg, args := "./lsp/testdata/servemain", []string(nil)
		if b, err := os.ReadFile("../serve.go"); err == nil && bytes.Contains(b, []byte("lsp.Serve(")) {
			pkg, args = ".", []string{"serve", "--stdio"}
		}
		cmd := exec.Command(goTool, "build", "-o", binPath, pkg)
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
			return
		}
		binArgs = args
	})
	if binErr != nil {
		tb.Skipf("cannot build the server: %v", binErr)
	}
	return binPath, binArgs
}

// TestNodeClientE2E runs integration/lsp-e2e/test.mjs (node:test, the
// vscode-languageserver-protocol client) against the built binary. It skips
// when node or the npm dependencies are missing; CI runs
// `npm ci --prefix integration/lsp-e2e` first.
func TestNodeClientE2E(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	dir, _ := filepath.Abs("../integration/lsp-e2e")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "vscode-languageserver-protocol")); err != nil {
		t.Skip("run `npm ci --prefix integration/lsp-e2e` first")
	}
	bin, args := serverBinary(t)
	argsJSON, _ := json.Marshal(append([]string{}, args...))
	cmd := exec.Command(node, "--test", "test.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HASHLS_BIN="+bin, "HASHLS_ARGS="+string(argsJSON), "HASHLS_STATE_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test failed: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("# pass 1")) {
		t.Fatalf("the node test did not pass:\n%s", out)
	}
	t.Logf("%s", lastLines(out, 8))
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// proc is a server process with a raw LSP client on its stdio.
type proc struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	errb bytes.Buffer
}

func startProc(tb testing.TB, root, stateDir string) (*proc, time.Time) {
	bin, args := serverBinary(tb)
	p := &proc{cmd: exec.Command(bin, args...)}
	p.cmd.Dir = root
	p.cmd.Env = append(os.Environ(), "HASHLS_STATE_DIR="+stateDir)
	p.cmd.Stderr = &p.errb
	in, err := p.cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	p.in, p.out = in, bufio.NewReader(out)
	start := time.Now()
	if err := p.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	return p, start
}

func (p *proc) send(tb testing.TB, body string) {
	if _, err := io.WriteString(p.in, frame(body)); err != nil {
		tb.Fatalf("write: %v (stderr: %s)", err, p.errb.String())
	}
}

// response reads frames until the response with id.
func (p *proc) response(tb testing.TB, id int) map[string]any {
	for {
		n := -1
		for {
			line, err := p.out.ReadString('\n')
			if err != nil {
				tb.Fatalf("read: %v (stderr: %s)", err, p.errb.String())
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(p.out, body); err != nil {
			tb.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			tb.Fatalf("stdout carried a non-JSON frame %q", body)
		}
		if m["id"] == float64(id) && m["method"] == nil {
			return m
		}
	}
}

func (p *proc) stop(tb testing.TB, id int) {
	p.send(tb, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"shutdown"}`, id))
	p.response(tb, id)
	p.send(tb, `{"jsonrpc":"2.0","method":"exit"}`)
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			tb.Fatalf("exit: %v (stderr: %s)", err, p.errb.String())
		}
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		tb.Fatal("the server did not exit after shutdown+exit")
	}
}

func initializeBody(id int, root string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"processId":null,"rootUri":%q,"capabilities":{"workspace":{"applyEdit":true,"workspaceEdit":{"documentChanges":true}}}}}`, id, string(pathToURI(root)))
}

// TestBinaryLifecycle: the built binary answers initialize, serves a request
// over its stdio, writes only frames to stdout and exits 0 after
// shutdown+exit.
func TestBinaryLifecycle(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, _ := startProc(t, root, t.TempDir())
	p.send(t, initializeBody(1, root))
	if m := p.response(t, 1); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	p.send(t, `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"hashls.read","arguments":[{"path":"a.go"}]}}`)
	m := p.response(t, 2)
	res, _ := m["result"].(map[string]any)
	if text, _ := res["text"].(string); !strings.Contains(text, "func A()") {
		t.Fatalf("hashls.read: %v", m)
	}
	p.stop(t, 3)
}

// BenchmarkProcessInitialize measures, per iteration, a fresh server
// process from exec to the initialize reply (the figure an editor waits
// for), and reports the idle RSS after initialize and one didOpen.
func BenchmarkProcessInitialize(b *testing.B) {
	root := b.TempDir()
	stateDir := b.TempDir()
	src := thousandLines()
	if err := os.WriteFile(filepath.Join(root, "big.go"), []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	serverBinary(b) // build outside the timing
	var total time.Duration
	rss := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, start := startProc(b, root, stateDir)
		p.send(b, initializeBody(1, root))
		p.response(b, 1)
		total += time.Since(start)
		if i == 0 {
			p.send(b, `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
			open, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
				"textDocument": map[string]any{"uri": string(pathToURI(filepath.Join(root, "big.go"))), "languageId": "go", "version": 1, "text": src}}})
			p.send(b, string(open))
			p.send(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":%q}}}`, string(pathToURI(filepath.Join(root, "big.go")))))
			p.response(b, 2)
			time.Sleep(200 * time.Millisecond)
			rss = procRSSKB(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
		}
		p.stop(b, 9)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-initialize")
	if rss > 0 {
		b.ReportMetric(float64(rss)/1024, "idle-RSS-MB")
	}
}

// TestBinarySoak sends 10,000 requests (documentSymbol; a didChange and a
// hashls.read every tenth) to the built server process over its stdio and
// logs its RSS before and after.
func TestBinarySoak(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	root := t.TempDir()
	lines := strings.SplitAfter(thousandLines(), "\n")
	src := strings.Join(lines[:300], "")
	if err := os.WriteFile(filepath.Join(root, "soak.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, _ := startProc(t, root, t.TempDir())
	defer p.cmd.Process.Kill()
	uri := string(pathToURI(filepath.Join(root, "soak.go")))
	p.send(t, initializeBody(1, root))
	p.response(t, 1)
	p.send(t, `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	open, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
		"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": src}}})
	p.send(t, string(open))
	pid := p.cmd.Process.Pid
	status := fmt.Sprintf("/proc/%d/status", pid)
	sym := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":%q}}}`, id, uri)
	}
	p.send(t, sym(2))
	p.response(t, 2)
	rss0 := procRSSKB(status)
	start := time.Now()
	const n = 10000
	version := 1
	for i := 0; i < n; i++ {
		id := 10 + i
		if i%10 == 0 {
			version++
			ch, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": map[string]any{
				"textDocument":   map[string]any{"uri": uri, "version": version},
				"contentChanges": []any{map[string]any{"range": lspRange(2, 3, 2, 4), "text": string(rune('A' + i%26))}}}})
			p.send(t, string(ch))
			p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"workspace/executeCommand","params":{"command":"hashls.read","arguments":[{"path":"soak.go:1-40"}]}}`, id))
		} else {
			p.send(t, sym(id))
		}
		if m := p.response(t, id); m["error"] != nil {
			t.Fatalf("request %d: %v", i, m["error"])
		}
	}
	elapsed := time.Since(start)
	time.Sleep(100 * time.Millisecond)
	rss1 := procRSSKB(status)
	t.Logf("binary soak: %d requests in %v (%.0f/s); server RSS %d kB before, %d kB after", n, elapsed.Round(time.Millisecond), n/elapsed.Seconds(), rss0, rss1)
	if rss0 > 0 && rss1 > rss0+64<<10 {
		t.Errorf("server RSS grew by %d MB over the soak", (rss1-rss0)>>10)
	}
	p.stop(t, 5)
}
