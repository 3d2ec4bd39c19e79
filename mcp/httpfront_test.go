package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashls/hashls/agent"
)

// httpWire is a client speaking raw Streamable HTTP to ServeHTTP.
type httpWire struct {
	t   *testing.T
	url string
	srv *Server
}

func startHTTP(t *testing.T, opts Options, hopts HTTPOptions) *httpWire {
	t.Helper()
	if opts.StateDir == "" {
		opts.StateDir = t.TempDir()
	}
	if opts.Root == "" {
		opts.Root = t.TempDir()
	}
	opts.Logf, opts.NoHub = t.Logf, true
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeHTTP(ctx, ln, hopts) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeHTTP: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Error("ServeHTTP did not stop within 15s")
		}
		srv.Close()
	})
	return &httpWire{t: t, url: "http://" + ln.Addr().String() + "/mcp", srv: srv}
}

// post sends body and returns the status, the session header and the
// JSON-RPC frame answered (the data of an SSE event, or a JSON body).
func (c *httpWire) post(sid, version, body string, header ...string) (int, string, string) {
	c.t.Helper()
	req, _ := http.NewRequest("POST", c.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set(sessionHeader, sid)
	}
	if version != "" {
		req.Header.Set(versionHeader, version)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("POST %s: %v", body, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	frame := strings.TrimSpace(string(b))
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// Every message of the stream but notifications, one per line.
		var frames []string
		for _, l := range strings.Split(string(b), "\n") {
			if d, ok := strings.CutPrefix(l, "data: "); ok && !strings.Contains(d, `"method":"notifications/`) {
				frames = append(frames, d)
			}
		}
		frame = strings.Join(frames, "\n")
	}
	return resp.StatusCode, resp.Header.Get(sessionHeader), frame
}

// initialize opens a session and returns its id.
func (c *httpWire) initialize(version string) string {
	c.t.Helper()
	st, sid, frame := c.post("", "", fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"w","version":"1"}}}`, version))
	if st != http.StatusOK || sid == "" || !strings.Contains(frame, version) {
		c.t.Fatalf("initialize: %d, session %q, %s", st, sid, frame)
	}
	if st, _, _ := c.post(sid, version, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); st != http.StatusAccepted {
		c.t.Fatalf("notifications/initialized: %d", st)
	}
	return sid
}

// TestHTTPFrames: over Streamable HTTP a malformed frame gets a JSON-RPC
// parse error (400) and the session goes on; a batch is refused under
// 2025-06-18 and answered under 2025-03-26; a request without a session is
// 400 with a JSON-RPC error; a cancel stops the tool; the bearer scheme is
// case-insensitive.
func TestHTTPFrames(t *testing.T) {
	root := workspaceDir(t, map[string]string{"a.txt": "a\n"})
	started := make(chan struct{}, 1)
	stopped := make(chan error, 1)
	c := startHTTP(t, Options{Root: root, runTool: func(ctx context.Context, ts *agent.Toolset, name string, args json.RawMessage, call agent.Call) (*agent.Result, error) {
		if name != "search" {
			return ts.Run(ctx, name, args, call)
		}
		started <- struct{}{}
		select {
		case <-ctx.Done():
			stopped <- ctx.Err()
			return nil, ctx.Err()
		case <-time.After(30 * time.Second):
			stopped <- fmt.Errorf("never cancelled")
			return &agent.Result{Text: "late"}, nil
		}
	}}, HTTPOptions{Token: "s3cret"})
	auth := func(scheme string) []string { return []string{"Authorization", scheme + " s3cret"} }

	for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
		if st, _, frame := c.post("", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"w","version":"1"}}}`, auth(scheme)...); st != http.StatusOK {
			t.Errorf("Authorization %q: %d %s", scheme, st, frame)
		}
	}
	if st, _, _ := c.post("", "", `{}`, "Authorization", "Basic s3cret"); st != http.StatusUnauthorized {
		t.Errorf("Basic: %d, want 401", st)
	}
	hdr := auth("Bearer")
	for _, version := range []string{"2025-06-18", "2025-03-26"} {
		t.Run(version, func(t *testing.T) {
			st, sid, frame := c.post("", "", fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"w","version":"1"}}}`, version), hdr...)
			if st != http.StatusOK || sid == "" {
				t.Fatalf("initialize: %d %s", st, frame)
			}
			c.post(sid, version, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr...)

			st, _, frame = c.post(sid, version, `{"jsonrpc":"2.0","id":1,"method":"tools/li`, hdr...)
			if st != http.StatusBadRequest {
				t.Errorf("malformed frame: status %d", st)
			}
			wantError(t, frame, nil, -32700, "parse error")

			st, _, frame = c.post(sid, version, `[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`, hdr...)
			if version >= batchesFrom {
				if st != http.StatusBadRequest {
					t.Errorf("batch: status %d", st)
				}
				wantError(t, frame, nil, -32600, "JSON-RPC batches are not part of MCP "+version)
			} else if st != http.StatusOK || !strings.Contains(frame, `"id":2`) || !strings.Contains(frame, `"id":3`) {
				t.Errorf("batch under %s: %d %s", version, st, frame)
			}

			// No session: 400 with a JSON-RPC error naming the request.
			st, _, frame = c.post("", version, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, hdr...)
			if st != http.StatusBadRequest {
				t.Errorf("no session: status %d", st)
			}
			wantError(t, frame, float64(9), -32600, "no Mcp-Session-Id header")

			// The session goes on; a call without arguments means {}.
			st, _, frame = c.post(sid, version, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read"}}`, hdr...)
			if st != http.StatusOK || !strings.Contains(frame, `missing required argument \"path\"`) {
				t.Errorf("tools/call without arguments: %d %s", st, frame)
			}

			// A cancel stops the tool.
			go c.post(sid, version, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"search","arguments":{"pattern":"a","paths":"."}}}`, hdr...)
			<-started
			if st, _, frame := c.post(sid, version, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`, hdr...); st != http.StatusAccepted {
				t.Errorf("notifications/cancelled: %d %s", st, frame)
			}
			select {
			case err := <-stopped:
				if err != context.Canceled {
					t.Errorf("the tool saw %v", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the tool was not cancelled")
			}
			st, _, frame = c.post(sid, version, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"read","arguments":{"path":"a.txt"}}}`, hdr...)
			if st != http.StatusOK || !strings.Contains(frame, "1:a") {
				t.Errorf("read after the bad frames: %d %s", st, frame)
			}
		})
	}
}

// TestHTTPSessionCap: at MaxSessions a new session closes the one idle
// longest, whose client gets 404 (and may initialize again); a session with
// a request in flight is never closed for a new one.
func TestHTTPSessionCap(t *testing.T) {
	c := startHTTP(t, Options{}, HTTPOptions{MaxSessions: 3})
	var sids []string
	for range 3 {
		sids = append(sids, c.initialize("2025-06-18"))
		time.Sleep(5 * time.Millisecond)
	}
	// The first is used again: the second is now the one idle longest.
	if st, _, _ := c.post(sids[0], "2025-06-18", `{"jsonrpc":"2.0","id":1,"method":"ping"}`); st != http.StatusOK {
		t.Fatalf("ping: %d", st)
	}
	fourth := c.initialize("2025-06-18")
	for i, sid := range append(sids, fourth) {
		st, _, _ := c.post(sid, "2025-06-18", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		if want := http.StatusOK; i == 1 {
			if st != http.StatusNotFound {
				t.Errorf("the session idle longest: %d, want 404", st)
			}
		} else if st != want {
			t.Errorf("session %d: %d, want 200", i, st)
		}
	}
	n := 0
	for range c.srv.srv.Sessions() {
		n++
	}
	if n > 3 {
		t.Errorf("%d sessions open, cap 3", n)
	}
}

// TestHTTPSlowBody: a body that does not arrive within BodyTimeout is
// answered 408 and its connection closed; connections beyond MaxConns wait,
// and are served once the slow ones are cut.
func TestHTTPSlowBody(t *testing.T) {
	c := startHTTP(t, Options{}, HTTPOptions{BodyTimeout: 300 * time.Millisecond, MaxConns: 4})
	addr := strings.TrimSuffix(strings.TrimPrefix(c.url, "http://"), "/mcp")
	var wg sync.WaitGroup
	statuses := make(chan string, 4)
	for range 4 {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":", addr)
		wg.Add(1)
		go func() {
			defer wg.Done()
			line, _ := bufio.NewReader(conn).ReadString('\n')
			statuses <- strings.TrimSpace(line)
		}()
	}
	// All four slots hold a slow body; a fifth client waits, then is served.
	start := time.Now()
	st, _, _ := c.post("", "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"w","version":"1"}}}`)
	if st != http.StatusOK {
		t.Errorf("the client after the slow bodies: %d", st)
	}
	t.Logf("served after %v", time.Since(start))
	wg.Wait()
	close(statuses)
	for s := range statuses {
		if !strings.Contains(s, "408") {
			t.Errorf("a slow body got %q, want 408", s)
		}
	}
}

