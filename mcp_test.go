package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hashls/hashls/mcp"
)

var tagRE = regexp.MustCompile(`¶a\.txt#([0-9A-F]{4})`)

// TestMCPTagRoundTrip: one HASHLS_STATE_DIR, a tag minted by an MCP read is
// accepted by `hashls tool edit`, the tag that edit printed is accepted by
// an MCP edit, whose tag the CLI accepts in turn; the audit log names both
// transports.
func TestMCPTagRoundTrip(t *testing.T) {
	root := t.TempDir()
	t.Setenv("HASHLS_STATE_DIR", filepath.Join(t.TempDir(), "state"))
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\ntwo\nthree\nfour\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := mcp.New(mcp.Options{Root: root, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, ct := sdk.NewInMemoryTransports()
	go srv.Run(ctx, st)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "roundtrip", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	mcpCall := func(tool string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("mcp %s: %v", tool, err)
		}
		txt := res.Content[0].(*sdk.TextContent).Text
		if res.IsError {
			t.Fatalf("mcp %s: %s", tool, txt)
		}
		return txt
	}
	cli := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(append([]string{"--root", root}, args...), strings.NewReader(""), &out, &errb); code != exitOK {
			t.Fatalf("hashls %s: exit %d: %s%s", strings.Join(args, " "), code, out.String(), errb.String())
		}
		return out.String()
	}
	tagIn := func(s string) string {
		t.Helper()
		m := tagRE.FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("no ¶a.txt#TAG in %q", s)
		}
		return m[1]
	}
	edit := func(tag, line, text string) string {
		b, _ := json.Marshal(map[string]string{"input": "¶a.txt#" + tag + "\nreplace " + line + ".." + line + ":\n+" + text})
		return string(b)
	}

	t1 := tagIn(mcpCall("read", map[string]any{"path": "a.txt"}))
	t2 := tagIn(cli("tool", "edit", edit(t1, "1", "ONE")))
	var args map[string]any
	json.Unmarshal([]byte(edit(t2, "2", "TWO")), &args)
	t3 := tagIn(mcpCall("edit", args))
	t4 := tagIn(cli("tool", "edit", edit(t3, "3", "THREE")))
	if t4 == t3 || t3 == t2 || t2 == t1 {
		t.Errorf("tags did not change: %s %s %s %s", t1, t2, t3, t4)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(got) != "ONE\nTWO\nTHREE\nfour\n" {
		t.Fatalf("a.txt = %q", got)
	}
	// A tag the CLI minted with read is accepted by MCP too.
	t5 := tagIn(cli("tool", "read", `{"path":"a.txt"}`))
	json.Unmarshal([]byte(edit(t5, "4", "FOUR")), &args)
	mcpCall("edit", args)

	audit := cli("tool", "audit", `{"limit":10}`)
	if strings.Count(audit, "via mcp") != 2 || strings.Count(audit, "via cli") != 2 {
		t.Errorf("audit log should show 2 mcp and 2 cli edits:\n%s", audit)
	}
}

// TestMCPUsage: the mcp subcommand's flag errors are usage errors (exit 2)
// and write nothing to stdout.
func TestMCPUsage(t *testing.T) {
	tests := []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"mcp", "--bogus"}, "", `unknown argument "--bogus"`},
		{[]string{"mcp", "--http"}, "", "needs an address"},
		{[]string{"mcp", "--allow-remote"}, "", "only with --http"},
		{[]string{"mcp", "--http", "0.0.0.0:0"}, "", "--allow-remote"},
		{[]string{"mcp", "--http", "0.0.0.0:0", "--allow-remote"}, "", "HASHLS_MCP_TOKEN"},
		{[]string{"mcp", "--http", "nonsense"}, "", "HOST:PORT"},
		{[]string{"mcp", "--http", "127.0.0.1:0"}, "", "pass --root DIR, or --allow-roots DIRS"},
		{[]string{"mcp", "--allow-roots", "/nonexistent-dir-hashls"}, "", "is not a directory"},
		{[]string{"--toolsets", "hashline,nope", "mcp"}, "", `unknown toolset "nope"`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Setenv(mcp.TokenEnv, tc.env)
			var out, errb bytes.Buffer
			code := run(tc.args, strings.NewReader(""), &out, &errb)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if out.Len() != 0 {
				t.Errorf("stdout: %q", out.String())
			}
			if !strings.Contains(errb.String(), tc.want) {
				t.Errorf("stderr lacks %q: %s", tc.want, errb.String())
			}
		})
	}
}

// TestMCPStdio runs `hashls mcp` in-process over pipes: stdout carries only
// JSON-RPC frames, and the command exits 0 when stdin closes.
func TestMCPStdio(t *testing.T) {
	root := t.TempDir()
	t.Setenv("HASHLS_STATE_DIR", filepath.Join(t.TempDir(), "state"))
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("x\n"), 0o644)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb bytes.Buffer
	code := make(chan int, 1)
	go func() {
		c := run([]string{"--root", root, "mcp"}, inR, outW, &errb)
		outW.Close()
		code <- c
	}()
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 1<<20)
	next := func() map[string]any {
		t.Helper()
		if !sc.Scan() {
			t.Fatalf("stdout ended: %v; stderr: %s", sc.Err(), errb.String())
		}
		var msg map[string]any
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg["jsonrpc"] != "2.0" {
			t.Fatalf("stdout line is not a JSON-RPC frame: %q", sc.Text())
		}
		return msg
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := next(); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read","arguments":{"path":"a.txt"}}}`)
	m := next()
	if b, _ := json.Marshal(m); m["id"] != float64(2) || !strings.Contains(string(b), "1:x") {
		t.Fatalf("tools/call read: %s", b)
	}
	inW.Close()
	for sc.Scan() {
		t.Errorf("unexpected output after the last response: %q", sc.Text())
	}
	if c := <-code; c != exitOK {
		t.Fatalf("exit %d: %s", c, errb.String())
	}
}
