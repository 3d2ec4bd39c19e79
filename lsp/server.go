package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hashls/hashls/agent"
	"github.com/hashls/hashls/treesitter"
	"github.com/hashls/hashls/workspace"
)

// server implements protocol.Server; every method it does not override
// answers "method not found" (requests) or is ignored (notifications).
type server struct {
	protocol.UnimplementedServer

	opts   Options
	conn   jsonrpc2.Conn
	client protocol.Client

	resolver treesitter.Resolver
	// treeKey prefixes the keys of this server's documents in the
	// tree-sitter package's open-document set (see treeKeyOf).
	treeKey string

	exited   chan struct{}
	exitOnce sync.Once

	reqMu    sync.Mutex
	inflight map[jsonrpc2.ID]context.CancelFunc // running requests, for $/cancelRequest

	mu        sync.Mutex
	state     lifecycle
	caps      clientCaps
	settings  Settings
	ws        *workspace.Workspace
	wsErr     error         // why ws is nil after initialize
	wsStarted bool          // initialize started opening the workspace
	wsReady   chan struct{} // closed when the open has finished
	docs      map[uri.URI]*document
	byPath    map[string]*document // workspace.Path.Abs -> open document
	waiters   []*versionWaiter     // applyEdit callers waiting for a didChange

	others  others      // the hub endpoint and the audit feed (external.go)
	review  reviewState // unreviewed hunks (review_server.go); guarded by mu
	reviews reviewQueue // runs' reviews of closed files, after their answer

	// forwardedNotes bounds the activity notifications of forwarded runs
	// still being written to the editor (see reportActivity).
	forwardedNotes chan struct{}
}

// Compile-time check: server is a complete protocol.Server.
var _ protocol.Server = (*server)(nil)

type lifecycle int

const (
	stateNew         lifecycle = iota // before initialize
	stateInitialized                  // initialize answered
	stateShutdown                     // shutdown answered
)

// clientCaps are the client capabilities the server acts on.
type clientCaps struct {
	applyEdit          bool
	documentChanges    bool
	annotations        bool
	renameFiles        bool // workspaceEdit.resourceOperations holds "rename"
	workDoneProgress   bool
	codeActionLiterals bool
}

// servers numbers servers, so that two in one process (tests, a hub) never
// share a tree-sitter document key.
var servers atomic.Uint64

func newServer(opts Options) *server {
	return &server{
		opts:     opts,
		treeKey:  fmt.Sprintf("lsp%d ", servers.Add(1)),
		exited:   make(chan struct{}),
		wsReady:  make(chan struct{}),
		inflight: map[jsonrpc2.ID]context.CancelFunc{},
		docs:     map[uri.URI]*document{},
		byPath:   map[string]*document{},
		settings: defaultSettings(opts.Tools.Sets),

		forwardedNotes: make(chan struct{}, maxForwardedNotes),
	}
}

func (s *server) logf(format string, args ...any) { s.opts.Logf(format, args...) }

// close releases the workspace when Serve returns.
func (s *server) close() {
	s.waitWorkspace()
	s.stopOthers()
	s.mu.Lock()
	ws := s.ws
	s.ws = nil
	for u := range s.docs {
		treesitter.CloseDocument(s.treeKeyOf(u))
	}
	s.mu.Unlock()
	if ws != nil {
		if err := ws.Close(); err != nil {
			s.logf("lsp: closing the workspace: %v", err)
		}
	}
}

// acceptRequest gates requests by lifecycle state.
func (s *server) acceptRequest(method string) error {
	s.mu.Lock()
	st := s.state
	s.mu.Unlock()
	switch {
	case st == stateNew && method != protocol.MethodInitialize:
		return jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized, "%s before initialize: send initialize first", method)
	case st != stateNew && method == protocol.MethodInitialize:
		return jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "initialize sent twice")
	case st == stateShutdown:
		return jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s after shutdown: only exit is accepted now", method)
	}
	return nil
}

