package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// rawConn drives Serve with hand-written bytes.
type rawConn struct {
	t    *testing.T
	c    net.Conn
	r    *bufio.Reader
	ch   chan error
	root string
	wait time.Duration // read and write deadline (default 5s)

	logMu sync.Mutex
	log   strings.Builder // what the server logged (its stderr)
}

func newRawConn(t *testing.T) *rawConn {
	a, b := net.Pipe()
	rc := &rawConn{t: t, c: a, r: bufio.NewReader(a), ch: make(chan error, 1)}
	opts := testOptions()
	opts.StateDir = t.TempDir()
	opts.Root = t.TempDir()
	rc.root = opts.Root
	opts.Logf = func(f string, args ...any) {
		line := fmt.Sprintf(f, args...)
		rc.logMu.Lock()
		rc.log.WriteString(line + "\n")
		rc.logMu.Unlock()
		t.Logf("server: %.2000s", line)
	}
	go func() { rc.ch <- Serve(context.Background(), b, opts) }()
	t.Cleanup(func() {
		a.Close()
		select {
		case <-rc.ch:
		case <-time.After(5 * time.Second):
			t.Error("Serve did not return")
		}
	})
	return rc
}

func (rc *rawConn) write(s string) {
	rc.t.Helper()
	_ = rc.c.SetWriteDeadline(time.Now().Add(rc.deadline()))
	if _, err := io.WriteString(rc.c, s); err != nil {
		rc.t.Fatalf("write: %v", err)
	}
}

func (rc *rawConn) deadline() time.Duration {
	if rc.wait > 0 {
		return rc.wait
	}
	return 5 * time.Second
}

func frame(body string) string {
	return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

// read returns the next message the server sent.
func (rc *rawConn) read() map[string]any {
	rc.t.Helper()
	_ = rc.c.SetReadDeadline(time.Now().Add(rc.deadline()))
	n := -1
	for {
		line, err := rc.r.ReadString('\n')
		if err != nil {
			rc.t.Fatalf("read header: %v", err)
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
	if _, err := io.ReadFull(rc.r, body); err != nil {
		rc.t.Fatalf("read body: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		rc.t.Fatalf("server sent invalid JSON %q: %v", body, err)
	}
	return m
}

// readResponse skips notifications and server requests up to a response.
func (rc *rawConn) readResponse() map[string]any {
	for {
		m := rc.read()
		if _, isReq := m["method"]; !isReq {
			return m
		}
	}
}

func errCode(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return 0
	}
	c, _ := e["code"].(float64)
	return int(c)
}

func TestMalformedFrames(t *testing.T) {
	rc := newRawConn(t)
	initReq := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`

	cases := []struct {
		name  string
		input string
		code  int // expected error code of the reply (0: no reply expected)
		id    any // expected id of the error reply
	}{
		{"not json", frame(`{"jsonrpc":"2.0","id":7,`), -32700, nil},
		{"not json-rpc", frame(`{"hello":"world"}`), -32600, nil},
		{"wrong version with id", frame(`{"jsonrpc":"1.0","id":8,"method":"initialize"}`), -32600, 8.0},
		{"batch", frame(`[{"jsonrpc":"2.0","id":9,"method":"initialize"}]`), -32600, nil},
		{"garbage header", "Content-Lungth: 12\r\n\r\n{}", -32700, nil},
		{"bad length", "Content-Length: -4\r\n\r\n", -32700, nil},
		{"no colon", "garbage line\r\n{\"junk\": true}\r\n", -32700, nil},
		{"truncated notification", frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":`), -32700, nil},
		{"invalid notification", frame(`{"jsonrpc":"1.0","method":"textDocument/didOpen"}`), 0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rc.t = t
			rc.write(tc.input)
			if tc.code != 0 {
				m := rc.readResponse()
				if errCode(m) != tc.code {
					t.Fatalf("reply %v, want code %d", m, tc.code)
				}
				if m["id"] != tc.id {
					t.Fatalf("reply id %v, want %v", m["id"], tc.id)
				}
			}
			// The next well-formed request is answered (after a bad header
			// the server skips to the next Content-Length).
			rc.write(frame(`{"jsonrpc":"2.0","id":"probe","method":"shutdown"}`))
			if m := rc.readResponse(); m["id"] != "probe" || errCode(m) != -32002 {
				t.Fatalf("probe after %s: %v", tc.name, m)
			}
		})
	}
	// The connection survived all of it.
	rc.t = t
	rc.write(frame(initReq))
	if m := rc.readResponse(); m["result"] == nil || m["id"] != 1.0 {
		t.Fatalf("initialize after garbage: %v", m)
	}
	// Unknown method, and a request with params of the wrong shape.
	rc.write(frame(`{"jsonrpc":"2.0","id":2,"method":"workspace/unknown","params":{}}`))
	if m := rc.readResponse(); errCode(m) != -32601 {
		t.Fatalf("unknown method: %v", m)
	}
	rc.write(frame(`{"jsonrpc":"2.0","id":3,"method":"textDocument/documentSymbol","params":[1,2]}`))
	if m := rc.readResponse(); errCode(m) == 0 {
		t.Fatalf("bad params accepted: %v", m)
	}
	rc.write(frame(`{"jsonrpc":"2.0","id":4,"method":"shutdown"}`))
	if m := rc.readResponse(); m["id"] != 4.0 || m["error"] != nil {
		t.Fatalf("shutdown: %v", m)
	}
	rc.write(frame(`{"jsonrpc":"2.0","method":"exit"}`))
	select {
	case err := <-rc.ch:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
		rc.ch <- nil
	case <-time.After(5 * time.Second):
		t.Fatal("no exit")
	}
}

// TestTruncatedInput: the client dies mid-frame; Serve returns.
func TestTruncatedInput(t *testing.T) {
	a, b := net.Pipe()
	done := make(chan error, 1)
	opts := testOptions()
	opts.StateDir = t.TempDir()
	go func() { done <- Serve(context.Background(), b, opts) }()
	go func() {
		_, _ = io.WriteString(a, "Content-Length: 100\r\n\r\n{\"jsonrpc\"")
		a.Close()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return on a truncated frame")
	}
}

// FuzzStream feeds arbitrary bytes to the framing layer: it must never panic
// and every reply it writes must be a well-formed frame.
func FuzzStream(f *testing.F) {
	f.Add([]byte(frame(`{"jsonrpc":"2.0","id":1,"method":"x"}`)))
	f.Add([]byte("Content-Length: 3\r\n\r\n{}}"))
	f.Add([]byte("content-length:2\n\n{}garbage\r\nContent-Length: 2\r\n\r\n[]"))
	f.Add([]byte("Content-Length: 99999999999999999999\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		s := newStream(rwc{bytes.NewReader(data), &out}, func(string, ...any) {})
		for i := 0; i < 100; i++ {
			if _, _, err := s.Read(context.Background()); err != nil {
				break
			}
		}
		r := bufio.NewReader(&out)
		for {
			line, err := r.ReadString('\n')
			if err == io.EOF && line == "" {
				return
			}
			var n int
			if _, err := fmt.Sscanf(line, "Content-Length: %d\r\n", &n); err != nil {
				t.Fatalf("bad reply header %q", line)
			}
			_, _ = r.ReadString('\n')
			body := make([]byte, n)
			if _, err := io.ReadFull(r, body); err != nil || !json.Valid(body) {
				t.Fatalf("bad reply body %q", body)
			}
		}
	})
}

type rwc struct {
	io.Reader
	io.Writer
}

func (rwc) Close() error { return nil }
