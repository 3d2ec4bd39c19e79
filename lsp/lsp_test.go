package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hashls/hashls/agent"
	"github.com/hashls/hashls/workspace"
)

// fakeTool is a tool registered only in tests.
type fakeTool struct {
	name string
	run  func(ctx context.Context, env *agent.Env, args json.RawMessage) (*agent.Result, error)
}

func (f fakeTool) Name() string        { return f.name }
func (f fakeTool) Description() string { return "test tool " + f.name }
func (f fakeTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"find":{"type":"string"},"replace":{"type":"string"},"n":{"type":"integer"}}}`)
}
func (f fakeTool) Run(ctx context.Context, env *agent.Env, args json.RawMessage) (*agent.Result, error) {
	return f.run(ctx, env, args)
}

type fakeArgs struct {
	Path    string `json:"path"`
	Find    string `json:"find"`
	Replace string `json:"replace"`
	N       int    `json:"n"`
}

// fakeTools: "t_replace" rewrites a file through WorkspaceWriteFile (the
// path every mutating tool takes), "t_slow" reports progress, "t_block"
// waits for cancellation, "t_fail" fails with a kind.
var fakeTools = []agent.Tool{
	fakeTool{"t_replace", func(ctx context.Context, env *agent.Env, raw json.RawMessage) (*agent.Result, error) {
		var a fakeArgs
		_ = json.Unmarshal(raw, &a)
		p, err := env.WS.Resolve(a.Path)
		if err != nil {
			return nil, err
		}
		f, err := env.WS.ReadFile(p)
		if err != nil {
			return nil, err
		}
		next := strings.Replace(string(f.Bytes), a.Find, a.Replace, 1)
		if _, err := env.WS.Commit(ctx, "t_replace", []workspace.Change{{Path: p, Base: workspace.BaseOf(f.Bytes), New: []byte(next), NewTag: "TEST"}}, workspace.CommitOptions{Label: "t_replace"}); err != nil {
			return nil, err
		}
		return &agent.Result{Text: "replaced", Changes: []agent.Change{{Path: p.Rel, Op: "update", Diff: "-" + a.Find + "\n+" + a.Replace, AuditID: 7}},
			Warnings: []string{"just a test warning"}}, nil
	}},
	fakeTool{"t_slow", func(ctx context.Context, env *agent.Env, raw json.RawMessage) (*agent.Result, error) {
		var a fakeArgs
		_ = json.Unmarshal(raw, &a)
		for i := 0; i <= a.N; i++ {
			env.Progress(fmt.Sprintf("step %d", i), i, a.N)
			time.Sleep(60 * time.Millisecond)
		}
		return &agent.Result{Text: "done"}, nil
	}},
	fakeTool{"t_block", func(ctx context.Context, env *agent.Env, raw json.RawMessage) (*agent.Result, error) {
		<-ctx.Done()
		return nil, &agent.Error{Kind: agent.KindIO, Message: "cancelled", Err: ctx.Err()}
	}},
	fakeTool{"t_fail", func(ctx context.Context, env *agent.Env, raw json.RawMessage) (*agent.Result, error) {
		return nil, &agent.Error{Kind: agent.KindStale, Message: "it moved; read it again"}
	}},
}

func testOptions() Options {
	return Options{
		tools: func() []agent.Tool { return append(agent.New(agent.Deps{}).Tools(), fakeTools...) },
		runTool: func(ctx context.Context, env *agent.Env, name string, args []byte) (*agent.Result, error) {
			for _, t := range fakeTools {
				if t.Name() == name {
					return t.Run(ctx, env, args)
				}
			}
			return agent.New(agent.Deps{WS: env.WS, Resolver: env.Resolver, Edit: env.Edit}).Run(ctx, name, args, agent.Call{Progress: env.Progress, Transport: env.Transport, ID: env.CallID, Who: env.Who, Offered: env.Offered})
		},
	}
}

func TestInitializeCapabilities(t *testing.T) {
	c := newTestClient(t, testOptions())
	res := c.initialize(nil)
	b, _ := json.Marshal(res)
	got := string(b)
	for _, want := range []string{
		`"positionEncoding":"utf-16"`, `"change":2`, `"openClose":true`,
		`"documentSymbolProvider":true`, `"foldingRangeProvider":true`, `"selectionRangeProvider":true`,
		`"hashls.read"`, `"hashls.selectBlock"`, `"hashls.copyBlockAnchor"`, `"hashls.outline"`, `"hashls.toolSchemas"`, `"hashls.t_replace"`,
		`"refactor.hashls.deleteBlock"`, `"name":"hashls"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("initialize result lacks %s:\n%s", want, got)
		}
	}
	// Every registered tool is a command.
	for _, tool := range agent.New(agent.Deps{}).Tools() {
		if !strings.Contains(got, `"hashls.`+tool.Name()+`"`) {
			t.Errorf("tool %s is not exposed as a command", tool.Name())
		}
	}
}

