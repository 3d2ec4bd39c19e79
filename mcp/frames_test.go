package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashls/hashls/agent"
)

// wire is a client speaking raw newline-delimited JSON-RPC to a server's
// stdio transport (RunIO), so that it can send what no SDK client sends.
type wire struct {
	t     *testing.T
	w     io.WriteCloser
	lines chan string
}

func startWire(t *testing.T, opts Options) *wire {
	t.Helper()
	if opts.StateDir == "" {
		opts.StateDir = t.TempDir()
	}
	if opts.Root == "" {
		opts.Root = t.TempDir()
	}
	opts.Logf = t.Logf
	opts.NoHub = true
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.RunIO(context.Background(), inR, outW); outW.Close() }()
	c := &wire{t: t, w: inW, lines: make(chan string, 64)}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("RunIO: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop within 10s of stdin closing")
		}
		srv.Close()
	})
	return c
}

func (c *wire) send(frame string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, frame+"\n"); err != nil {
		c.t.Fatalf("writing %q: %v", frame, err)
	}
}

// recv returns the next frame the server wrote, skipping notifications.
func (c *wire) recv() string {
	c.t.Helper()
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				c.t.Fatal("the server closed stdout: the session ended")
			}
			if strings.HasPrefix(l, `{"jsonrpc":"2.0","method":"notifications/`) {
				continue
			}
			return l
		case <-time.After(20 * time.Second):
			c.t.Fatal("no answer within 20s")
		}
	}
}

// call sends a request and returns its response.
func (c *wire) call(id int, method, params string) map[string]any {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	var m map[string]any
	l := c.recv()
	if err := json.Unmarshal([]byte(l), &m); err != nil {
		c.t.Fatalf("response %q: %v", l, err)
	}
	if m["id"] != float64(id) {
		c.t.Fatalf("response %s, want id %d", l, id)
	}
	return m
}

func (c *wire) initialize(version string) {
	c.t.Helper()
	res := c.call(0, "initialize", fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"wire","version":"1"}}`, version))
	if got := res["result"].(map[string]any)["protocolVersion"]; got != version {
		c.t.Fatalf("negotiated %v, want %s", got, version)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// wantError checks that frame is a JSON-RPC error with code and a message
// holding msg.
func wantError(t *testing.T, frame string, id any, code float64, msg string) {
	t.Helper()
	var m struct {
		ID    any `json:"id"`
		Error *struct {
			Code    float64 `json:"code"`
			Message string  `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(frame), &m); err != nil || m.Error == nil {
		t.Fatalf("want a JSON-RPC error, got %s (%v)", frame, err)
	}
	if m.ID != id || m.Error.Code != code || !strings.Contains(m.Error.Message, msg) {
		t.Fatalf("error %s; want id %v, code %v, message with %q", frame, id, code, msg)
	}
}

// TestStdioFrames: over stdio, a malformed frame gets a JSON-RPC parse
// error and the session goes on; a batch is refused under 2025-06-18 (which
// removed them) and answered under 2025-03-26; tools/call without
// arguments means {}.
func TestStdioFrames(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2025-03-26"} {
		t.Run(version, func(t *testing.T) {
			root := workspaceDir(t, map[string]string{"a.txt": "a\n"})
			c := startWire(t, Options{Root: root})
			c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize",`) // cut short
			wantError(t, c.recv(), nil, -32700, "parse error")
			c.send(`{"jsonrpc":"1.0","id":2}`)
			wantError(t, c.recv(), nil, -32600, "invalid request")
			c.initialize(version)

			c.send(`[{"jsonrpc":"2.0","id":10,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}},{"jsonrpc":"2.0","id":11,"method":"tools/list"},{"nope":true}]`)
			batch := c.recv()
			if version >= batchesFrom {
				wantError(t, batch, nil, -32600, "JSON-RPC batches are not part of MCP "+version)
			} else {
				var answers []map[string]any
				if err := json.Unmarshal([]byte(batch), &answers); err != nil || len(answers) != 3 {
					t.Fatalf("want an array of 3 answers (ping, tools/list, the invalid member), got %s", batch)
				}
				ids := map[any]bool{}
				for _, a := range answers {
					ids[a["id"]] = true
				}
				if !ids[float64(10)] || !ids[float64(11)] || !ids[nil] {
					t.Fatalf("batch answers %s", batch)
				}
			}
			c.send("not json at all")
			wantError(t, c.recv(), nil, -32700, "parse error")

			// Missing arguments are {}: the tool's own message, not a JSON error.
			res := c.call(3, "tools/call", `{"name":"read"}`)
			r := res["result"].(map[string]any)
			txt := r["content"].([]any)[0].(map[string]any)["text"].(string)
			if r["isError"] != true || !strings.Contains(txt, `missing required argument "path"`) || strings.Contains(txt, "JSON input") {
				t.Fatalf("tools/call without arguments: %s", txt)
			}
			res = c.call(4, "tools/call", `{"name":"read","arguments":{"path":"a.txt"}}`)
			if txt := res["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string); !strings.HasPrefix(txt, "¶a.txt#") {
				t.Fatalf("read after the bad frames: %s", txt)
			}
		})
	}
}

// TestStdioOversizedFrame: a line over maxFrame is refused without being
// held, and the next line is served.
func TestStdioOversizedFrame(t *testing.T) {
	old := maxFrame
	maxFrame = 1 << 10
	defer func() { maxFrame = old }()
	c := startWire(t, Options{})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 5000) + `"}}`)
	wantError(t, c.recv(), nil, -32600, "over")
	c.initialize("2025-06-18")
	if res := c.call(2, "ping", `{}`); res["error"] != nil {
		t.Fatalf("ping after the oversized frame: %v", res)
	}
}

// TestStdioCancel: notifications/cancelled over stdio stops a search of one
// big file (search checks its context inside a file, per read), and the
// session goes on.
func TestStdioCancel(t *testing.T) {
	size := int64(64 << 20)
	if testing.Short() {
		size = 16 << 20
	}
	root := t.TempDir()
	f, err := os.Create(filepath.Join(root, "big.txt"))
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("lorem ipsum dolor sit amet ", 3) + "\n"
	w := bufio.NewWriterSize(f, 1<<20)
	for n := int64(0); n < size; n += int64(len(line)) {
		w.WriteString(line)
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{}, 1)
	returned := make(chan time.Time, 1)
	c := startWire(t, Options{Root: root, runTool: func(ctx context.Context, ts *agent.Toolset, name string, args json.RawMessage, call agent.Call) (*agent.Result, error) {
		started <- struct{}{}
		res, err := ts.Run(ctx, name, args, call)
		returned <- time.Now()
		return res, err
	}})
	c.initialize("2025-06-18")
	// A pattern with no literal to look for and no match: every line goes
	// through the regex engine, seconds for the whole file.
	c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{"pattern":"\\w+\\s\\d","paths":"big.txt"}}}`)
	<-started
	time.Sleep(50 * time.Millisecond)
	cancelled := time.Now()
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"test"}}`)
	select {
	case at := <-returned:
		// The figure (100 ms) is measured by bench/mcp-cancel.sh; a test
		// only checks that the search stopped long before its end.
		t.Logf("search returned %v after the cancel", at.Sub(cancelled))
		if at.Sub(cancelled) > 5*time.Second {
			t.Errorf("search returned %v after the cancel", at.Sub(cancelled))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the search did not stop within 30s of notifications/cancelled")
	}
	if res := c.call(8, "tools/call", `{"name":"find","arguments":{"paths":"*.txt"}}`); res["result"] == nil {
		t.Fatalf("after the cancel: %v", res)
	}
}
