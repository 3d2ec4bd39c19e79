package langserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashls/hashls/internal/kinded"
	"github.com/hashls/hashls/workspace"
	"go.lsp.dev/jsonrpc2"
)

// Options configure a Pool.
type Options struct {
	// Logf receives server stderr and log messages (nil: dropped).
	Logf func(format string, args ...any)
	// Notify, when set, receives the events a user of the tools wants to
	// hear of, one line each, with an MCP logging level: a server started
	// ("info"), restarted after it died ("warning"), failed to start
	// ("error"), stopped when idle ("info"). (An MCP server sends them to
	// its clients.)
	Notify func(level, message string)
	// IdleTimeout stops a server unused this long (0: 10 minutes;
	// negative: never).
	IdleTimeout time.Duration
	// StartTimeout bounds the initialize handshake (0: 30s).
	StartTimeout time.Duration
	// Servers are applied over the defaults and .hashls.json (tests,
	// embedders).
	Servers map[string]Server
}

// Pool owns the language servers of one hashls process: one Manager per
// workspace root.
type Pool struct {
	opts     Options
	mu       sync.Mutex
	managers map[string]*Manager
	done     chan struct{}
	once     sync.Once
}

// NewPool makes a pool; Close stops every server it started.
func NewPool(opts Options) *Pool {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Notify == nil {
		opts.Notify = func(string, string) {}
	}
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = 10 * time.Minute
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 30 * time.Second
	}
	p := &Pool{opts: opts, managers: map[string]*Manager{}, done: make(chan struct{})}
	if opts.IdleTimeout > 0 {
		go p.reap()
	}
	return p
}

// For returns the Manager of ws's root (nil when p is nil).
func (p *Pool) For(ws *workspace.Workspace) *Manager {
	if p == nil || ws == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.managers[ws.Root()]
	if m == nil {
		m = &Manager{ws: ws, opts: p.opts, clients: map[string]*client{}, restarts: map[string]int{}}
		p.managers[ws.Root()] = m
	}
	m.ws = ws
	return m
}

// Close stops every server.
func (p *Pool) Close() {
	if p == nil {
		return
	}
	p.once.Do(func() { close(p.done) })
	var wg sync.WaitGroup
	for _, m := range p.all() {
		wg.Add(1)
		go func() { defer wg.Done(); m.Close() }()
	}
	wg.Wait()
}

func (p *Pool) reap() {
	every := min(p.opts.IdleTimeout/2, time.Minute)
	t := time.NewTicker(max(every, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
		}
		for _, m := range p.all() {
			m.stopIdle(p.opts.IdleTimeout)
		}
	}
}

func (p *Pool) all() []*Manager {
	p.mu.Lock()
	defer p.mu.Unlock()
	ms := make([]*Manager, 0, len(p.managers))
	for _, m := range p.managers {
		ms = append(ms, m)
	}
	return ms
}

// Manager runs the servers of one workspace root.
type Manager struct {
	ws   *workspace.Workspace
	opts Options

	mu       sync.Mutex
	cfg      *Config
	cfgErr   error
	clients  map[string]*client // by server name
	starting map[string]chan struct{}
	restarts map[string]int
	started  []string // servers started by this manager's calls (for "slow" notes)
}

// Config returns the root's server configuration (loaded once).
func (m *Manager) Config() (*Config, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cfg == nil && m.cfgErr == nil {
		m.cfg, m.cfgErr = LoadConfig(m.ws.Root(), m.opts.Servers)
	}
	return m.cfg, m.cfgErr
}

// ErrNoServer is wrapped by the error of a file no configured server
// handles (noServerErr).
var ErrNoServer = errors.New("no language server for the file")

// noServerErr is the error of a file no configured server handles.
func noServerErr(path string) error {
	return &Error{Kind: kinded.Usage, Msg: fmt.Sprintf("no language server handles %s (%s); configure one in %s under languageServers, or run `status` to see the configured servers", filepath.Base(path), extOf(path), ConfigFile), Err: ErrNoServer}
}

func extOf(p string) string {
	if e := filepath.Ext(p); e != "" {
		return e + " files"
	}
	return "no extension"
}

// ServerFor returns the name of the primary server of path, starting it
// when needed.
func (m *Manager) ServerFor(ctx context.Context, path string) (string, error) {
	c, err := m.clientFor(ctx, path)
	if err != nil {
		return "", err
	}
	return c.srv.Name, nil
}