// acceptNotification gates notifications: before initialize and after
// shutdown only exit is handled.
func (s *server) acceptNotification(method string) bool {
	if method == protocol.MethodExit {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == stateInitialized
}

// exitedEarly reports whether exit came without shutdown.
func (s *server) exitedEarly() bool {
	select {
	case <-s.exited:
	default:
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state != stateShutdown
}

// Settings are the server's user settings, from initializationOptions and
// workspace/didChangeConfiguration (either at the top level or under a
// "hashls" key).
type Settings struct {
	// Progress enables $/progress reports for long tool runs.
	Progress bool `json:"progress"`
	// Activity enables the hashls/activity notification after tool runs.
	Activity bool `json:"activity"`
	// LogLevel is the lowest window/logMessage level sent: "error",
	// "warning", "info" or "debug".
	LogLevel string `json:"logLevel"`
	// ApplyEditTimeoutMs bounds the wait for the client to answer a
	// workspace/applyEdit and report the new version.
	ApplyEditTimeoutMs int `json:"applyEditTimeoutMs"`
	// StateDir overrides Options.StateDir (initializationOptions only).
	StateDir string `json:"stateDir"`
	// SeenLines refuses edits anchored on lines no read displayed (on by
	// default; false turns the check off).
	SeenLines *bool `json:"seenLines"`
	// EditHeaders is the form of the edit tool's result headers:
	// "pilcrow" (¶PATH#TAG, the default) or "bracket" ([PATH#TAG]).
	EditHeaders string `json:"editHeaders"`
	// DiagnosticsMs is how long edit, write, edit_file and apply_patch
	// wait for the language servers' diagnostics of what they changed
	// and report the new ones (0, the default: they do not; at most
	// 30000). A call's diagnostics argument overrides it. The CLI and MCP
	// read HASHLS_DIAGNOSTICS_MS instead.
	DiagnosticsMs int `json:"diagnosticsMs"`
	// FormatOnWrite has the language server format what those tools wrote
	// (a call's format argument overrides it; CLI and MCP:
	// HASHLS_FORMAT_ON_WRITE).
	FormatOnWrite bool `json:"formatOnWrite"`
	// Review marks the changes that did not come from this editor (agents
	// over MCP or the CLI, other hashls processes) hunk by hunk until the
	// person keeps or undoes them: hashls/review and hashls.review. On by
	// default: the changes land as they always did, the review only adds
	// marks, and nothing waits for it.
	Review bool `json:"review"`
	// Toolsets are the toolsets whose tools the server runs as commands
	// ("hashline,history" or ["hashline", "history"]; default: all, see
	// agent.ParseSets). Calls other hashls processes forward through the
	// hub are not limited by it: their own toolsets chose them.
	Toolsets json.RawMessage `json:"toolsets"`
	sets     agent.Sets
}

// editSettings are the edit tool's settings these settings give.
func (st Settings) editSettings() agent.EditSettings {
	return agent.EditSettings{
		AllowUnseen:     st.SeenLines != nil && !*st.SeenLines,
		BracketHeaders:  st.EditHeaders == "bracket",
		DiagnosticsWait: time.Duration(st.DiagnosticsMs) * time.Millisecond,
		FormatOnWrite:   st.FormatOnWrite,
	}
}

func defaultSettings(sets agent.Sets) Settings {
	return Settings{Progress: true, Activity: true, LogLevel: "warning", ApplyEditTimeoutMs: 10000, Review: true, sets: sets}
}

// applySettings merges a settings object into cur; unknown fields are
// ignored, wrong types reported.
func applySettings(cur Settings, raw []byte) (Settings, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return cur, nil
	}
	var outer map[string]json.RawMessage
	if err := json.Unmarshal(raw, &outer); err != nil {
		return cur, fmt.Errorf("settings must be a JSON object: %w", err)
	}
	if inner, ok := outer["hashls"]; ok {
		raw = inner
	}
	next := cur
	if err := json.Unmarshal(raw, &next); err != nil {
		return cur, fmt.Errorf("invalid hashls settings (expected {progress: bool, activity: bool, logLevel: string, applyEditTimeoutMs: number, stateDir: string, seenLines: bool, editHeaders: string, diagnosticsMs: number, formatOnWrite: bool, review: bool, toolsets: string or [string]}): %w", err)
	}
	if len(next.Toolsets) > 0 && string(next.Toolsets) != "null" {
		var spec string
		var list []string
		switch {
		case json.Unmarshal(next.Toolsets, &spec) == nil:
		case json.Unmarshal(next.Toolsets, &list) == nil:
			spec = strings.Join(list, ",")
		default:
			return cur, fmt.Errorf("invalid toolsets %s: use a string (\"hashline,history\") or an array of toolset names", next.Toolsets)
		}
		sets, err := agent.ParseSets(spec)
		if err != nil {
			return cur, fmt.Errorf("invalid toolsets: %w", err)
		}
		next.sets = sets
	}
	switch next.EditHeaders {
	case "", "pilcrow", "bracket":
	default:
		return cur, fmt.Errorf("invalid editHeaders %q: use pilcrow or bracket", next.EditHeaders)
	}
	switch next.LogLevel {
	case "error", "warning", "info", "debug":
	default:
		return cur, fmt.Errorf("invalid logLevel %q: use error, warning, info or debug", next.LogLevel)
	}
	if next.DiagnosticsMs < 0 || next.DiagnosticsMs > 30000 {
		return cur, fmt.Errorf("invalid diagnosticsMs %d: use 0 (off) to 30000 milliseconds", next.DiagnosticsMs)
	}
	if next.ApplyEditTimeoutMs <= 0 {
		next.ApplyEditTimeoutMs = defaultSettings(agent.Sets{}).ApplyEditTimeoutMs
	}
	return next, nil
}

func (s *server) currentSettings() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings
}