func TestLifecycle(t *testing.T) {
	c := newTestClient(t, testOptions())
	// Requests before initialize fail; notifications are dropped.
	err := c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": "file:///x.go"}}, nil)
	rpcError(t, err, jsonrpc2.ServerNotInitialized)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "file:///x.go", "languageId": "go", "version": 1, "text": "x"}})
	c.initialize(nil)
	if err := c.call("initialize", map[string]any{"capabilities": map[string]any{}}, nil); err == nil {
		t.Fatal("second initialize accepted")
	}
	if _, err := c.srv.snapshotOf(protocolURI("file:///x.go")); err == nil {
		t.Fatal("didOpen before initialize was applied")
	}
	if err := c.call("shutdown", nil, nil); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	err = c.call("textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": "file:///x.go"}}, nil)
	rpcError(t, err, jsonrpc2.InvalidRequest)
	c.notify("exit", nil)
	select {
	case err := <-c.served:
		if err != nil {
			t.Fatalf("Serve after shutdown+exit: %v", err)
		}
		c.served <- nil
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after exit")
	}
}

func TestExitWithoutShutdown(t *testing.T) {
	c := newTestClient(t, testOptions())
	c.initialize(nil)
	c.notify("exit", nil)
	select {
	case err := <-c.served:
		if !errors.Is(err, ErrExitWithoutShutdown) {
			t.Fatalf("Serve = %v, want ErrExitWithoutShutdown", err)
		}
		c.served <- nil
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after exit")
	}
}

func TestUnknownMethods(t *testing.T) {
	c := newTestClient(t, testOptions())
	c.initialize(nil)
	rpcError(t, c.call("hashls/nope", map[string]any{}, nil), jsonrpc2.MethodNotFound)
	rpcError(t, c.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": "file:///a"}, "position": map[string]any{"line": 0, "character": 0}}, nil), jsonrpc2.MethodNotFound)
	c.notify("$/unknownNotification", map[string]any{"x": 1})
	c.notify("textDocument/didChange", map[string]any{"bogus": true}) // bad params: logged, not fatal
	c.notify("textDocument/didOpen", "not an object")
	// Still alive.
	if err := c.call("shutdown", nil, nil); err != nil {
		t.Fatalf("connection died: %v", err)
	}
}

func TestIncrementalSync(t *testing.T) {
	c := newTestClient(t, testOptions())
	c.initialize(nil)
	u := c.open("a.go", "disk\n", "package a\n\n// 😀 é\r\nfunc A() {}\n")
	c.change(u, lspRange(2, 3, 2, 5), "X")     // replace the emoji (2 UTF-16 units)
	c.change(u, lspRange(2, 5, 2, 6), "e")     // é -> e
	c.change(u, lspRange(3, 99, 3, 99), " //") // column past the end clamps
	c.change(u, lspRange(0, 0, 0, 0), "// top\n")
	got, ver := c.serverText(u)
	if want := c.clientText(u); got != want {
		t.Fatalf("server text %q, client text %q", got, want)
	}
	if ver != 5 {
		t.Fatalf("version %d, want 5", ver)
	}
	// The overlay is what tools read.
	ws := c.srv.workspace()
	p, _ := ws.Resolve("a.go")
	f, err := ws.ReadFile(p)
	if err != nil || string(f.Bytes) != got || !f.Overlay || f.Version != 5 {
		t.Fatalf("overlay = %q overlay=%v version=%d err=%v", f.Bytes, f.Overlay, f.Version, err)
	}
	// Whole-document change.
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 6}, "contentChanges": []any{map[string]any{"text": "whole\n"}}})
	if got, _ := c.serverText(u); got != "whole\n" {
		t.Fatalf("after full change: %q", got)
	}
	// didClose drops the overlay.
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
	c.barrier()
	if f, err := ws.ReadFile(p); err != nil || f.Overlay || string(f.Bytes) != "disk\n" {
		t.Fatalf("after close: %q overlay=%v err=%v", f.Bytes, f.Overlay, err)
	}
}

