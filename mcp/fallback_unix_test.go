//go:build unix

package mcp

import (
	"bufio"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hashls/hashls/workspace"
)

// TestHubFallbackLogged: when the root's hub refuses a forwarded call, the
// call runs in this process, and the client hears of it through MCP
// logging (stderr too: Logf), never on stdout.
func TestHubFallbackLogged(t *testing.T) {
	base, err := os.MkdirTemp("", "fb") // short: a socket path is bounded
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

	rec := &recorder{}
	// 2025-11-25: the session's level applies (later protocols set it per
	// request, which this client does not).
	s := connectVersion(t, "2025-11-25", Options{Root: root, StateDir: state}, rec.options())
	if err := s.SetLoggingLevel(context.Background(), &sdk.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	if txt := text(t, s.call(t, "read", map[string]any{"path": "a.txt"})); !strings.Contains(txt, "1:on disk") {
		t.Fatalf("the call did not run here: %s", txt)
	}
	waitFor(t, func() bool {
		_, logs := rec.snapshot()
		all := strings.Join(logs, "\n")
		return strings.Contains(all, "did not run read") && strings.Contains(all, "protocol 9 only")
	}, "the fallback as a log message")
}
