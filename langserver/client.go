package langserver

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// client is one running server process for one root.
type client struct {
	srv  Server
	root string
	logf func(string, ...any)

	cmd  *exec.Cmd
	conn jsonrpc2.Conn
	caps json.RawMessage

	mu       sync.Mutex
	dead     bool
	deadWhy  string
	exited   chan struct{}
	lastUse  time.Time
	open     map[string]*openDoc // by URI
	diags    map[string]*published
	changed  chan struct{} // closed and replaced on every publish
	progress map[string]bool
	capture  *[]json.RawMessage // workspace/applyEdit requests while set
	started  time.Time
	// unversioned is set once the server published diagnostics without
	// naming the document version they are for (typescript-language-server).
	unversioned bool
}

type openDoc struct {
	version int
	sum     [32]byte
	text    []byte
	synced  time.Time // when this version was sent
}

// published is the last diagnostics a server published for one document.
type published struct {
	version int // the document version the server named; -1 when none
	at      time.Time
	diags   []wireDiagnostic
}

// unversionedQuiet is how long a server that names no document version in
// its diagnostics must publish nothing more for a document, after the
// document was sent and after its last publish, before that publish counts
// as the diagnostics of what was sent. Such a publish may be a late one for
// the text before, or one of several (typescript-language-server publishes
// its syntax, semantic and suggestion diagnostics one after the other, and
// publishes nothing when they did not change); it waits 300-800 ms after a
// change before it asks tsserver, so the quiet period must exceed that and
// the check itself. The protocol gives no other signal.
const unversionedQuiet = 1500 * time.Millisecond

// pipeRWC joins a process's stdout and stdin into one connection.
type pipeRWC struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipeRWC) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeRWC) Close() error {
	err := p.w.Close()
	if e := p.ReadCloser.Close(); err == nil {
		err = e
	}
	return err
}

// logWriter sends a server's stderr to the log line by line.
func logWriter(name string, logf func(string, ...any)) io.WriteCloser {
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			logf("%s: %s", name, sc.Text())
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	return pw
}

// start launches srv for root and completes the initialize handshake
// within timeout.
func start(ctx context.Context, srv Server, root string, logf func(string, ...any), timeout time.Duration) (*client, error) {
	bin, ok := srv.Available()
	if !ok {
		return nil, missingErr(srv)
	}
	cmd := exec.Command(bin, srv.Command[1:]...)
	cmd.Dir = root
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", srv.Name, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", srv.Name, err)
	}
	stderr := logWriter(srv.Name, logf)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		stderr.Close()
		return nil, fmt.Errorf("starting %s (%s): %w; check %s languageServers.%s.command", srv.Name, bin, err, ConfigFile, srv.Name)
	}
	c := &client{srv: srv, root: root, logf: logf, cmd: cmd, exited: make(chan struct{}),
		open: map[string]*openDoc{}, diags: map[string]*published{}, changed: make(chan struct{}),
		progress: map[string]bool{}, lastUse: time.Now(), started: time.Now()}
	go func() {
		err := cmd.Wait()
		stderr.Close()
		c.markDead(fmt.Sprintf("exited (%v)", err))
		close(c.exited)
	}()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(pipeRWC{stdout, stdin}))
	c.conn.Go(context.Background(), c.handle)

	ictx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	params := map[string]any{
		"processId":             nil,
		"clientInfo":            map[string]any{"name": "hashls"},
		"rootUri":               URI(root),
		"workspaceFolders":      []any{map[string]any{"uri": URI(root), "name": "root"}},
		"capabilities":          clientCapabilities,
		"initializationOptions": srv.InitOptions,
	}
	var res struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	if err := c.call(ictx, "initialize", params, &res); err != nil {
		c.stop()
		return nil, fmt.Errorf("%s did not initialize: %w", srv.Name, err)
	}
	c.caps = res.Capabilities
	if err := c.conn.Notify(ctx, "initialized", struct{}{}); err != nil {
		c.stop()
		return nil, fmt.Errorf("%s: initialized: %w", srv.Name, err)
	}
	if srv.Settings != nil {
		_ = c.conn.Notify(ctx, "workspace/didChangeConfiguration", map[string]any{"settings": srv.Settings})
	}
	return c, nil
}

