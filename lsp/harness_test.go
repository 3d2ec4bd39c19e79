package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// testClient is an LSP client over net.Pipe: it records notifications and
// answers workspace/applyEdit by applying the edit to its own copy of the
// document and sending the didChange an editor would send.
type testClient struct {
	t      testing.TB
	conn   jsonrpc2.Conn
	srv    *server
	root   string
	served chan error

	mu          sync.Mutex
	notes       []note
	docs        map[string]*clientDoc // by URI
	refuseEdits bool
	renames     [][2]string // applied RenameFile operations: old and new URI
	applyEdits  []json.RawMessage
	creates     int
}

type note struct {
	method string
	params json.RawMessage
}

type clientDoc struct {
	text    string
	version int32
}

// newTestClient starts Serve over a pipe with a temp workspace root.
func newTestClient(t testing.TB, opts Options) *testClient {
	t.Helper()
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	if opts.StateDir == "" {
		opts.StateDir = t.TempDir()
	}
	if opts.Logf == nil {
		opts.Logf = func(format string, args ...any) { t.Logf("server: "+format, args...) }
	}
	c := &testClient{t: t, root: root, served: make(chan error, 1), docs: map[string]*clientDoc{}}
	srvReady := make(chan *server, 1)
	opts.onServer = func(s *server) { srvReady <- s }
	a, b := net.Pipe()
	go func() { c.served <- Serve(context.Background(), b, opts) }()
	c.srv = <-srvReady
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(a), jsonrpc2.WithCodec(codec{}))
	c.conn.Go(context.Background(), c.handle)
	t.Cleanup(func() {
		_ = c.conn.Close()
		select {
		case <-c.served:
		case <-time.After(5 * time.Second):
			t.Errorf("Serve did not return after the client closed the connection")
		}
	})
	return c
}

func (c *testClient) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	method := strings.Clone(req.Method()) // borrowed from the frame
	params := append(json.RawMessage(nil), req.Params()...)
	switch method {
	case protocol.MethodWorkspaceApplyEdit:
		return c.applyEdit(ctx, params)
	case protocol.MethodWindowWorkDoneProgressCreate:
		c.mu.Lock()
		c.creates++
		c.mu.Unlock()
		return nil, nil
	}
	if !req.IsCall() {
		c.mu.Lock()
		c.notes = append(c.notes, note{method, params})
		c.mu.Unlock()
		return nil, nil
	}
	return nil, jsonrpc2.ErrMethodNotFound
}