// TestNotificationOrder sends 2,000 didChange notifications back to back:
// they must be applied in order (protocol.Handlers would reorder some).
func TestNotificationOrder(t *testing.T) {
	c := newTestClient(t, testOptions())
	c.initialize(nil)
	u := c.open("o.txt", "", "")
	for i := 0; i < 2000; i++ {
		c.mu.Lock()
		n := uint32(len(c.docs[u].text))
		c.mu.Unlock()
		c.change(u, lspRange(0, n, 0, n), string(rune('a'+i%26)))
	}
	got, ver := c.serverText(u)
	if want := c.clientText(u); got != want || ver != 2001 {
		t.Fatalf("after 2000 changes: version %d, text equal %v", ver, got == want)
	}
}

func TestExecuteCommandRead(t *testing.T) {
	c := newTestClient(t, testOptions())
	c.initialize(nil)
	c.open("r.go", "package disk\n", "package buffer\n\nfunc F() {}\n")
	var res struct {
		Text    string         `json:"text"`
		Details map[string]any `json:"details"`
	}
	err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.read", "arguments": []any{map[string]any{"path": "r.go"}}}, &res)
	if err != nil {
		t.Fatalf("hashls.read: %v", err)
	}
	if !strings.Contains(res.Text, "¶r.go#") || !strings.Contains(res.Text, "package buffer") {
		t.Fatalf("read did not show the buffer: %q", res.Text)
	}
	if res.Details["overlay"] != true {
		t.Errorf("details.overlay = %v", res.Details["overlay"])
	}
	act := c.waitNote(MethodActivity, nil)
	var a Activity
	_ = json.Unmarshal(act, &a)
	if a.Tool != "read" || a.Outcome != "ok" || len(a.Paths) == 0 || a.Paths[0] != "r.go" {
		t.Fatalf("activity = %+v", a)
	}
}

func TestExecuteCommandErrors(t *testing.T) {
	c := newTestClient(t, testOptions())
	c.initialize(nil)
	cases := []struct {
		name    string
		command string
		args    []any
		code    jsonrpc2.Code
		kind    string
	}{
		{"unknown command", "hashls.nope", nil, jsonrpc2.InvalidParams, ""},
		{"two arguments", "hashls.read", []any{map[string]any{}, map[string]any{}}, jsonrpc2.InvalidParams, ""},
		{"unknown field", "hashls.read", []any{map[string]any{"path": "x", "bogus": 1}}, jsonrpc2.InvalidParams, agent.KindUsage},
		{"not an object", "hashls.read", []any{"r.go"}, jsonrpc2.InvalidParams, agent.KindUsage},
		{"missing file", "hashls.read", []any{map[string]any{"path": "missing.go"}}, jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed), agent.KindNotFound},
		{"outside root", "hashls.read", []any{map[string]any{"path": "../../etc/passwd"}}, jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed), agent.KindOutside},
		{"tool error kind", "hashls.t_fail", []any{map[string]any{}}, jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed), agent.KindStale},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := c.call("workspace/executeCommand", map[string]any{"command": tc.command, "arguments": tc.args}, nil)
			e := rpcError(t, err, tc.code)
			if tc.kind != "" {
				if k := errorKind(t, e); k != tc.kind {
					t.Fatalf("kind %q, want %q (%s)", k, tc.kind, e.Message)
				}
			}
		})
	}
	// An error outcome is reported as activity too.
	c.waitNote(MethodActivity, func(p json.RawMessage) bool {
		var a Activity
		_ = json.Unmarshal(p, &a)
		return a.Tool == "t_fail" && a.Outcome == "error" && a.ErrorKind == agent.KindStale
	})
}