// Handles reports whether some configured server handles path (without
// starting anything).
func (m *Manager) Handles(path string) bool {
	cfg, err := m.Config()
	if err != nil {
		return false
	}
	for _, s := range cfg.Servers {
		if s.Matches(path) {
			return true
		}
	}
	return false
}

func (m *Manager) clientFor(ctx context.Context, path string) (*client, error) {
	cfg, err := m.Config()
	if err != nil {
		return nil, err
	}
	var missing error
	for _, s := range cfg.Servers {
		if !s.Matches(path) {
			continue
		}
		if _, ok := s.Available(); !ok {
			if missing == nil {
				missing = missingErr(s)
			}
			continue
		}
		return m.client(ctx, s)
	}
	if missing != nil {
		return nil, missing
	}
	return nil, noServerErr(path)
}

// client returns the running client of s, starting (or restarting) it.
func (m *Manager) client(ctx context.Context, s Server) (*client, error) {
	for {
		m.mu.Lock()
		if c := m.clients[s.Name]; c != nil && !c.isDead() {
			m.mu.Unlock()
			return c, nil
		}
		if m.starting == nil {
			m.starting = map[string]chan struct{}{}
		}
		if ch := m.starting[s.Name]; ch != nil {
			m.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if old := m.clients[s.Name]; old != nil {
			m.restarts[s.Name]++
			m.opts.Logf("langserver: restarting %s (%s)", s.Name, old.deadReason())
			m.opts.Notify("warning", fmt.Sprintf("language server %s %s; restarting it", s.Name, old.deadReason()))
			go old.stop()
			delete(m.clients, s.Name)
		}
		ch := make(chan struct{})
		m.starting[s.Name] = ch
		m.mu.Unlock()

		began := time.Now()
		c, err := start(ctx, s, m.ws.Root(), m.opts.Logf, m.opts.StartTimeout)
		if err != nil {
			m.opts.Notify("error", fmt.Sprintf("language server %s failed to start for %s: %v", s.Name, m.ws.Root(), err))
		} else {
			m.opts.Notify("info", fmt.Sprintf("language server %s started for %s in %v", s.Name, m.ws.Root(), time.Since(began).Round(time.Millisecond)))
		}

		m.mu.Lock()
		delete(m.starting, s.Name)
		close(ch)
		if err == nil {
			m.clients[s.Name] = c
			m.started = append(m.started, s.Name)
		}
		m.mu.Unlock()
		return c, err
	}
}

// Started returns (and forgets) the servers started since the last call:
// a CLI call reports them, since starting a server is slow.
func (m *Manager) Started() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.started
	m.started = nil
	return s
}

// running returns the live clients.
func (m *Manager) running() []*client {
	m.mu.Lock()
	defer m.mu.Unlock()
	cs := make([]*client, 0, len(m.clients))
	for _, c := range m.clients {
		if !c.isDead() {
			cs = append(cs, c)
		}
	}
	return cs
}

// Close stops every server of the root.
func (m *Manager) Close() {
	m.mu.Lock()
	cs := make([]*client, 0, len(m.clients))
	for _, c := range m.clients {
		cs = append(cs, c)
	}
	m.clients = map[string]*client{}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Add(1)
		go func() { defer wg.Done(); c.stop() }()
	}
	wg.Wait()
}

func (m *Manager) stopIdle(idle time.Duration) {
	m.mu.Lock()
	var stop []*client
	for n, c := range m.clients {
		c.mu.Lock()
		old := time.Since(c.lastUse) > idle
		c.mu.Unlock()
		if old {
			stop = append(stop, c)
			delete(m.clients, n)
		}
	}
	m.mu.Unlock()
	for _, c := range stop {
		m.opts.Logf("langserver: stopping %s (idle)", c.srv.Name)
		m.opts.Notify("info", fmt.Sprintf("language server %s stopped after %v unused; it starts again on the next request", c.srv.Name, idle))
		c.stop()
	}
}

