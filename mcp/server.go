package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hashls/hashls/agent"
	"github.com/hashls/hashls/hub"
	"github.com/hashls/hashls/workspace"
)

// Options configure a Server.
type Options struct {
	// Root is the workspace root. "" means the client's first root when it
	// offers roots/list, else the current directory.
	Root string
	// StateDir is where the store lives ("" = $HASHLS_STATE_DIR, else the
	// OS's default, see workspace.StateDir), as for the CLI.
	StateDir string
	// Version is reported as serverInfo.version.
	Version string
	// Logf receives diagnostics for stderr; nil discards them.
	Logf func(format string, args ...any)
	// Tools are the dependencies of the tools over each workspace
	// (agent.Deps.For): the toolsets offered (zero value: every tool; the
	// CLI passes agent.DefaultToolsets unless the user chose), the edit
	// settings (the CLI's come from HASHLS_SEEN_LINES and the variables
	// beside it, which an MCP client's server configuration can set) and
	// the language servers of the lsp tool and of diagnostics after edits
	// (nil: none). WS is set per workspace.
	Tools agent.Deps
	// NoHub runs every call in this process even when the root has a hub
	// (an editor's hashls serve, package hub) to forward it to.
	NoHub bool
	// AllowRoots, when set, are the only directories under which a
	// client's root (roots/list) or the current directory may be served
	// when Root is "" (RootAllowed).
	AllowRoots []string

	// runTool replaces Toolset.Run in tests.
	runTool func(ctx context.Context, ts *agent.Toolset, name string, args json.RawMessage, call agent.Call) (*agent.Result, error)
	// getwd replaces os.Getwd in tests.
	getwd func() (string, error)
}

// Server is the hashls MCP server: the agent tools over one MCP server
// value that serves one client (stdio) or many sessions (HTTP). Workspaces
// are opened on first use, one per root, and shared by the sessions on it.
type Server struct {
	opts    Options
	srv     *sdk.Server
	logger  *slog.Logger // the SDK's diagnostics, to Logf
	listing *agent.Toolset

	mu         sync.Mutex
	workspaces map[string]*opened                  // by absolute root
	sessions   map[*sdk.ServerSession]*sessionRoot // roots chosen from the client's roots/list
	closed     bool
}

// opened is one workspace and the tools over it.
type opened struct {
	ws    *workspace.Workspace
	tools *agent.Toolset
}

// sessionRoot is the root a session's client chose (through roots/list).
type sessionRoot struct {
	root string
}

// progressMinInterval throttles notifications/progress (a variable for
// tests).
var progressMinInterval = 50 * time.Millisecond

// rootsTimeout bounds the roots/list request a tool call may send.
const rootsTimeout = 10 * time.Second

// Instructions is what the server tells a model at initialize (clients put
// it beside the tool list): how the offered tools fit together, once. The
// rules of one tool are in its description, where they apply.
func Instructions(sets agent.Sets) string {
	var parts []string
	if sets.Has("edit") {
		parts = append(parts, "hashls edits files by line number under a proof of what you read: read (or search) shows a file as a ¶PATH#TAG header then N:TEXT rows; edit takes that header and ops on those line numbers (its description has the format). After an edit use the ¶PATH#TAG it prints.")
	}
	if sets.Has("write_file") {
		parts = append(parts, "The file tools take the sha256 that read_file printed as expectedSha256; when the file changed since, they refuse (stale_file): read_file again and redo the change.")
	}
	if sets.Has("apply_patch") && !sets.Has("edit") && !sets.Has("write_file") {
		parts = append(parts, "hashls applies Codex-format patches all or nothing (apply_patch).")
	}
	if sets.Has("restore") || sets.Has("restore_file") {
		parts = append(parts, "What a tool replaces or deletes goes to the trash first, so a bad change can be undone.")
	}
	if len(parts) == 0 {
		parts = append(parts, "hashls: the tools listed, over one workspace; every change is kept in its trash and audit log.")
	}
	// Every tool shows names and takes paths: the one rule for both.
	parts = append(parts, `A name that could break a row (a line break, a quote, a leading space, bytes that are not UTF-8) is shown $'…' quoted as bash writes it (dir/$'a\nb.txt'): write it so in paths, headers and MV.`)
	return strings.Join(parts, " ")
}