var clientCapabilities = json.RawMessage(`{
 "workspace": {"applyEdit": true, "workspaceEdit": {"documentChanges": true, "resourceOperations": ["create","rename","delete"]},
  "configuration": true, "workspaceFolders": true, "symbol": {}, "executeCommand": {},
  "didChangeWatchedFiles": {"dynamicRegistration": true},
  "fileOperations": {"willRename": true, "didRename": true}},
 "textDocument": {
  "synchronization": {"didSave": true},
  "publishDiagnostics": {"versionSupport": true, "relatedInformation": false},
  "hover": {"contentFormat": ["plaintext", "markdown"]},
  "definition": {"linkSupport": true}, "typeDefinition": {"linkSupport": true}, "implementation": {"linkSupport": true},
  "references": {}, "documentSymbol": {"hierarchicalDocumentSymbolSupport": true},
  "rename": {"prepareSupport": false}, "formatting": {},
  "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source", "source.organizeImports", "source.fixAll"]}},
   "resolveSupport": {"properties": ["edit"]}, "dataSupport": true}},
 "window": {"workDoneProgress": true}
}`)

// handle answers what the server asks of us.
func (c *client) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method() {
	case "textDocument/publishDiagnostics":
		var p struct {
			URI         string           `json:"uri"`
			Version     *int             `json:"version"`
			Diagnostics []wireDiagnostic `json:"diagnostics"`
		}
		if json.Unmarshal(req.Params(), &p) == nil {
			v := -1
			if p.Version != nil {
				v = *p.Version
			}
			c.mu.Lock()
			c.diags[p.URI] = &published{version: v, at: time.Now(), diags: p.Diagnostics}
			if v < 0 {
				c.unversioned = true
			}
			close(c.changed)
			c.changed = make(chan struct{})
			c.mu.Unlock()
		}
		return nil, nil
	case "$/progress":
		var p struct {
			Token json.RawMessage `json:"token"`
			Value struct {
				Kind string `json:"kind"`
			} `json:"value"`
		}
		if json.Unmarshal(req.Params(), &p) == nil {
			c.mu.Lock()
			switch p.Value.Kind {
			case "begin":
				c.progress[string(p.Token)] = true
			case "end":
				delete(c.progress, string(p.Token))
			}
			close(c.changed)
			c.changed = make(chan struct{})
			c.mu.Unlock()
		}
		return nil, nil
	case "window/logMessage", "window/showMessage":
		var p struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		c.logf("%s: %s", c.srv.Name, firstLine(p.Message))
		return nil, nil
	case "workspace/configuration":
		var p struct {
			Items []struct {
				Section string `json:"section"`
			} `json:"items"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		out := make([]json.RawMessage, len(p.Items))
		for i, it := range p.Items {
			out[i] = c.section(it.Section)
		}
		return out, nil
	case "workspace/workspaceFolders":
		return []any{map[string]any{"uri": URI(c.root), "name": "root"}}, nil
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability", "window/showMessageRequest":
		return nil, nil
	case "workspace/applyEdit":
		var p struct {
			Edit json.RawMessage `json:"edit"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.capture != nil {
			*c.capture = append(*c.capture, append(json.RawMessage(nil), p.Edit...))
			return map[string]any{"applied": true}, nil
		}
		return map[string]any{"applied": false, "failureReason": "hashls applies server edits only while it runs a code action's command"}, nil
	}
	if !req.IsCall() {
		return nil, nil
	}
	return nil, jsonrpc2.ErrMethodNotFound
}

func (c *client) section(name string) json.RawMessage {
	if c.srv.Settings == nil {
		return json.RawMessage("null")
	}
	if name == "" {
		return c.srv.Settings
	}
	cur := c.srv.Settings
	for i, part := range strings.Split(name, ".") {
		var m map[string]json.RawMessage
		if json.Unmarshal(cur, &m) != nil {
			return json.RawMessage("null")
		}
		v, ok := m[part]
		if !ok {
			// Settings given flat (not under the section) answer it whole.
			if i == 0 {
				return c.srv.Settings
			}
			return json.RawMessage("null")
		}
		cur = v
	}
	return cur
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// ErrTimeout is wrapped by the error of a request the server did not
// answer in time (the server is then stopped and restarted on next use).
var ErrTimeout = errors.New("language server timed out")

// call sends one request. A request that runs out of time stops the
// server: a server that does not answer is assumed hung.
func (c *client) call(ctx context.Context, method string, params, result any) error {
	c.touch()
	if c.isDead() {
		return fmt.Errorf("%s stopped: %s; try again (it is restarted on the next request)", c.srv.Name, c.deadReason())
	}
	id, err := c.conn.Call(ctx, method, params, result)
	if err == nil {
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) {
		c.markDead("did not answer " + method + " in time")
		c.stop()
		return fmt.Errorf("%w: %s did not answer %s in time; it was stopped and is restarted on the next request (raise timeout for a slow first load)", ErrTimeout, c.srv.Name, method)
	}
	if errors.Is(err, context.Canceled) {
		_ = c.conn.Notify(context.Background(), "$/cancelRequest", map[string]any{"id": id})
		return err
	}
	if c.isDead() {
		return fmt.Errorf("%s stopped while answering %s: %s; try again (it is restarted on the next request)", c.srv.Name, method, c.deadReason())
	}
	return err
}

func (c *client) notify(ctx context.Context, method string, params any) error {
	c.touch()
	return c.conn.Notify(ctx, method, params)
}

func (c *client) touch() {
	c.mu.Lock()
	c.lastUse = time.Now()
	c.mu.Unlock()
}

func (c *client) isDead() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead
}