// read returns path's content as the tools see it (the editor's buffer
// when open); a missing file reads as nil, false.
func (m *Manager) read(path string) ([]byte, bool, error) {
	p, err := m.ws.Resolve(path)
	if err != nil {
		return nil, false, err
	}
	f, err := m.ws.ReadFile(p)
	if err != nil {
		if !m.ws.Exists(p) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return f.Bytes, true, nil
}

// open syncs path into its server and returns the client, the version the
// server has, and the line index of the content sent.
func (m *Manager) open(ctx context.Context, path string) (*client, int, *lineIndex, error) {
	c, err := m.clientFor(ctx, path)
	if err != nil {
		return nil, 0, nil, err
	}
	text, ok, err := m.read(path)
	if err != nil {
		return nil, 0, nil, err
	}
	if !ok {
		return nil, 0, nil, fmt.Errorf("%s does not exist; check the path", m.rel(path))
	}
	v, err := c.sync(ctx, path, text)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("%s: sending %s: %w", c.srv.Name, m.rel(path), err)
	}
	return c, v, newLineIndex(text), nil
}

func (m *Manager) rel(path string) string {
	if r, err := filepath.Rel(m.ws.Root(), path); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return path
}

// index returns the line index of path as the tools see it now (nil
// when unreadable: outside the root or missing).
func (m *Manager) index(path string) *lineIndex {
	text, ok, err := m.read(path)
	if err != nil || !ok {
		return nil
	}
	return newLineIndex(text)
}

func docPos(path string, li *lineIndex, at Pos) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": URI(path)}, "position": li.wire(at)}
}

// Locations sends a location request (textDocument/definition,
// typeDefinition, implementation or references) at a position of path.
func (m *Manager) Locations(ctx context.Context, method, path string, at Pos) ([]Location, error) {
	c, _, li, err := m.open(ctx, path)
	if err != nil {
		return nil, err
	}
	c.waitIdle(ctx)
	params := docPos(path, li, at)
	if method == "textDocument/references" {
		params["context"] = map[string]any{"includeDeclaration": true}
	}
	var raw json.RawMessage
	if err := c.call(ctx, method, params, &raw); err != nil {
		return nil, err
	}
	return m.locations(raw), nil
}

func (m *Manager) locations(raw json.RawMessage) []Location {
	var many []wireLocation
	if json.Unmarshal(raw, &many) != nil {
		var one wireLocation
		if json.Unmarshal(raw, &one) != nil {
			return nil
		}
		many = []wireLocation{one}
	}
	idx := map[string]*lineIndex{}
	var out []Location
	for _, l := range many {
		uri, r := l.URI, l.Range
		if l.TargetURI != "" {
			uri = l.TargetURI
			if l.TargetSelectionRange != nil {
				r = *l.TargetSelectionRange
			} else if l.TargetRange != nil {
				r = *l.TargetRange
			}
		}
		if l, ok := m.location(idx, uri, r); ok {
			out = append(out, l)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Start.Line < out[j].Start.Line || (out[i].Start.Line == out[j].Start.Line && out[i].Start.Col < out[j].Start.Col)
	})
	return out
}

// location converts a wire range of uri (idx caches line indexes by path).
func (m *Manager) location(idx map[string]*lineIndex, uri string, r wireRange) (Location, bool) {
	p := PathOf(uri)
	if p == "" {
		return Location{}, false
	}
	li, ok := idx[p]
	if !ok {
		li = m.index(p)
		idx[p] = li
	}
	return Location{Path: p, Start: li.pos(r.Start), End: li.pos(r.End)}, true
}

// Hover returns the hover text at a position ("" when none).
func (m *Manager) Hover(ctx context.Context, path string, at Pos) (string, error) {
	c, _, li, err := m.open(ctx, path)
	if err != nil {
		return "", err
	}
	c.waitIdle(ctx)
	var res struct {
		Contents json.RawMessage `json:"contents"`
	}
	if err := c.call(ctx, "textDocument/hover", docPos(path, li, at), &res); err != nil {
		return "", err
	}
	return strings.TrimSpace(hoverText(res.Contents)), nil
}