// New builds the server and registers every agent tool. It fails only when
// a tool's schema is unusable (a hashls bug).
func New(opts Options) (*Server, error) {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Version == "" {
		opts.Version = "(devel)"
	}
	s := &Server{
		opts:       opts,
		listing:    agent.New(agent.Deps{Sets: opts.Tools.Sets}),
		workspaces: map[string]*opened{},
		sessions:   map[*sdk.ServerSession]*sessionRoot{},
	}
	s.logger = slog.New(quietShutdown{slog.NewTextHandler(logfWriter{opts.Logf}, &slog.HandlerOptions{Level: slog.LevelWarn})})
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "hashls", Title: "hashls", Version: opts.Version}, &sdk.ServerOptions{
		Instructions: Instructions(opts.Tools.Sets),
		Logger:       s.logger,
		Capabilities: &sdk.ServerCapabilities{
			Logging: &sdk.LoggingCapabilities{},
			Tools:   &sdk.ToolCapabilities{}, // the tool list never changes
		},
		RootsListChangedHandler: s.rootsChanged,
	})
	for _, t := range s.listing.Tools() {
		tool, err := mcpTool(t)
		if err != nil {
			return nil, err
		}
		s.srv.AddTool(tool, s.handler(t.Name()))
	}
	return s, nil
}

// Run serves one client on t until the client disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	err := s.srv.Run(ctx, t)
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("mcp session: %w", err)
	}
	return nil
}

// RunIO serves one client over r and w (stdin and stdout): newline-delimited
// JSON-RPC, nothing else written to w. A malformed frame gets a JSON-RPC
// error and the session goes on; batches are answered as the negotiated
// protocol version says (lineTransport).
func (s *Server) RunIO(ctx context.Context, r io.ReadCloser, w io.Writer) error {
	return s.Run(ctx, &lineTransport{r: r, w: w})
}

// Close closes every workspace the server opened.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	var errs []error
	for root, o := range s.workspaces {
		if err := o.ws.Close(); err != nil {
			errs = append(errs, fmt.Errorf("closing the workspace %s: %w", root, err))
		}
		delete(s.workspaces, root)
	}
	return errors.Join(errs...)
}

// mcpTool describes agent tool t as an MCP tool.
func mcpTool(t agent.Tool) (*sdk.Tool, error) {
	schema := t.Schema()
	var obj map[string]any
	if err := json.Unmarshal(schema, &obj); err != nil {
		return nil, fmt.Errorf("tool %s: its JSON schema does not parse (%w); this is a hashls bug", t.Name(), err)
	}
	if obj["type"] != "object" {
		return nil, fmt.Errorf("tool %s: its JSON schema is not of type object; this is a hashls bug", t.Name())
	}
	h := agent.HintsOf(t)
	closed := false
	ann := &sdk.ToolAnnotations{Title: h.Title, ReadOnlyHint: h.ReadOnly, IdempotentHint: h.Idempotent, OpenWorldHint: &closed}
	if !h.ReadOnly {
		d := h.Destructive
		ann.DestructiveHint = &d
	}
	return &sdk.Tool{
		Name:        t.Name(),
		Title:       h.Title,
		Description: agent.GuideOf(t),
		InputSchema: json.RawMessage(schema),
		Annotations: ann,
	}, nil
}

