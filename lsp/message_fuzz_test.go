package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// FuzzMessages fuzzes LSP message handling after framing: positions (any
// int64, as JSON numbers) in didChange, selectionRange, codeAction and the
// block commands, and arbitrary params for every method the server
// handles. No message may make the server panic (an internal error reply)
// or stop answering; a didChange is applied exactly when its range decodes
// (else the document is out of sync), and a whole-document change always
// brings the document back in sync with the editor's text.
func FuzzMessages(f *testing.F) {
	f.Add(uint8(0), int64(0), int64(0), int64(0), int64(1), "x", []byte(`{}`))
	f.Add(uint8(0), int64(-1), int64(0), int64(0), int64(0), "x", []byte(`{}`))
	f.Add(uint8(0), int64(4294967296), int64(0), int64(1), int64(0), "😀", []byte(`{}`))
	f.Add(uint8(1), int64(2), int64(3), int64(0), int64(0), "", []byte(`{}`))
	f.Add(uint8(2), int64(2), int64(0), int64(1), int64(0), "", []byte(`{}`))
	f.Add(uint8(3), int64(3), int64(0), int64(0), int64(0), "", []byte(`{}`))
	f.Add(uint8(4), int64(0), int64(0), int64(0), int64(0), "", []byte(`{"textDocument":{"uri":"file:///x"},"contentChanges":[{"range":null,"text":1}]}`))
	f.Add(uint8(9), int64(0), int64(0), int64(0), int64(0), "", []byte(`{"command":"hashls.read","arguments":[{"path":"a.go:1"}]}`))
	opts := testOptions()
	opts.Logf = func(string, ...any) {} // f.Logf may not be called from the fuzz target
	c := newTestClient(f, opts)
	c.initialize(nil)
	const text = "package a\n\nfunc f() {\n\treturn // é😀\n}\n"
	u := c.open("a.go", text, text)
	methods := []string{
		"textDocument/didChange", "textDocument/didOpen", "textDocument/didClose",
		"textDocument/selectionRange", "textDocument/codeAction", "textDocument/documentSymbol",
		"textDocument/foldingRange", "workspace/executeCommand", "$/cancelRequest",
		"workspace/didChangeConfiguration",
	}
	f.Fuzz(func(t *testing.T, kind uint8, l1, c1, l2, c2 int64, ins string, raw []byte) {
		c.t = t // inputs run one at a time in a process
		defer func() { c.t = f }()
		pos := func(l, ch int64) string { return fmt.Sprintf(`{"line":%d,"character":%d}`, l, ch) }
		rng := `{"start":` + pos(l1, c1) + `,"end":` + pos(l2, c2) + `}`
		insJSON, _ := json.Marshal(ins)
		var method, params string
		switch kind % 5 {
		case 0:
			method = "textDocument/didChange"
			params = fmt.Sprintf(`{"textDocument":{"uri":%q,"version":2},"contentChanges":[{"range":%s,"text":%s}]}`, u, rng, insJSON)
		case 1:
			method = "textDocument/selectionRange"
			params = fmt.Sprintf(`{"textDocument":{"uri":%q},"positions":[%s,%s]}`, u, pos(l1, c1), pos(l2, c2))
		case 2:
			method = "textDocument/codeAction"
			params = fmt.Sprintf(`{"textDocument":{"uri":%q},"range":%s,"context":{"diagnostics":[]}}`, u, rng)
		case 3:
			method = "workspace/executeCommand"
			cmd := []string{"hashls.selectBlock", "hashls.copyBlockAnchor"}[l2&1]
			params = fmt.Sprintf(`{"command":%q,"arguments":[{"uri":%q,"line":%d}]}`, cmd, u, l1)
		case 4:
			method = methods[int(kind/5)%len(methods)]
			if method == "textDocument/didOpen" || method == "textDocument/didClose" {
				method = "textDocument/didChange" // keep a.go open
			}
			params = string(raw)
			if !json.Valid(raw) {
				params = string(insJSON)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if strings.HasPrefix(method, "textDocument/did") || method == "$/cancelRequest" || method == "workspace/didChangeConfiguration" {
			if err := c.conn.Notify(ctx, method, json.RawMessage(params)); err != nil {
				t.Fatalf("notify: %v", err)
			}
		} else {
			var res json.RawMessage
			_, err := c.conn.Call(ctx, method, json.RawMessage(params), &res)
			var je *jsonrpc2.Error
			if err != nil && (ctx.Err() != nil || errors.As(err, &je) && je.Code == jsonrpc2.InternalError) {
				t.Fatalf("%s %s: %v", method, params, err)
			}
		}
		if kind%5 == 0 {
			c.barrier()
			in := func(v int64) bool { return v >= 0 && v < 1<<32 }
			valid := in(l1) && in(c1) && in(l2) && in(c2) && (l1 < l2 || l1 == l2 && c1 <= c2)
			_, err := c.srv.snapshotOf(protocolURI(u))
			if valid != (err == nil) {
				t.Fatalf("didChange range %s (valid %v): document state %v", rng, valid, err)
			}
		}
		// The server still answers, and a whole-document change resyncs.
		c.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": u, "version": 3},
			"contentChanges": []any{map[string]any{"text": text}},
		})
		got, _ := c.serverText(u)
		if got != text {
			t.Fatalf("after a whole-document change the server holds %q", got)
		}
	})
}