func hoverText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var mc struct {
		Kind     string `json:"kind"`
		Language string `json:"language"`
		Value    string `json:"value"`
	}
	if json.Unmarshal(raw, &mc) == nil && (mc.Value != "" || mc.Kind != "") {
		if mc.Language != "" {
			return "```" + mc.Language + "\n" + mc.Value + "\n```"
		}
		return mc.Value
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil {
		parts := make([]string, 0, len(arr))
		for _, a := range arr {
			if t := hoverText(a); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}

// DocumentSymbols returns path's symbols, depth-first.
func (m *Manager) DocumentSymbols(ctx context.Context, path string) ([]Symbol, error) {
	c, _, li, err := m.open(ctx, path)
	if err != nil {
		return nil, err
	}
	c.waitIdle(ctx)
	var raw []json.RawMessage
	if err := c.call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": URI(path)}}, &raw); err != nil {
		return nil, err
	}
	var out []Symbol
	var walk func(items []json.RawMessage, depth int)
	walk = func(items []json.RawMessage, depth int) {
		for _, it := range items {
			var s struct {
				Name           string            `json:"name"`
				Kind           int               `json:"kind"`
				Detail         string            `json:"detail"`
				Range          *wireRange        `json:"range"`
				SelectionRange *wireRange        `json:"selectionRange"`
				Location       *wireLocation     `json:"location"`
				Children       []json.RawMessage `json:"children"`
			}
			if json.Unmarshal(it, &s) != nil {
				continue
			}
			sym := Symbol{Name: s.Name, Kind: symbolKindName(s.Kind), Detail: s.Detail, Depth: depth, Children: len(s.Children)}
			switch {
			case s.SelectionRange != nil:
				sym.Loc = Location{Path: path, Start: li.pos(s.SelectionRange.Start), End: li.pos(s.SelectionRange.End)}
			case s.Location != nil:
				sym.Loc = Location{Path: path, Start: li.pos(s.Location.Range.Start), End: li.pos(s.Location.Range.End)}
			}
			out = append(out, sym)
			walk(s.Children, depth+1)
		}
	}
	walk(raw, 0)
	return out, nil
}

// WorkspaceSymbols asks the server of path (any running or startable
// server when path is "") for symbols matching query.
func (m *Manager) WorkspaceSymbols(ctx context.Context, path, query string) ([]Symbol, error) {
	cs, err := m.clientsFor(ctx, path)
	if err != nil {
		return nil, err
	}
	var out []Symbol
	var errs []error
	for _, c := range cs {
		c.waitIdle(ctx)
		var raw []struct {
			Name          string       `json:"name"`
			Kind          int          `json:"kind"`
			ContainerName string       `json:"containerName"`
			Location      wireLocation `json:"location"`
		}
		if err := c.call(ctx, "workspace/symbol", map[string]any{"query": query}, &raw); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c.srv.Name, err))
			continue
		}
		idx := map[string]*lineIndex{}
		for _, s := range raw {
			if l, ok := m.location(idx, s.Location.URI, s.Location.Range); ok {
				out = append(out, Symbol{Name: s.Name, Kind: symbolKindName(s.Kind), Detail: s.ContainerName, Loc: l})
			}
		}
	}
	if len(out) == 0 && len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// clientsFor returns path's primary client, or for path "" every server
// whose program is installed.
func (m *Manager) clientsFor(ctx context.Context, path string) ([]*client, error) {
	if path != "" {
		c, err := m.clientFor(ctx, path)
		if err != nil {
			return nil, err
		}
		return []*client{c}, nil
	}
	cfg, err := m.Config()
	if err != nil {
		return nil, err
	}
	var out []*client
	var errs []error
	seenType := map[string]bool{}
	for _, s := range cfg.Servers {
		if _, ok := s.Available(); !ok {
			continue
		}
		// One server per file type: the primary one.
		dup := true
		for _, t := range s.FileTypes {
			if !seenType[t] {
				dup = false
			}
			seenType[t] = true
		}
		if dup {
			continue
		}
		c, err := m.client(ctx, s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		if len(errs) > 0 {
			return nil, errors.Join(errs...)
		}
		return nil, fmt.Errorf("no language server is installed for this root; run `status` to see the configured servers and how to install them")
	}
	return out, nil
}

// Diagnostics syncs path and waits (until ctx ends) for diagnostics of
// its current content. fresh is false when the wait ran out and the
// result is the last published (possibly stale) set.
func (m *Manager) Diagnostics(ctx context.Context, path string) (diags []Diagnostic, fresh bool, err error) {
	c, v, li, err := m.open(ctx, path)
	if err != nil {
		return nil, false, err
	}
	w, fresh := c.waitDiagnostics(ctx, path, v)
	return convertDiags(path, li, w), fresh, nil
}

func convertDiags(path string, li *lineIndex, w []wireDiagnostic) []Diagnostic {
	out := make([]Diagnostic, 0, len(w))
	for _, d := range w {
		code := strings.Trim(string(d.Code), `"`)
		if code == "null" {
			code = ""
		}
		out = append(out, Diagnostic{Path: path, Start: li.pos(d.Range.Start), End: li.pos(d.Range.End),
			Severity: severityName(d.Severity), Source: d.Source, Code: code, Message: d.Message})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Start.Line != out[j].Start.Line {
			return out[i].Start.Line < out[j].Start.Line
		}
		return out[i].Start.Col < out[j].Start.Col
	})
	return out
}