// Initialize answers the capabilities and opens the workspace.
func (s *server) Initialize(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	settings, serr := applySettings(defaultSettings(s.opts.Tools.Sets), params.InitializationOptions)
	if serr != nil {
		s.logf("lsp: initializationOptions: %v", serr)
	}
	caps := readClientCaps(&params.Capabilities)

	root := s.chooseRoot(params)
	stateDir := s.opts.StateDir
	if settings.StateDir != "" {
		stateDir = settings.StateDir
	}

	s.mu.Lock()
	s.state = stateInitialized
	s.caps = caps
	s.settings = settings
	s.wsStarted = true
	s.mu.Unlock()

	if params.ProcessID != nil {
		s.watchParent(int(*params.ProcessID))
	}

	// Open the workspace (and its store) off the reply path: initialize
	// answers at once, and whatever needs the workspace waits for it.
	go s.openWorkspace(root, stateDir, serr)

	ver := s.opts.Version
	if ver == "" {
		ver = "dev"
	}
	return &protocol.InitializeResult{
		Capabilities: s.capabilities(),
		ServerInfo:   protocol.ServerInfo{Name: "hashls", Version: protocol.NewOptional(ver)},
	}, nil
}

// openWorkspace opens the workspace and installs the buffer editor, then
// releases everything waiting in workspace().
func (s *server) openWorkspace(root, stateDir string, settingsErr error) {
	var ws *workspace.Workspace
	var err error
	if root == "" {
		err = fmt.Errorf("no workspace folder: open a folder (or pass rootUri) so hashls knows its root")
	} else if ws, err = workspace.Open(root, workspace.Options{StateDir: stateDir}); err != nil {
		err = fmt.Errorf("opening workspace %s: %w", root, err)
		ws = nil
	}
	if ws != nil {
		ws.SetBufferEditor(&bufferEditor{s: s})
		s.startOthers(ws)
	}
	s.mu.Lock()
	s.ws, s.wsErr = ws, err
	s.mu.Unlock()
	close(s.wsReady)

	ctx := context.Background()
	if settingsErr != nil {
		s.logMessage(ctx, protocol.MessageTypeWarning, "hashls: "+settingsErr.Error())
	}
	if err != nil {
		s.logf("lsp: %v", err)
		s.logMessage(ctx, protocol.MessageTypeWarning, "hashls: "+err.Error()+"; tool commands are unavailable")
	}
}

// capabilities is what the server advertises.
func (s *server) capabilities() protocol.ServerCapabilities {
	openClose := true
	change := protocol.TextDocumentSyncKindIncremental
	return protocol.ServerCapabilities{
		PositionEncoding: protocol.PositionEncodingKindUTF16,
		TextDocumentSync: &protocol.TextDocumentSyncOptions{
			OpenClose: &openClose,
			Change:    &change,
		},
		DocumentSymbolProvider: protocol.Boolean(true),
		FoldingRangeProvider:   protocol.Boolean(true),
		SelectionRangeProvider: protocol.Boolean(true),
		CodeActionProvider: &protocol.CodeActionOptions{
			CodeActionKinds: []protocol.CodeActionKind{kindDeleteBlock, kindSelectBlock, kindCopyAnchor, kindOutline},
		},
		ExecuteCommandProvider: protocol.ExecuteCommandOptions{Commands: s.commandNames()},
	}
}

