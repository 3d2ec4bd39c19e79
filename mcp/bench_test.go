package mcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hashls/hashls/agent"
	"github.com/hashls/hashls/internal/benchfile"
	"github.com/hashls/hashls/treesitter"
	"github.com/hashls/hashls/workspace"
)

// benchFile is bench/edit.sh's 10,000-line file.
func benchFile() []byte { return benchfile.Text() }

// benchShown is a read of the lines benchEdit changes (edits anchored on
// lines never shown are refused).
func benchShown() string {
	shown := make([]string, 50)
	for i := range shown {
		shown[i] = fmt.Sprintf("%d-%d", i*200+1, i*200+1)
	}
	return "big.txt:" + strings.Join(shown, ",")
}

// benchEdit is bench/edit.sh's 50-hunk edit under header.
func benchEdit(header string) string {
	ops := make([]string, 50)
	for i := range ops {
		ops[i] = fmt.Sprintf("replace %d..%d:\n+changed %d", i*200+1, i*200+1, i)
	}
	return header + "\n" + strings.Join(ops, "\n")
}

// BenchmarkEdit50 times the 50-hunk edit through MCP (in-memory transport,
// the SDK's client) and directly through Toolset.Run, to show what the
// protocol layer adds. Whole-process figures: bench/mcp.sh.
func BenchmarkEdit50(b *testing.B) {
	orig := benchFile()
	setup := func(b *testing.B) (string, string) {
		root := b.TempDir()
		big := filepath.Join(root, "big.txt")
		if err := os.WriteFile(big, orig, 0o644); err != nil {
			b.Fatal(err)
		}
		return root, big
	}
	b.Run("mcp", func(b *testing.B) {
		root, big := setup(b)
		srv, err := New(Options{Root: root, StateDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		st, ct := sdk.NewInMemoryTransports()
		go srv.Run(ctx, st)
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read", Arguments: map[string]any{"path": benchShown()}})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
		header, _, _ := strings.Cut(res.Content[0].(*sdk.TextContent).Text, "\n")
		args := map[string]any{"input": benchEdit(header)}
		b.ResetTimer()
		for b.Loop() {
			b.StopTimer()
			os.WriteFile(big, orig, 0o644)
			b.StartTimer()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "edit", Arguments: args})
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		root, big := setup(b)
		ws, err := workspace.Open(root, workspace.Options{StateDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		defer ws.Close()
		ts := agent.New(agent.Deps{WS: ws, Resolver: &treesitter.Resolver{}})
		ctx := context.Background()
		res, err := ts.Run(ctx, "read", []byte(`{"path":"`+benchShown()+`"}`), agent.Call{Transport: "mcp"})
		if err != nil {
			b.Fatal(err)
		}
		header, _, _ := strings.Cut(res.Text, "\n")
		args := fmt.Appendf(nil, `{"input":%q}`, benchEdit(header))
		b.ResetTimer()
		for b.Loop() {
			b.StopTimer()
			os.WriteFile(big, orig, 0o644)
			b.StartTimer()
			if _, err := ts.Run(ctx, "edit", args, agent.Call{Transport: "mcp"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRead20 times `read` of 20 lines of the 10,000-line file through
// MCP (in-memory transport) and directly.
func BenchmarkRead20(b *testing.B) {
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "big.txt"), benchFile(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("mcp", func(b *testing.B) {
		srv, err := New(Options{Root: root, StateDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		st, ct := sdk.NewInMemoryTransports()
		go srv.Run(ctx, st)
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		args := map[string]any{"path": "big.txt:1-20"}
		for b.Loop() {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read", Arguments: args})
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		ws, err := workspace.Open(root, workspace.Options{StateDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		defer ws.Close()
		ts := agent.New(agent.Deps{WS: ws, Resolver: &treesitter.Resolver{}})
		for b.Loop() {
			if _, err := ts.Run(context.Background(), "read", []byte(`{"path":"big.txt:1-20"}`), agent.Call{Transport: "mcp"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