// Cached returns the diagnostics the servers have published for every
// document, by absolute path, without waiting.
func (m *Manager) Cached() map[string][]Diagnostic {
	cs := m.running()
	out := map[string][]Diagnostic{}
	for _, c := range cs {
		snap := c.snapshot()
		for uri, ds := range snap {
			p := PathOf(uri)
			if p == "" || len(ds) == 0 {
				continue
			}
			out[p] = append(out[p], convertDiags(p, m.index(p), ds)...)
		}
	}
	return out
}

// Changed tells the running servers that files changed on disk or in
// buffers (after a commit): open documents get their new content,
// others a didChangeWatchedFiles. It starts no server.
func (m *Manager) Changed(ctx context.Context, paths []string, deleted []string) {
	cs := m.running()
	for _, c := range cs {
		var events []any
		for _, p := range paths {
			if c.isOpen(p) {
				if text, ok, err := m.read(p); err == nil && ok {
					_, _ = c.sync(ctx, p, text)
				}
				continue
			}
			events = append(events, map[string]any{"uri": URI(p), "type": 2})
		}
		for _, p := range deleted {
			c.closeDoc(ctx, p)
			events = append(events, map[string]any{"uri": URI(p), "type": 3})
		}
		if len(events) > 0 {
			_ = c.notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{"changes": events})
		}
	}
}

// Running reports whether a live server handles path now.
func (m *Manager) Running(path string) bool {
	cfg, err := m.Config()
	if err != nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range cfg.Servers {
		if s.Matches(path) {
			if c := m.clients[s.Name]; c != nil && !c.isDead() {
				return true
			}
		}
	}
	return false
}

// Rename asks for the edit renaming the symbol at a position.
func (m *Manager) Rename(ctx context.Context, path string, at Pos, newName string) (*WorkspaceEdit, error) {
	c, _, li, err := m.open(ctx, path)
	if err != nil {
		return nil, err
	}
	c.waitIdle(ctx)
	params := docPos(path, li, at)
	params["newName"] = newName
	var raw json.RawMessage
	if err := c.call(ctx, "textDocument/rename", params, &raw); err != nil {
		return nil, err
	}
	return m.convertEdit(raw)
}

// Format asks for the edits formatting path.
func (m *Manager) Format(ctx context.Context, path string) (*WorkspaceEdit, error) {
	c, _, li, err := m.open(ctx, path)
	if err != nil {
		return nil, err
	}
	var edits []wireTextEdit
	if err := c.call(ctx, "textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": URI(path)},
		"options": map[string]any{"tabSize": 4, "insertSpaces": true}}, &edits); err != nil {
		return nil, err
	}
	_ = li
	raw, _ := json.Marshal(map[string]any{"changes": map[string]any{URI(path): edits}})
	return m.convertEdit(raw)
}

// CodeAction is one action a server offers.
type CodeAction struct {
	Title string          `json:"title"`
	Kind  string          `json:"kind,omitempty"`
	Raw   json.RawMessage `json:"-"`
}

// CodeActions lists the actions at a position (only: a kind filter).
func (m *Manager) CodeActions(ctx context.Context, path string, at Pos, only string) ([]CodeAction, error) {
	c, v, li, err := m.open(ctx, path)
	if err != nil {
		return nil, err
	}
	c.waitIdle(ctx)
	// The diagnostics on that line give the server its quick fixes.
	wctx, cancel := context.WithTimeout(ctx, time.Second)
	w, _ := c.waitDiagnostics(wctx, path, v)
	cancel()
	var here []wireDiagnostic
	for _, d := range w {
		if d.Range.Start.Line <= at.Line-1 && d.Range.End.Line >= at.Line-1 {
			here = append(here, d)
		}
	}
	p := li.wire(at)
	params := map[string]any{"textDocument": map[string]any{"uri": URI(path)}, "range": wireRange{Start: p, End: p},
		"context": map[string]any{"diagnostics": nonNilDiags(here)}}
	if only != "" {
		params["context"].(map[string]any)["only"] = []string{only}
	}
	var raw []json.RawMessage
	if err := c.call(ctx, "textDocument/codeAction", params, &raw); err != nil {
		return nil, err
	}
	out := make([]CodeAction, 0, len(raw))
	for _, r := range raw {
		var a struct {
			Title string `json:"title"`
			Kind  string `json:"kind"`
		}
		if json.Unmarshal(r, &a) == nil {
			out = append(out, CodeAction{Title: a.Title, Kind: a.Kind, Raw: r})
		}
	}
	return out, nil
}

