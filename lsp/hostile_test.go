package lsp

import (
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

	"go.lsp.dev/uri"
)

// Hostile and broken input through raw frames: positions that cannot be
// decoded, input echoed without bound, frames too large to read or skip.

// request sends a request with params and returns its response; the
// notifications read on the way are returned too.
func (rc *rawConn) request(id int, method, params string) (resp map[string]any, notes []map[string]any) {
	rc.t.Helper()
	rc.write(frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)))
	for {
		m := rc.read()
		if _, isReq := m["method"]; isReq {
			notes = append(notes, m)
			continue
		}
		if m["id"] != float64(id) {
			rc.t.Fatalf("response %v, want id %d", m, id)
		}
		return m, notes
	}
}

func (rc *rawConn) notify(method, params string) {
	rc.t.Helper()
	rc.write(frame(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, method, params)))
}

// start initializes the session (a client that applies edits) and opens
// a.txt with text, on disk and in the editor.
func (rc *rawConn) start(text string) (docURI string) {
	rc.t.Helper()
	if err := os.WriteFile(filepath.Join(rc.root, "a.txt"), []byte(text), 0o644); err != nil {
		rc.t.Fatal(err)
	}
	resp, _ := rc.request(1, "initialize", `{"processId":null,"rootUri":null,"capabilities":{"workspace":{"applyEdit":true,"workspaceEdit":{"documentChanges":true}}},"initializationOptions":{"applyEditTimeoutMs":300,"activity":true}}`)
	if resp["result"] == nil {
		rc.t.Fatalf("initialize: %v", resp)
	}
	rc.notify("initialized", `{}`)
	docURI = string(uri.File(filepath.Join(rc.root, "a.txt")))
	b, _ := json.Marshal(text)
	rc.notify("textDocument/didOpen", fmt.Sprintf(`{"textDocument":{"uri":%q,"languageId":"plaintext","version":1,"text":%s}}`, docURI, b))
	return docURI
}

func errMessage(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	s, _ := e["message"].(string)
	return s
}

func resultText(m map[string]any) string {
	r, _ := m["result"].(map[string]any)
	s, _ := r["text"].(string)
	return s
}