func (c *client) deadReason() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deadWhy
}

func (c *client) markDead(why string) {
	c.mu.Lock()
	if !c.dead {
		c.dead, c.deadWhy = true, why
		close(c.changed)
		c.changed = make(chan struct{})
	}
	c.mu.Unlock()
}

// stop ends the process: a polite shutdown when it is alive and answers
// quickly, then a kill.
func (c *client) stop() {
	if !c.isDead() {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		if _, err := c.conn.Call(ctx, "shutdown", nil, nil); err == nil {
			_ = c.conn.Notify(ctx, "exit", nil)
		}
		cancel()
		c.markDead("stopped")
		select {
		case <-c.exited:
		case <-time.After(500 * time.Millisecond):
		}
	}
	if c.cmd.Process != nil {
		_ = c.cmd.Process.Kill()
	}
	go func() { _ = c.conn.Close() }()
}

// sync makes the server see text as path's content; it returns the
// document version the server now has.
func (c *client) sync(ctx context.Context, path string, text []byte) (int, error) {
	uri := URI(path)
	sum := sha256.Sum256(text)
	c.mu.Lock()
	d := c.open[uri]
	if d != nil && d.sum == sum {
		v := d.version
		c.mu.Unlock()
		return v, nil
	}
	if d == nil {
		d = &openDoc{version: 1, sum: sum, text: text, synced: time.Now()}
		c.open[uri] = d
		c.mu.Unlock()
		return 1, c.notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": c.srv.languageID(path), "version": 1, "text": string(text)}})
	}
	d.version++
	d.sum, d.text, d.synced = sum, text, time.Now()
	v := d.version
	c.mu.Unlock()
	return v, c.notify(ctx, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": v},
		"contentChanges": []any{map[string]any{"text": string(text)}}})
}

// close forgets an open document (after it was moved or deleted).
func (c *client) closeDoc(ctx context.Context, path string) {
	uri := URI(path)
	c.mu.Lock()
	_, ok := c.open[uri]
	delete(c.open, uri)
	c.mu.Unlock()
	if ok {
		_ = c.notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	}
}

func (c *client) isOpen(path string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open[URI(path)] != nil
}

// waitDiagnostics waits until the server published diagnostics for path
// at version, the server stopped, or ctx ends. It returns what was
// published last and whether it is fresh. A server that names no version
// (see unversionedQuiet) is taken at its word once it has published nothing
// for the document for unversionedQuiet since the document was sent and
// since its last publish.
func (c *client) waitDiagnostics(ctx context.Context, path string, version int) ([]wireDiagnostic, bool) {
	uri := URI(path)
	for {
		c.mu.Lock()
		p := c.diags[uri]
		ch := c.changed
		dead := c.dead
		unversioned := c.unversioned
		var last time.Time
		if d := c.open[uri]; d != nil {
			last = d.synced
		}
		c.mu.Unlock()
		if p != nil && p.version >= version {
			return p.diags, true
		}
		if dead {
			return nilOr(p), false
		}
		var quiet <-chan time.Time
		var timer *time.Timer
		if unversioned {
			if p != nil && p.at.After(last) {
				last = p.at
			}
			left := time.Until(last.Add(unversionedQuiet))
			if left <= 0 {
				return nilOr(p), true
			}
			timer = time.NewTimer(left)
			quiet = timer.C
		}
		select {
		case <-ch:
		case <-quiet:
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return nilOr(p), false
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

func nilOr(p *published) []wireDiagnostic {
	if p == nil {
		return nil
	}
	return p.diags
}

// snapshot returns the diagnostics cached now for every document.
func (c *client) snapshot() map[string][]wireDiagnostic {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string][]wireDiagnostic, len(c.diags))
	for u, p := range c.diags {
		out[u] = p.diags
	}
	return out
}

// waitIdle waits until no work-done progress is running (the server has
// loaded the project), at most until ctx ends.
func (c *client) waitIdle(ctx context.Context) {
	for {
		c.mu.Lock()
		busy := len(c.progress) > 0 && !c.dead
		ch := c.changed
		c.mu.Unlock()
		if !busy {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}