func nonNilDiags(d []wireDiagnostic) []wireDiagnostic {
	if d == nil {
		return []wireDiagnostic{}
	}
	return d
}

// ResolveCodeAction returns the edit an action makes: its own edit
// (resolved when the server supports it) plus the edits the server asks
// to apply while its command runs. commands lists the commands run.
func (m *Manager) ResolveCodeAction(ctx context.Context, path string, a CodeAction) (we *WorkspaceEdit, commands []string, err error) {
	c, err := m.clientFor(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	var act struct {
		Title     string          `json:"title"`
		Edit      json.RawMessage `json:"edit"`
		Command   json.RawMessage `json:"command"`
		Arguments json.RawMessage `json:"arguments"`
		Data      json.RawMessage `json:"data"`
	}
	_ = json.Unmarshal(a.Raw, &act)
	if act.Edit == nil && act.Data != nil {
		var resolved json.RawMessage
		if c.call(ctx, "codeAction/resolve", a.Raw, &resolved) == nil {
			_ = json.Unmarshal(resolved, &act)
		}
	}
	var edits []json.RawMessage
	if act.Edit != nil {
		edits = append(edits, act.Edit)
	}
	var cmd struct {
		Command   string          `json:"command"`
		Arguments json.RawMessage `json:"arguments"`
	}
	switch {
	case len(act.Command) > 0 && act.Command[0] == '{':
		_ = json.Unmarshal(act.Command, &cmd)
	case len(act.Command) > 0:
		// A bare Command: {title, command: string, arguments}.
		_ = json.Unmarshal(act.Command, &cmd.Command)
		cmd.Arguments = act.Arguments
	}
	if cmd.Command != "" {
		var captured []json.RawMessage
		c.mu.Lock()
		c.capture = &captured
		c.mu.Unlock()
		params := map[string]any{"command": cmd.Command}
		if cmd.Arguments != nil {
			params["arguments"] = cmd.Arguments
		}
		err := c.call(ctx, "workspace/executeCommand", params, nil)
		c.mu.Lock()
		c.capture = nil
		c.mu.Unlock()
		if err != nil {
			return nil, nil, fmt.Errorf("%s: running command %s: %w", c.srv.Name, cmd.Command, err)
		}
		commands = append(commands, cmd.Command)
		edits = append(edits, captured...)
	}
	total := &WorkspaceEdit{}
	for _, e := range edits {
		// Captured edits were computed on the text before any of them:
		// each is converted against the state the previous ones left.
		we, err := m.convertEditOn(e, total)
		if err != nil {
			return nil, nil, err
		}
		total = we
	}
	return total, commands, nil
}

// RenamePair is one file of a file rename.
type RenamePair struct{ Old, New string }

// WillRenameFiles asks every running-or-startable server for the edits a
// file rename needs. notes are per-server failures that were tolerated.
func (m *Manager) WillRenameFiles(ctx context.Context, pairs []RenamePair) (*WorkspaceEdit, []string, error) {
	cs, err := m.clientsFor(ctx, "")
	if err != nil {
		return nil, nil, err
	}
	files := make([]any, len(pairs))
	for i, p := range pairs {
		files[i] = map[string]any{"oldUri": URI(p.Old), "newUri": URI(p.New)}
	}
	total := &WorkspaceEdit{}
	var notes []string
	for _, c := range cs {
		var raw json.RawMessage
		err := c.call(ctx, "workspace/willRenameFiles", map[string]any{"files": files}, &raw)
		if err != nil {
			var je *jsonrpc2.Error
			if errors.As(err, &je) && je.Code == jsonrpc2.MethodNotFound {
				continue
			}
			notes = append(notes, fmt.Sprintf("%s: %v", c.srv.Name, err))
			continue
		}
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		we, err := m.convertEditOn(raw, total)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: %v", c.srv.Name, err))
			continue
		}
		total = we
	}
	return total, notes, nil
}