// TestDidChangeUndecodableRange: a didChange whose range cannot be decoded is
// refused and reported to the editor once, the buffer is not replaced by the
// change's text, requests on and edits to the document are refused until
// the editor sends it whole, and then everything works again.
func TestDidChangeUndecodableRange(t *testing.T) {
	cases := []struct{ name, change string }{
		{"negative line", `{"range":{"start":{"line":-1,"character":0},"end":{"line":0,"character":0}},"text":"X"}`},
		{"line 2^32", `{"range":{"start":{"line":4294967296,"character":0},"end":{"line":4294967296,"character":0}},"text":"X"}`},
		{"negative character", `{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":-5}},"text":"X"}`},
		{"fractional line", `{"range":{"start":{"line":0.5,"character":0},"end":{"line":1,"character":0}},"text":"X"}`},
		{"start after end", `{"range":{"start":{"line":2,"character":0},"end":{"line":0,"character":0}},"text":"X"}`},
		{"null range", `{"range":null,"text":"X"}`},
		{"range without end", `{"range":{"start":{"line":0,"character":0}},"text":"X"}`},
		{"second change bad", `{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"0"},{"range":{"start":{"line":-1,"character":0},"end":{"line":0,"character":0}},"text":"X"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rc := newRawConn(t)
			u := rc.start("one\ntwo\nthree\n")
			rc.notify("textDocument/didChange", fmt.Sprintf(`{"textDocument":{"uri":%q,"version":2},"contentChanges":[%s]}`, u, tc.change))
			// The editor is told, once.
			m := rc.read()
			params, _ := m["params"].(map[string]any)
			msg, _ := params["message"].(string)
			if m["method"] != "window/showMessage" || !strings.Contains(msg, "out of sync") || !strings.Contains(msg, "a.txt") {
				t.Fatalf("after a bad didChange the server sent %v, want window/showMessage naming a.txt out of sync", m)
			}
			// The buffer was not replaced with "X".
			resp, _ := rc.request(10, "workspace/executeCommand", `{"command":"hashls.read","arguments":[{"path":"a.txt"}]}`)
			text := resultText(resp)
			if strings.Contains(text, "X") || !strings.Contains(text, "two") {
				t.Fatalf("read after a bad didChange: %v", resp)
			}
			hdr, _, _ := strings.Cut(text, "\n")
			tag := hdr[strings.LastIndex(hdr, "#")+1:]
			// Requests on the document are refused with a clear error.
			for i, req := range []struct{ method, params string }{
				{"textDocument/documentSymbol", fmt.Sprintf(`{"textDocument":{"uri":%q}}`, u)},
				{"textDocument/selectionRange", fmt.Sprintf(`{"textDocument":{"uri":%q},"positions":[{"line":0,"character":1}]}`, u)},
				{"textDocument/codeAction", fmt.Sprintf(`{"textDocument":{"uri":%q},"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"context":{"diagnostics":[]}}`, u)},
			} {
				resp, _ := rc.request(20+i, req.method, req.params)
				if !strings.Contains(errMessage(resp), "out of sync") {
					t.Fatalf("%s on an out-of-sync document: %v", req.method, resp)
				}
			}
			// Edits to it are refused, and nothing reaches the editor.
			resp, notes := rc.request(30, "workspace/executeCommand", fmt.Sprintf(`{"command":"hashls.edit","arguments":[{"input":"¶a.txt#%s\nreplace 1..1:\n+ONE"}]}`, tag))
			if !strings.Contains(errMessage(resp), "out of sync") {
				t.Fatalf("edit to an out-of-sync document: %v", resp)
			}
			for _, n := range notes {
				if n["method"] == "workspace/applyEdit" || n["method"] == "window/showMessage" {
					t.Fatalf("edit to an out-of-sync document sent %v", n)
				}
			}
			// A later range change cannot be applied either: no second message.
			rc.notify("textDocument/didChange", fmt.Sprintf(`{"textDocument":{"uri":%q,"version":3},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"Y"}]}`, u))
			resp, notes = rc.request(40, "textDocument/documentSymbol", fmt.Sprintf(`{"textDocument":{"uri":%q}}`, u))
			if len(notes) != 0 || !strings.Contains(errMessage(resp), "out of sync") {
				t.Fatalf("after a range change to an out-of-sync document: %v %v", notes, resp)
			}
			// The editor sends the document whole: in sync again.
			rc.notify("textDocument/didChange", fmt.Sprintf(`{"textDocument":{"uri":%q,"version":4},"contentChanges":[{"text":"fresh\n"}]}`, u))
			resp, _ = rc.request(50, "textDocument/documentSymbol", fmt.Sprintf(`{"textDocument":{"uri":%q}}`, u))
			if resp["error"] != nil {
				t.Fatalf("documentSymbol after a whole-document change: %v", resp)
			}
			resp, _ = rc.request(51, "workspace/executeCommand", `{"command":"hashls.read","arguments":[{"path":"a.txt"}]}`)
			if !strings.Contains(resultText(resp), "1:fresh") {
				t.Fatalf("read after a whole-document change: %v", resp)
			}
			rc.logMu.Lock()
			log := rc.log.String()
			rc.logMu.Unlock()
			if !strings.Contains(log, "refused") {
				t.Fatalf("the refused didChange was not logged: %s", log)
			}
		})
	}
}

// TestPositionRequestsUndecodable: a request whose position cannot be
// decoded, or whose range starts after its end, is an error on that
// request, and the session goes on.
func TestPositionRequestsUndecodable(t *testing.T) {
	rc := newRawConn(t)
	u := rc.start("package a\n\nfunc f() {}\n")
	for i, tc := range []struct{ method, params string }{
		{"textDocument/selectionRange", fmt.Sprintf(`{"textDocument":{"uri":%q},"positions":[{"line":-1,"character":0}]}`, u)},
		{"textDocument/selectionRange", fmt.Sprintf(`{"textDocument":{"uri":%q},"positions":[{"line":4294967296,"character":0}]}`, u)},
		{"textDocument/codeAction", fmt.Sprintf(`{"textDocument":{"uri":%q},"range":{"start":{"line":-1,"character":0},"end":{"line":0,"character":0}},"context":{"diagnostics":[]}}`, u)},
		{"textDocument/codeAction", fmt.Sprintf(`{"textDocument":{"uri":%q},"range":{"start":{"line":2,"character":0},"end":{"line":0,"character":0}},"context":{"diagnostics":[]}}`, u)},
		{"workspace/executeCommand", fmt.Sprintf(`{"command":"hashls.selectBlock","arguments":[{"uri":%q,"line":-1}]}`, u)},
	} {
		resp, _ := rc.request(100+i, tc.method, tc.params)
		if errCode(resp) == 0 {
			t.Errorf("%s %s: answered %v, want an error", tc.method, tc.params, resp)
		}
	}
	resp, _ := rc.request(200, "textDocument/documentSymbol", fmt.Sprintf(`{"textDocument":{"uri":%q}}`, u))
	if resp["error"] != nil {
		t.Fatalf("documentSymbol after bad requests: %v", resp)
	}
}