// handler runs tool name for one tools/call.
func (s *Server) handler(name string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		root, ask, err := s.rootFor(ctx, req)
		if err != nil {
			return s.errorResult(name, err), nil
		}
		if ask {
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{rootsInput: &sdk.ListRootsParams{}}}, nil
		}
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		call := agent.Call{Transport: "mcp", Progress: s.progress(ctx, req), ID: hub.NewCallID(), Who: attribution(req)}
		direct := func(ctx context.Context, fb hub.Fallback) (*agent.Result, error) {
			s.logFallback(ctx, req.Session, root, name, fb)
			ts, err := s.toolset(root)
			if err != nil {
				return nil, err
			}
			c := call
			c.Retry = fb.Retry
			if s.opts.runTool != nil {
				return s.opts.runTool(ctx, ts, name, args, c)
			}
			return ts.Run(ctx, name, args, c)
		}
		var res *agent.Result
		if s.opts.NoHub {
			res, err = direct(ctx, hub.Fallback{})
		} else {
			// An editor's server on the root is its hub: the call runs
			// there, against the open buffers (package hub).
			res, _, err = hub.Forward(ctx, s.opts.StateDir, root, hub.Request{ID: call.ID, Tool: name, Args: args, Transport: "mcp", Who: call.Who, Toolsets: s.opts.Tools.Sets.String()}, direct)
		}
		if ctx.Err() != nil {
			// The client cancelled (or went away): it reads no result.
			return nil, fmt.Errorf("tool %s: cancelled by the client: %w", name, ctx.Err())
		}
		if err == nil && res == nil {
			err = &agent.Error{Kind: agent.KindInternal, Message: fmt.Sprintf("tool %s returned no result (this is a hashls bug)", name)}
		}
		if err != nil {
			return s.errorResult(name, err), nil
		}
		return &sdk.CallToolResult{
			Content: []sdk.Content{&sdk.TextContent{Text: res.Text}},
			Meta:    sdk.Meta{ResultMeta: typed{Details: res.DetailsWithoutDiffs(), Changes: res.Changes, Shown: res.Shown, Warnings: res.Warnings, Diagnostics: res.Diagnostics}},
		}, nil
	}
}

// A result's text content is what the model reads: the tool's text, its
// rows as rows. Clients that have structuredContent show it to the model
// instead of the text when it is present (Codex does), so hashls sends
// none (and declares no outputSchema, which would oblige it to): the typed
// result, for editors and scripts, rides in _meta under ResultMeta (and
// ErrorMeta for a failure), which clients do not show to the model.
const (
	ResultMeta = "hashls/result"
	ErrorMeta  = "hashls/error"
)

// typed is a result's _meta[ResultMeta]: each diff is sent once, in
// changes[].diff; details leave out the diffs they repeat from there
// (agent.Result.DetailsWithoutDiffs).
type typed struct {
	Details     any                      `json:"details,omitempty"`
	Changes     []agent.Change           `json:"changes,omitempty"`
	Shown       []agent.Shown            `json:"shown,omitempty"`
	Warnings    []string                 `json:"warnings,omitempty"`
	Diagnostics *agent.DiagnosticsReport `json:"diagnostics,omitempty"`
}

// errorResult reports the failure of tool as an isError result, rendered
// for this server's caller (an MCP model with its toolsets): the message,
// the kind and the next step as text; the *agent.Error in
// _meta[ErrorMeta].
func (s *Server) errorResult(tool string, err error) *sdk.CallToolResult {
	ae := agent.Caller{Transport: "mcp", Sets: s.opts.Tools.Sets}.Explain(tool, err)
	return &sdk.CallToolResult{
		IsError: true,
		Content: []sdk.Content{&sdk.TextContent{Text: ae.Text()}},
		Meta:    sdk.Meta{ErrorMeta: ae},
	}
}

// progress forwards a tool's progress reports as notifications/progress
// when the client sent a progress token: throttled, strictly increasing.
func (s *Server) progress(ctx context.Context, req *sdk.CallToolRequest) agent.Progress {
	if req.Params == nil || req.Session == nil {
		return nil
	}
	tok := req.Params.GetProgressToken()
	if tok == nil {
		return nil
	}
	var (
		mu   sync.Mutex
		last = -1.0
		sent time.Time
	)
	return func(message string, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		p := float64(done)
		if p <= last || ctx.Err() != nil {
			return
		}
		final := total > 0 && done >= total
		if !final && !sent.IsZero() && time.Since(sent) < progressMinInterval {
			return
		}
		last, sent = p, time.Now()
		params := &sdk.ProgressNotificationParams{ProgressToken: tok, Message: message, Progress: p, Total: float64(max(total, 0))}
		if err := req.Session.NotifyProgress(ctx, params); err != nil {
			s.opts.Logf("mcp: notifications/progress: %v", err)
		}
	}
}