func readClientCaps(c *protocol.ClientCapabilities) clientCaps {
	var out clientCaps
	if w := c.Workspace; w != nil {
		out.applyEdit = w.ApplyEdit != nil && *w.ApplyEdit
		if we := w.WorkspaceEdit; we != nil {
			out.documentChanges = we.DocumentChanges != nil && *we.DocumentChanges
			out.annotations = we.ChangeAnnotationSupport != nil
			out.renameFiles = slices.Contains(we.ResourceOperations, protocol.ResourceOperationKindRename)
		}
	}
	if w := c.Window; w != nil {
		out.workDoneProgress = w.WorkDoneProgress != nil && *w.WorkDoneProgress
	}
	if td := c.TextDocument; td != nil && td.CodeAction != nil {
		out.codeActionLiterals = td.CodeAction.CodeActionLiteralSupport.CodeActionKind.ValueSet != nil
	}
	return out
}

// chooseRoot picks the workspace root: Options.Root, else the first
// workspace folder, else rootUri, else rootPath.
func (s *server) chooseRoot(params *protocol.InitializeParams) string {
	if s.opts.Root != "" {
		if abs, err := filepath.Abs(s.opts.Root); err == nil {
			return abs
		}
		return s.opts.Root
	}
	if folders, ok := params.WorkspaceFolders.Get(); ok {
		for _, f := range folders {
			if p, ok := uriToPath(f.URI); ok {
				return p
			}
		}
	}
	if params.RootURI != nil {
		if p, ok := uriToPath(*params.RootURI); ok {
			return p
		}
	}
	if p, ok := params.RootPath.Get(); ok && filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return ""
}

// Initialized needs no action.
func (s *server) Initialized(context.Context, *protocol.InitializedParams) error { return nil }

// Shutdown moves to the shutdown state; only exit is accepted afterwards.
func (s *server) Shutdown(context.Context) error {
	s.mu.Lock()
	s.state = stateShutdown
	s.mu.Unlock()
	return nil
}

// Exit makes Serve return.
func (s *server) Exit(context.Context) error {
	s.exitOnce.Do(func() { close(s.exited) })
	return nil
}

// DidChangeConfiguration merges new settings.
func (s *server) DidChangeConfiguration(ctx context.Context, params *protocol.DidChangeConfigurationParams) error {
	s.mu.Lock()
	next, err := applySettings(s.settings, params.Settings)
	if err == nil {
		next.StateDir = s.settings.StateDir // only initializationOptions set it
		s.settings = next
		s.reviewSettingChangedLocked()
	}
	s.mu.Unlock()
	if err != nil {
		s.logMessage(ctx, protocol.MessageTypeWarning, "hashls: "+err.Error())
	}
	return nil
}

// DidChangeWatchedFiles drops what is cached about files changed on disk.
// Open documents are unaffected: their buffers stay the truth.
func (s *server) DidChangeWatchedFiles(ctx context.Context, params *protocol.DidChangeWatchedFilesParams) error {
	ws := s.workspace()
	if ws == nil {
		return nil
	}
	inv, ok := any(ws).(interface{ Invalidate(workspace.Path) })
	if !ok {
		return nil
	}
	for _, ch := range params.Changes {
		p, ok := uriToPath(ch.URI)
		if !ok {
			continue
		}
		wp, err := ws.Resolve(p)
		if err != nil {
			continue
		}
		inv.Invalidate(wp)
	}
	return nil
}

// waitWorkspace waits until initialize's workspace open has finished.
func (s *server) waitWorkspace() {
	s.mu.Lock()
	started := s.wsStarted
	s.mu.Unlock()
	if started {
		<-s.wsReady
	}
}

// workspace returns the open workspace or nil.
func (s *server) workspace() *workspace.Workspace {
	s.waitWorkspace()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ws
}

// requireWorkspace returns the workspace or an error telling the user why
// there is none.
func (s *server) requireWorkspace() (*workspace.Workspace, error) {
	s.waitWorkspace()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ws != nil {
		return s.ws, nil
	}
	err := s.wsErr
	if err == nil {
		err = fmt.Errorf("no workspace is open")
	}
	return nil, err
}