func TestBufferEditGoesToEditor(t *testing.T) {
	c := newTestClient(t, testOptions())
	c.initialize(nil)
	disk := "package a\n\nvar x = 1\n"
	u := c.open("e.go", disk, "package a\n\n// unsaved 😀\nvar x = 1\n")
	var res map[string]any
	err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.t_replace", "arguments": []any{map[string]any{"path": "e.go", "find": "x = 1", "replace": "x = 2"}}}, &res)
	if err != nil {
		t.Fatalf("t_replace: %v", err)
	}
	want := "package a\n\n// unsaved 😀\nvar x = 2\n"
	if got := c.clientText(u); got != want {
		t.Fatalf("client buffer %q, want %q", got, want)
	}
	if got, _ := c.serverText(u); got != want {
		t.Fatalf("server buffer %q, want %q", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(c.root, "e.go")); string(b) != disk {
		t.Fatalf("disk was written: %q", b)
	}
	// The edit was minimal, versioned and annotated.
	c.mu.Lock()
	last := string(c.applyEdits[len(c.applyEdits)-1])
	c.mu.Unlock()
	for _, w := range []string{`"version":1`, `"annotationId":"hashls"`, `"newText":"2"`, `"label":"t_replace"`, `"line":3,"character":8`} {
		if !strings.Contains(last, w) {
			t.Errorf("applyEdit lacks %s: %s", w, last)
		}
	}
	// Warnings become window/logMessage; activity carries path, diff, audit id.
	c.waitNote("window/logMessage", func(p json.RawMessage) bool { return strings.Contains(string(p), "just a test warning") })
	c.waitNote(MethodActivity, func(p json.RawMessage) bool {
		var a Activity
		_ = json.Unmarshal(p, &a)
		return a.Tool == "t_replace" && len(a.AuditIDs) == 1 && a.AuditIDs[0] == 7 && strings.Contains(a.Diff, "+x = 2")
	})

	// The client refuses: stale, nothing written anywhere.
	c.mu.Lock()
	c.refuseEdits = true
	c.mu.Unlock()
	err = c.call("workspace/executeCommand", map[string]any{"command": "hashls.t_replace", "arguments": []any{map[string]any{"path": "e.go", "find": "x = 2", "replace": "x = 3"}}}, nil)
	if k := errorKind(t, rpcError(t, err, jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed))); k != agent.KindStale {
		t.Fatalf("refused edit: kind %q", k)
	}
	if got := c.clientText(u); got != want {
		t.Fatalf("client buffer changed after refusal: %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(c.root, "e.go")); string(b) != disk {
		t.Fatalf("disk was written after refusal: %q", b)
	}

	// A closed file is written on disk.
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
	err = c.call("workspace/executeCommand", map[string]any{"command": "hashls.t_replace", "arguments": []any{map[string]any{"path": "e.go", "find": "x = 1", "replace": "x = 4"}}}, nil)
	if err != nil {
		t.Fatalf("closed-file edit: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(c.root, "e.go")); string(b) != "package a\n\nvar x = 4\n" {
		t.Fatalf("disk after closed-file edit: %q", b)
	}
}

// TestBufferEditorStale checks the version guard directly.
func TestBufferEditorStale(t *testing.T) {
	c := newTestClient(t, testOptions())
	c.initialize(nil)
	u := c.open("s.go", "", "a\n")
	c.barrier()
	ws := c.srv.workspace()
	p, _ := ws.Resolve("s.go")
	be := &bufferEditor{s: c.srv}
	err := be.ApplyEdit(context.Background(), p, 0, []byte("a\n"), []byte("b\n"), "x")
	var we *workspace.Error
	if !errors.As(err, &we) || we.Kind != workspace.KindStale {
		t.Fatalf("old version: %v", err)
	}
	err = be.ApplyEdit(context.Background(), p, 1, []byte("zzz"), []byte("b\n"), "x")
	if !errors.As(err, &we) || we.Kind != workspace.KindStale {
		t.Fatalf("old text: %v", err)
	}
	if err := be.ApplyEdit(context.Background(), p, 1, []byte("a\n"), []byte("b\n"), "x"); err != nil {
		t.Fatalf("current version: %v", err)
	}
	if got := c.clientText(u); got != "b\n" {
		t.Fatalf("client text %q", got)
	}
}

func TestProgress(t *testing.T) {
	c := newTestClient(t, testOptions())
	c.initialize(nil)
	err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.t_slow", "arguments": []any{map[string]any{"n": 3}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.waitNote("$/progress", func(p json.RawMessage) bool { return strings.Contains(string(p), `"kind":"end"`) })
	all := c.notesOf("$/progress")
	if len(all) < 3 || !strings.Contains(string(all[0]), `"kind":"begin"`) || !strings.Contains(string(all[0]), `"title":"hashls t_slow"`) {
		t.Fatalf("progress notifications: %s", all)
	}
	c.mu.Lock()
	creates := c.creates
	c.mu.Unlock()
	if creates != 1 {
		t.Fatalf("workDoneProgress/create sent %d times", creates)
	}
	// With the client's own token, no create.
	err = c.call("workspace/executeCommand", map[string]any{"command": "hashls.t_slow", "workDoneToken": "client-tok", "arguments": []any{map[string]any{"n": 1}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.waitNote("$/progress", func(p json.RawMessage) bool {
		return strings.Contains(string(p), `"client-tok"`) && strings.Contains(string(p), `"kind":"end"`)
	})
	c.mu.Lock()
	creates = c.creates
	c.mu.Unlock()
	if creates != 1 {
		t.Fatalf("create sent despite a client token")
	}
}

func TestCancelRequest(t *testing.T) {
	c := newTestClient(t, testOptions())
	c.initialize(nil)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	// protocol.Call sends $/cancelRequest when ctx ends.
	err := protocol.Call(ctx, c.conn, "workspace/executeCommand", raw(map[string]any{"command": "hashls.t_block", "arguments": []any{map[string]any{}}}), nil)
	if err == nil {
		t.Fatal("blocked command returned")
	}
	// The tool saw the cancellation and finished.
	c.waitNote(MethodActivity, func(p json.RawMessage) bool {
		var a Activity
		_ = json.Unmarshal(p, &a)
		return a.Tool == "t_block" && a.Outcome == "error"
	})
	if err := c.call("shutdown", nil, nil); err != nil {
		t.Fatalf("after cancel: %v", err)
	}
}

func TestSettings(t *testing.T) {
	c := newTestClient(t, testOptions())
	c.initialize(map[string]any{"initializationOptions": map[string]any{"hashls": map[string]any{"activity": false, "logLevel": "error"}}})
	if s := c.srv.currentSettings(); s.Activity || s.LogLevel != "error" || !s.Progress {
		t.Fatalf("settings from initializationOptions: %+v", s)
	}
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"hashls": map[string]any{"activity": true}}})
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"logLevel": "loud"}}) // rejected
	c.barrier()
	if s := c.srv.currentSettings(); !s.Activity || s.LogLevel != "error" {
		t.Fatalf("settings after didChangeConfiguration: %+v", s)
	}
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": string(pathToURI(filepath.Join(c.root, "x.go"))), "type": 2}}})
	if err := c.call("shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
}