// TestOpenFileLimit: the default connection bound is below the open-file
// limit.
func TestOpenFileLimit(t *testing.T) {
	n := openFileLimit()
	got := HTTPOptions{}.withDefaults().MaxConns
	if n > 0 && got >= n {
		t.Errorf("MaxConns %d, open-file limit %d", got, n)
	}
	if _, err := os.Stat(filepath.Join("/proc/self/fd")); err == nil && n == 0 {
		t.Error("no open-file limit read on a system that has one")
	}
}

// TestHTTPShedSlowClients: when every connection slot holds a client that
// sends nothing, a new connection closes the one waiting longest (after
// shedAfter) instead of waiting for the body timeout.
func TestHTTPShedSlowClients(t *testing.T) {
	old := shedAfter
	shedAfter = 100 * time.Millisecond
	defer func() { shedAfter = old }()
	c := startHTTP(t, Options{}, HTTPOptions{BodyTimeout: time.Minute, MaxConns: 3})
	addr := strings.TrimSuffix(strings.TrimPrefix(c.url, "http://"), "/mcp")
	closed := make(chan struct{}, 3)
	for range 3 {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{", addr)
		go func() { io.Copy(io.Discard, conn); closed <- struct{}{} }()
	}
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	if st, _, _ := c.post("", "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"w","version":"1"}}}`); st != http.StatusOK {
		t.Fatalf("the client after the slow ones: %d", st)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("served after %v: the body timeout, not shedding", el)
	}
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Error("no slow connection was closed")
	}
}

// TestHTTPSessionIdle: a session unused for SessionTimeout is closed; its
// client gets 404 and may initialize again.
func TestHTTPSessionIdle(t *testing.T) {
	c := startHTTP(t, Options{}, HTTPOptions{SessionTimeout: 200 * time.Millisecond})
	sid := c.initialize("2025-06-18")
	deadline := time.Now().Add(10 * time.Second)
	for {
		time.Sleep(300 * time.Millisecond)
		st, _, _ := c.post(sid, "2025-06-18", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		if st == http.StatusNotFound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the idle session still answers (%d)", st)
		}
	}
	c.initialize("2025-06-18")
}