// TestHugeInputBoundedEcho: a 100 MiB path is answered with an error that
// quotes a prefix of it and its length, and the activity notification is as
// small.
func TestHugeInputBoundedEcho(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 100 MiB")
	}
	rc := newRawConn(t)
	rc.wait = 2 * time.Minute
	rc.start("x\n")
	start := time.Now()
	path := strings.Repeat("a", 100<<20)
	resp, notes := rc.request(7, "workspace/executeCommand", `{"command":"hashls.read","arguments":[{"path":"`+path+`"}]}`)
	path = ""
	t.Logf("answered in %v", time.Since(start))
	msg := errMessage(resp)
	if msg == "" || len(msg) > 8<<10 || !strings.Contains(msg, "104857600 bytes") {
		t.Fatalf("reply to a 100 MiB path: %d-byte message %.300q", len(msg), msg)
	}
	var act map[string]any
	for _, n := range notes {
		if n["method"] == MethodActivity {
			act = n
		}
	}
	if act == nil {
		t.Fatalf("no activity notification in %v", notes)
	}
	b, _ := json.Marshal(act)
	if len(b) > 16<<10 || !strings.Contains(string(b), "104857600 bytes") {
		t.Fatalf("activity for a 100 MiB path: %d bytes %.300q", len(b), b)
	}
	// The session goes on.
	resp, _ = rc.request(8, "workspace/executeCommand", `{"command":"hashls.read","arguments":[{"path":"a.txt"}]}`)
	if !strings.Contains(resultText(resp), "1:x") {
		t.Fatalf("read after the huge path: %v", resp)
	}
}

// TestContentLengthTooLarge: a header declaring more than the server can
// skip closes the connection with a clear message (on stderr and as an
// error reply), instead of leaving the server alive and deaf.
func TestContentLengthTooLarge(t *testing.T) {
	rc := newRawConn(t)
	rc.write("Content-Length: 99999999999\r\n\r\n")
	m := rc.read()
	if errCode(m) != -32600 || !strings.Contains(errMessage(m), "closing the connection") {
		t.Fatalf("reply to Content-Length 99999999999: %v", m)
	}
	_ = rc.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := rc.r.ReadByte(); err != io.EOF && err != io.ErrClosedPipe {
		t.Fatalf("the connection stayed open (read: %v)", err)
	}
	select {
	case err := <-rc.ch:
		if err == nil || !strings.Contains(err.Error(), "too large") {
			t.Fatalf("Serve returned %v, want the too-large error", err)
		}
		rc.ch <- err
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return")
	}
	rc.logMu.Lock()
	log := rc.log.String()
	rc.logMu.Unlock()
	if !strings.Contains(log, "99999999999") || !strings.Contains(log, "closing the connection") {
		t.Fatalf("stderr does not say why: %s", log)
	}
}

// TestStreamSkipsOversizedFrames: a frame over the body limit is read and
// discarded (answered with an error) and the next frame is served; a frame
// over the skip limit ends reading with errTooLarge; a declared length
// whose body never arrives holds memory for what arrived only.
func TestStreamSkipsOversizedFrames(t *testing.T) {
	next := frame(`{"jsonrpc":"2.0","id":5,"method":"x"}`)
	var out strings.Builder
	in := "Content-Length: 3000\r\n\r\n" + strings.Repeat("z", 3000) + next
	s := newStream(rwc{strings.NewReader(in), &out}, func(string, ...any) {})
	s.maxBody, s.maxSkip = 1000, 5000
	msg, _, err := s.Read(context.Background())
	if err != nil || msg == nil {
		t.Fatalf("after a skipped frame: %v %v", msg, err)
	}
	if !strings.Contains(out.String(), "exceeds the 1000-byte limit") {
		t.Fatalf("no error reply for the skipped frame: %q", out.String())
	}

	out.Reset()
	s = newStream(rwc{strings.NewReader("Content-Length: 6000\r\n\r\n" + next), &out}, func(string, ...any) {})
	s.maxBody, s.maxSkip = 1000, 5000
	if _, _, err := s.Read(context.Background()); !errors.Is(err, errTooLarge) {
		t.Fatalf("a frame over the skip limit: %v", err)
	}
	if !strings.Contains(out.String(), "closing the connection") {
		t.Fatalf("no error reply before closing: %q", out.String())
	}

	// 400 MiB declared, 10 bytes sent: the buffer stays small.
	s = newStream(rwc{strings.NewReader("Content-Length: 419430400\r\n\r\n0123456789"), &out}, func(string, ...any) {})
	if _, _, err := s.Read(context.Background()); err == nil {
		t.Fatal("a truncated body was accepted")
	}
	if cap(s.body) > 2*bodyChunk {
		t.Fatalf("a 400 MiB declaration made a %d-byte buffer", cap(s.body))
	}
}