// log sends a diagnostic to stderr and, when the client has set a log
// level, to the client through MCP logging.
func (s *Server) log(ctx context.Context, ss *sdk.ServerSession, level sdk.LoggingLevel, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.opts.Logf("mcp: %s", msg)
	if ss == nil {
		return
	}
	//lint:ignore SA1019 MCP logging is how a server tells the client; deprecated only from protocol 2026-07-28 on
	if err := ss.Log(ctx, &sdk.LoggingMessageParams{Level: level, Logger: "hashls", Data: msg}); err != nil {
		s.opts.Logf("mcp: notifications/message: %v", err)
	}
}

// logFallback tells the client of a call (MCP logging) and stderr that
// the hub of root (an editor's hashls serve) did not run tool name, which
// therefore runs in this process (fb, hub.Forward): the call then sees the
// files on disk, not the editor's open buffers. Nothing is said when no
// hub runs.
func (s *Server) logFallback(ctx context.Context, ss *sdk.ServerSession, root, name string, fb hub.Fallback) {
	if msg := fb.Message(root, name); msg != "" {
		s.log(ctx, ss, "warning", "%s", msg)
	}
}

// Notify tells every client (through MCP logging, to those that set a
// level) and stderr of a server-side event: a language server starting,
// restarting or failing (langserver.Options.Notify), a recovery of the
// store (a call the hub did not run is told to its own client:
// logFallback). level is
// an MCP logging level ("info", "warning", "error").
func (s *Server) Notify(level, message string) {
	s.opts.Logf("mcp: %s", message)
	for ss := range s.srv.Sessions() {
		//lint:ignore SA1019 MCP logging is how a server tells the client; deprecated only from protocol 2026-07-28 on
		if err := ss.Log(context.Background(), &sdk.LoggingMessageParams{Level: sdk.LoggingLevel(level), Logger: "hashls", Data: message}); err != nil {
			s.opts.Logf("mcp: notifications/message: %v", err)
		}
	}
}

// toolset returns the tools over the workspace at root, opening it on
// first use.
func (s *Server) toolset(root string) (*agent.Toolset, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, &agent.Error{Kind: agent.KindIO, Message: "the hashls MCP server is shutting down; start it again"}
	}
	if o, ok := s.workspaces[root]; ok {
		return o.tools, nil
	}
	ws, err := workspace.Open(root, workspace.Options{StateDir: s.opts.StateDir})
	if err != nil {
		ae := agent.AsError(err)
		return nil, &agent.Error{Kind: ae.Kind, Message: fmt.Sprintf("opening the workspace %s: %s", root, ae.Message), Err: err}
	}
	for _, r := range ws.Recovered() {
		go s.Notify("warning", fmt.Sprintf("the store of %s finished a change an earlier process left half done: %v", root, r))
	}
	o := &opened{ws: ws, tools: s.opts.Tools.For(ws)}
	s.workspaces[root] = o
	return o.tools, nil
}

// quietShutdown drops the SDK's "server run cancelled" error, which it logs
// on every clean shutdown (SIGINT, SIGTERM) of a stdio server.
type quietShutdown struct{ slog.Handler }

func (q quietShutdown) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "server run cancelled" {
		return nil
	}
	return q.Handler.Handle(ctx, r)
}

func (q quietShutdown) WithAttrs(as []slog.Attr) slog.Handler {
	return quietShutdown{q.Handler.WithAttrs(as)}
}

func (q quietShutdown) WithGroup(name string) slog.Handler {
	return quietShutdown{q.Handler.WithGroup(name)}
}

// logfWriter turns the SDK's slog lines into Logf calls.
type logfWriter struct{ logf func(string, ...any) }

func (w logfWriter) Write(p []byte) (int, error) {
	w.logf("mcp sdk: %s", trimNL(string(p)))
	return len(p), nil
}

func trimNL(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}