func TestNoWorkspace(t *testing.T) {
	c := newTestClient(t, testOptions())
	var res map[string]any
	if err := c.call("initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}, &res); err != nil {
		t.Fatal(err)
	}
	err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.read", "arguments": []any{map[string]any{"path": "x"}}}, nil)
	e := rpcError(t, err, jsonrpc2.InvalidParams)
	if !strings.Contains(e.Message, "no workspace folder") {
		t.Fatalf("message %q", e.Message)
	}
	// Untitled documents still get symbols.
	u := "untitled:Untitled-1"
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "go", "version": 1, "text": "package p\n\nfunc F() {}\n"}})
	var syms []map[string]any
	if err := c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": u}}, &syms); err != nil {
		t.Fatal(err)
	}
	if len(syms) == 0 {
		t.Fatal("no symbols for an untitled Go document")
	}
}

// TestRealEditTool: hashls.read mints a tag over the buffer, hashls.edit
// with that tag goes back to the editor as workspace/applyEdit, and a second
// edit with the new tag works on the updated buffer.
func TestRealEditTool(t *testing.T) {
	if _, ok := agent.New(agent.Deps{}).Lookup("edit"); !ok {
		t.Skip("no edit tool registered")
	}
	c := newTestClient(t, testOptions())
	c.initialize(nil)
	disk := "package a\n\nfunc A() int {\n\treturn 1\n}\n"
	u := c.open("a.go", disk, strings.Replace(disk, "return 1", "return 10 // 😀", 1))
	var read struct {
		Text    string         `json:"text"`
		Details map[string]any `json:"details"`
	}
	if err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.read", "arguments": []any{map[string]any{"path": "a.go"}}}, &read); err != nil {
		t.Fatal(err)
	}
	tag, _ := read.Details["tag"].(string)
	if len(tag) != 4 {
		t.Fatalf("no tag in %v", read.Details)
	}
	var res struct {
		Text    string         `json:"text"`
		Details map[string]any `json:"details"`
	}
	input := "¶a.go#" + tag + "\nreplace block 3:\n+func A() int {\n+\treturn 2 // 😀\n+}\n"
	if err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.edit", "arguments": []any{map[string]any{"input": input}}}, &res); err != nil {
		t.Fatalf("hashls.edit: %v", err)
	}
	want := "package a\n\nfunc A() int {\n\treturn 2 // 😀\n}\n"
	if got := c.clientText(u); got != want {
		t.Fatalf("buffer %q, want %q", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(c.root, "a.go")); string(b) != disk {
		t.Fatalf("disk written: %q", b)
	}
	// The minimal edit touched only the changed characters.
	c.mu.Lock()
	last := string(c.applyEdits[len(c.applyEdits)-1])
	c.mu.Unlock()
	if !strings.Contains(last, `"newText":"2"`) {
		t.Errorf("edit not minimal: %s", last)
	}
	// The result's new tag proves the updated buffer.
	b, _ := json.Marshal(res.Details)
	var d struct {
		PerFileResults []struct {
			Tag string `json:"tag"`
		} `json:"perFileResults"`
	}
	_ = json.Unmarshal(b, &d)
	if len(d.PerFileResults) != 1 {
		t.Fatalf("details: %s", b)
	}
	input = "¶a.go#" + d.PerFileResults[0].Tag + "\ninsert tail:\n+// end\n"
	if err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.edit", "arguments": []any{map[string]any{"input": input}}}, nil); err != nil {
		t.Fatalf("second edit: %v", err)
	}
	if got, _ := c.serverText(u); got != want+"// end\n" {
		t.Fatalf("after the second edit: %q", got)
	}
	// Activity for the first edit: its path, one copy of its diff, its audit id.
	p := c.waitNote(MethodActivity, func(p json.RawMessage) bool { return strings.Contains(string(p), "return 2") })
	var a Activity
	_ = json.Unmarshal(p, &a)
	if a.Tool != "edit" || len(a.Paths) != 1 || a.Paths[0] != "a.go" || strings.Count(a.Diff, "+\treturn 2") != 1 || len(a.AuditIDs) != 1 {
		t.Fatalf("activity = %+v", a)
	}
	// A failed edit still names its file (from the input's header).
	_ = c.call("workspace/executeCommand", map[string]any{"command": "hashls.edit", "arguments": []any{map[string]any{"input": "¶a.go#0000\nreplace 99..99:\n+x\n"}}}, nil)
	c.waitNote(MethodActivity, func(p json.RawMessage) bool {
		var a Activity
		_ = json.Unmarshal(p, &a)
		return a.Outcome == "error" && len(a.Paths) == 1 && a.Paths[0] == "a.go"
	})
}