// DidRenameFiles tells the running servers files were renamed.
func (m *Manager) DidRenameFiles(ctx context.Context, pairs []RenamePair) {
	cs := m.running()
	files := make([]any, len(pairs))
	for i, p := range pairs {
		files[i] = map[string]any{"oldUri": URI(p.Old), "newUri": URI(p.New)}
	}
	for _, c := range cs {
		for _, p := range pairs {
			c.closeDoc(ctx, p.Old)
		}
		_ = c.notify(ctx, "workspace/didRenameFiles", map[string]any{"files": files})
	}
}

// Request sends a raw request to path's server (any server when path is
// ""); params nil sends {}.
func (m *Manager) Request(ctx context.Context, path, method string, params json.RawMessage) (server string, result json.RawMessage, err error) {
	var c *client
	if path != "" {
		c, _, _, err = m.open(ctx, path)
		if err != nil {
			return "", nil, err
		}
	} else {
		cs, err := m.clientsFor(ctx, "")
		if err != nil {
			return "", nil, err
		}
		c = cs[0]
	}
	if params == nil {
		params = json.RawMessage("{}")
	}
	err = c.call(ctx, method, params, &result)
	return c.srv.Name, result, err
}

// Position converts a Pos in path to the LSP wire position (for raw
// requests built by the caller).
func (m *Manager) Position(path string, at Pos) any { return m.index(path).wire(at) }

// Capabilities returns the capabilities of path's server (every
// installed server when path is ""), starting them as needed.
func (m *Manager) Capabilities(ctx context.Context, path string) (map[string]json.RawMessage, error) {
	cs, err := m.clientsFor(ctx, path)
	if err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{}
	for _, c := range cs {
		out[c.srv.Name] = c.caps
	}
	return out, nil
}

// ServerStatus is one configured server's state.
type ServerStatus struct {
	Name      string   `json:"name"`
	Command   []string `json:"command"`
	FileTypes []string `json:"fileTypes"`
	Installed bool     `json:"installed"`
	Install   string   `json:"install,omitempty"`
	Running   bool     `json:"running"`
	PID       int      `json:"pid,omitempty"`
	Restarts  int      `json:"restarts,omitempty"`
	Open      int      `json:"openDocuments,omitempty"`
	Uptime    string   `json:"uptime,omitempty"`
}

// Status describes the configured servers and the running ones.
func (m *Manager) Status() (string, []ServerStatus, error) {
	cfg, err := m.Config()
	if err != nil {
		return "", nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]ServerStatus, 0, len(cfg.Servers))
	for _, s := range cfg.Servers {
		st := ServerStatus{Name: s.Name, Command: s.Command, FileTypes: s.FileTypes, Install: s.Install, Restarts: m.restarts[s.Name]}
		_, st.Installed = s.Available()
		if c := m.clients[s.Name]; c != nil && !c.isDead() {
			st.Running = true
			if c.cmd.Process != nil {
				st.PID = c.cmd.Process.Pid
			}
			c.mu.Lock()
			st.Open = len(c.open)
			c.mu.Unlock()
			st.Uptime = time.Since(c.started).Round(time.Second).String()
		}
		out = append(out, st)
	}
	return cfg.Source, out, nil
}

// WaitIdle waits until the running servers finished loading (no work-done
// progress running), at most until ctx ends.
func (m *Manager) WaitIdle(ctx context.Context) {
	cs := m.running()
	for _, c := range cs {
		c.waitIdle(ctx)
	}
}

// Settle waits until the running servers have published nothing for
// quiet (a server diagnosing a whole workspace publishes file after
// file), at most until ctx ends.
func (m *Manager) Settle(ctx context.Context, quiet time.Duration) {
	for {
		m.mu.Lock()
		var chs []chan struct{}
		for _, c := range m.clients {
			c.mu.Lock()
			chs = append(chs, c.changed)
			c.mu.Unlock()
		}
		m.mu.Unlock()
		if len(chs) == 0 {
			return
		}
		any := make(chan struct{})
		stop := make(chan struct{})
		for _, ch := range chs {
			go func() {
				select {
				case <-ch:
					select {
					case any <- struct{}{}:
					case <-stop:
					}
				case <-stop:
				}
			}()
		}
		t := time.NewTimer(quiet)
		select {
		case <-any:
			t.Stop()
			close(stop)
			continue
		case <-t.C:
			close(stop)
			return
		case <-ctx.Done():
			t.Stop()
			close(stop)
			return
		}
	}
}
