//go:build unix

package mcp

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hashls/hashls/internal/hubtest"
)

// TestHubFallbackLogged: when the root's hub refuses a forwarded call, the
// call runs in this process, and the client hears of it through MCP
// logging (stderr too: Logf), never on stdout.
func TestHubFallbackLogged(t *testing.T) {
	root, state := hubtest.RefusingHub(t, "protocol 9 only")

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
