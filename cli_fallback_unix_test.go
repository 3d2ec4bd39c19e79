//go:build unix

package main

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashls/hashls/workspace"
)

// TestCLIHubFallbackLogged: when the root's hub refuses a forwarded call,
// `hashls tool` runs it itself, prints its result on stdout and says so on
// stderr.
func TestCLIHubFallbackLogged(t *testing.T) {
	base, err := os.MkdirTemp("", "cf") // short: a socket path is bounded
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	root, state := filepath.Join(base, "r"), filepath.Join(base, "s")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HASHLS_STATE_DIR", state)
	sock, err := workspace.HubSocket(state, root)
	if err != nil {
		t.Fatal(err)
	}
	if err := workspace.MkdirHub(sock); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // a hub that refuses every call (another protocol)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = bufio.NewReader(c).ReadString('\n')
			c.Write([]byte(`{"refused":"protocol 9 only"}` + "\n"))
			c.Close()
		}
	}()
	var out, errb bytes.Buffer
	code := run([]string{"--root", root, "tool", "read", `{"path":"a.txt"}`}, strings.NewReader(""), &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "1:on disk") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), "did not run read (the hub refused the call: protocol 9 only)") || strings.Contains(out.String(), "hub") {
		t.Errorf("stderr %q, stdout %q: want the fallback on stderr only", errb.String(), out.String())
	}
}