// TestParentExit: the server ends the session when the editor process named
// by processId is gone.
func TestParentExit(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no signal 0")
	}
	old := parentPollInterval
	parentPollInterval = 10 * time.Millisecond
	defer func() { parentPollInterval = old }()
	cmd := exec.Command("sleep", "0")
	if err := cmd.Run(); err != nil {
		t.Skip("no sleep command")
	}
	c := newTestClient(t, testOptions())
	c.initialize(map[string]any{"processId": cmd.Process.Pid}) // already reaped
	select {
	case err := <-c.served:
		if !errors.Is(err, ErrExitWithoutShutdown) {
			t.Fatalf("Serve = %v", err)
		}
		c.served <- nil
	case <-time.After(5 * time.Second):
		t.Fatal("the server outlived its parent")
	}
}

// TestOutsideRoot: a document outside the workspace root gets editor
// features but is no overlay; tools refuse its path.
func TestOutsideRoot(t *testing.T) {
	c := newTestClient(t, testOptions())
	c.initialize(nil)
	other := t.TempDir()
	u := string(pathToURI(filepath.Join(other, "x.go")))
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "go", "version": 1, "text": "package x\n\nfunc X() {}\n"}})
	var syms []map[string]any
	if err := c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": u}}, &syms); err != nil || len(syms) == 0 {
		t.Fatalf("symbols outside the root: %v %v", syms, err)
	}
	if ov := c.srv.workspace().Overlays(); len(ov) != 0 {
		t.Fatalf("overlays %v", ov)
	}
	err := c.call("workspace/executeCommand", map[string]any{"command": "hashls.read", "arguments": []any{map[string]any{"path": filepath.Join(other, "x.go")}}}, nil)
	if k := errorKind(t, rpcError(t, err, jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed))); k != agent.KindOutside {
		t.Fatalf("kind %q", k)
	}
}

// TestServeContextCancel: cancelling Serve's context ends the session.
func TestServeContextCancel(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	opts := testOptions()
	opts.StateDir = t.TempDir()
	go func() { done <- Serve(ctx, b, opts) }()
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Serve ignored the cancelled context")
	}
}