// applyEdit applies a versioned edit like an editor: refuse on a version
// mismatch, else apply, send didChange (version+1), answer applied.
func (c *testClient) applyEdit(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Label string `json:"label"`
		Edit  struct {
			DocumentChanges []struct {
				Kind    string `json:"kind"` // "" for a text document edit, "rename"
				OldURI  string `json:"oldUri"`
				NewURI  string `json:"newUri"`
				Options *struct {
					Overwrite bool `json:"overwrite"`
				} `json:"options"`
				TextDocument struct {
					URI     string `json:"uri"`
					Version *int32 `json:"version"`
				} `json:"textDocument"`
				Edits []struct {
					Range   protocol.Range `json:"range"`
					NewText string         `json:"newText"`
				} `json:"edits"`
			} `json:"documentChanges"`
		} `json:"edit"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.applyEdits = append(c.applyEdits, params)
	refuse := c.refuseEdits
	c.mu.Unlock()
	if refuse {
		return map[string]any{"applied": false, "failureReason": "test client refuses"}, nil
	}
	for _, dc := range p.Edit.DocumentChanges {
		if dc.Kind == "rename" {
			if reason := c.renameFile(ctx, dc.OldURI, dc.NewURI, dc.Options != nil && dc.Options.Overwrite); reason != "" {
				return map[string]any{"applied": false, "failureReason": reason}, nil
			}
			continue
		}
		c.mu.Lock()
		d := c.docs[dc.TextDocument.URI]
		if d == nil || dc.TextDocument.Version == nil || *dc.TextDocument.Version != d.version {
			c.mu.Unlock()
			return map[string]any{"applied": false, "failureReason": "version mismatch"}, nil
		}
		// Every range names the document before the edit (the LSP rule):
		// the text is rebuilt in one pass, and the didChange reports the
		// edits last first, as editors do (each range then still names the
		// text the server has).
		offs := make([][2]int, len(dc.Edits))
		for i, e := range dc.Edits {
			if i > 0 && comparePos(dc.Edits[i-1].Range.End, e.Range.Start) > 0 {
				c.mu.Unlock()
				return map[string]any{"applied": false, "failureReason": "overlapping or unordered edits"}, nil
			}
			offs[i] = [2]int{utf16Offset(d.text, e.Range.Start), utf16Offset(d.text, e.Range.End)}
		}
		var b strings.Builder
		b.Grow(len(d.text))
		at := 0
		for i, e := range dc.Edits {
			b.WriteString(d.text[at:offs[i][0]])
			b.WriteString(e.NewText)
			at = offs[i][1]
		}
		b.WriteString(d.text[at:])
		d.text = b.String()
		var changes []map[string]any
		for i := len(dc.Edits) - 1; i >= 0; i-- {
			changes = append(changes, map[string]any{"range": dc.Edits[i].Range, "text": dc.Edits[i].NewText})
		}
		d.version++
		v := d.version
		c.mu.Unlock()
		if err := c.conn.Notify(ctx, "textDocument/didChange", raw(map[string]any{
			"textDocument":   map[string]any{"uri": dc.TextDocument.URI, "version": v},
			"contentChanges": changes,
		})); err != nil {
			return nil, err
		}
	}
	return map[string]any{"applied": true}, nil
}

// renameFile applies a RenameFile operation like an editor: the file moved
// on disk (refused onto an existing path unless overwrite), an open
// document moved with it, unsaved text and version kept, announced with
// didClose of the old name and didOpen of the new. It returns the failure
// reason, "" when applied.
func (c *testClient) renameFile(ctx context.Context, oldURI, newURI string, overwrite bool) string {
	from, ok1 := uriToPath(protocolURI(oldURI))
	to, ok2 := uriToPath(protocolURI(newURI))
	if !ok1 || !ok2 {
		return "not file URIs"
	}
	if _, err := os.Lstat(to); err == nil && !overwrite {
		return to + " exists"
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err.Error()
	}
	if err := os.Rename(from, to); err != nil {
		return err.Error()
	}
	c.mu.Lock()
	c.renames = append(c.renames, [2]string{oldURI, newURI})
	d := c.docs[oldURI]
	delete(c.docs, oldURI)
	if d != nil {
		c.docs[newURI] = d
	}
	c.mu.Unlock()
	if d == nil {
		return ""
	}
	if err := c.conn.Notify(ctx, "textDocument/didClose", raw(map[string]any{"textDocument": map[string]any{"uri": oldURI}})); err != nil {
		return err.Error()
	}
	if err := c.conn.Notify(ctx, "textDocument/didOpen", raw(map[string]any{"textDocument": map[string]any{
		"uri": newURI, "languageId": "go", "version": d.version, "text": d.text,
	}})); err != nil {
		return err.Error()
	}
	return ""
}

// comparePos orders two positions.
func comparePos(a, b protocol.Position) int {
	switch {
	case a.Line != b.Line:
		return int(a.Line) - int(b.Line)
	default:
		return int(a.Character) - int(b.Character)
	}
}

// utf16Offset is the client's own position → byte offset conversion
// (independent of the server's mapper; "\n" line breaks only).
func utf16Offset(text string, p protocol.Position) int {
	off := 0
	for l := uint32(0); l < p.Line; l++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	units := 0
	for i, r := range text[off:] {
		if r == '\n' || units >= int(p.Character) {
			return off + i
		}
		units += len(utf16.Encode([]rune{r}))
	}
	return len(text)
}

func raw(v any) jsonrpc2.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// call sends a request with raw JSON params and decodes the result.
func (c *testClient) call(method string, params any, result any) error {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var r json.RawMessage
	_, err := c.conn.Call(ctx, method, raw(params), &r)
	if err != nil {
		return err
	}
	if result != nil {
		return json.Unmarshal(r, result)
	}
	return nil
}

func (c *testClient) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, raw(params)); err != nil {
		c.t.Fatalf("notify %s: %v", method, err)
	}
}

// fullCaps is what a capable editor sends.
var fullCaps = map[string]any{
	"workspace": map[string]any{
		"applyEdit": true,
		"workspaceEdit": map[string]any{
			"documentChanges":         true,
			"changeAnnotationSupport": map[string]any{"groupsOnLabel": true},
		},
	},
	"window": map[string]any{"workDoneProgress": true},
	"textDocument": map[string]any{
		"codeAction": map[string]any{"codeActionLiteralSupport": map[string]any{
			"codeActionKind": map[string]any{"valueSet": []string{"", "quickfix", "refactor", "source"}},
		}},
	},
}

func (c *testClient) initialize(extra map[string]any) map[string]any {
	c.t.Helper()
	params := map[string]any{
		"processId":    nil,
		"rootUri":      string(pathToURI(c.root)),
		"capabilities": fullCaps,
	}
	for k, v := range extra {
		params[k] = v
	}
	var res map[string]any
	if err := c.call("initialize", params, &res); err != nil {
		c.t.Fatalf("initialize: %v", err)
	}
	c.notify("initialized", map[string]any{})
	return res
}

// open writes rel under the root and opens it (with different buffer text
// when text != disk).
func (c *testClient) open(rel, disk, text string) string {
	c.t.Helper()
	p := filepath.Join(c.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(disk), 0o644); err != nil {
		c.t.Fatal(err)
	}
	u := string(pathToURI(p))
	c.mu.Lock()
	c.docs[u] = &clientDoc{text: text, version: 1}
	c.mu.Unlock()
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": u, "languageId": "go", "version": 1, "text": text,
	}})
	return u
}

// change edits the client's copy and sends the incremental didChange.
func (c *testClient) change(u string, rng protocol.Range, text string) {
	c.t.Helper()
	c.mu.Lock()
	d := c.docs[u]
	s, e := utf16Offset(d.text, rng.Start), utf16Offset(d.text, rng.End)
	d.text = d.text[:s] + text + d.text[e:]
	d.version++
	v := d.version
	c.mu.Unlock()
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": v},
		"contentChanges": []any{map[string]any{"range": rng, "text": text}},
	})
}

func (c *testClient) clientText(u string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.docs[u].text
}

// barrier returns after the server handled every message sent before it (a
// request is a barrier: the read loop handles messages in order).
func (c *testClient) barrier() {
	_ = c.call("textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": "file:///barrier"}}, nil)
}

// serverText returns the server's copy of an open document after all
// notifications sent so far were handled (a request is a barrier: the read
// loop handles messages in order).
func (c *testClient) serverText(u string) (string, int32) {
	c.t.Helper()
	_ = c.call("textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": u}}, nil)
	sn, err := c.srv.snapshotOf(protocolURI(u))
	if err != nil {
		c.t.Fatal(err)
	}
	return string(sn.text), sn.version
}

// waitNote waits for a notification matching method (and pred).
func (c *testClient) waitNote(method string, pred func(json.RawMessage) bool) json.RawMessage {
	c.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		for _, n := range c.notes {
			if n.method == method && (pred == nil || pred(n.params)) {
				c.mu.Unlock()
				return n.params
			}
		}
		c.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	c.t.Fatalf("no %s notification", method)
	return nil
}

func (c *testClient) notesOf(method string) []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []json.RawMessage
	for _, n := range c.notes {
		if n.method == method {
			out = append(out, n.params)
		}
	}
	return out
}

// rpcError asserts err is a JSON-RPC error with code and returns it.
func rpcError(t *testing.T, err error, code jsonrpc2.Code) *jsonrpc2.Error {
	t.Helper()
	var e *jsonrpc2.Error
	if !errors.As(err, &e) {
		t.Fatalf("want a JSON-RPC error %d, got %v", code, err)
	}
	if e.Code != code {
		t.Fatalf("want code %d, got %d (%s)", code, e.Code, e.Message)
	}
	return e
}

func errorKind(t *testing.T, e *jsonrpc2.Error) string {
	t.Helper()
	var d struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(e.Data, &d); err != nil {
		t.Fatalf("error data %s: %v", e.Data, err)
	}
	return d.Kind
}

func lspRange(sl, sc, el, ec uint32) protocol.Range {
	return protocol.Range{Start: protocol.Position{Line: sl, Character: sc}, End: protocol.Position{Line: el, Character: ec}}
}

var _ = fmt.Sprintf
