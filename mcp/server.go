package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hashls/hashls/agent"
	"github.com/hashls/hashls/hub"
	"github.com/hashls/hashls/langserver"
	"github.com/hashls/hashls/treesitter"
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
	// Edit are the edit tool's settings (seen-lines check, header form);
	// the CLI takes them from HASHLS_SEEN_LINES and HASHLS_EDIT_HEADERS,
	// which an MCP client's server configuration can set.
	Edit agent.EditSettings
	// NoHub runs every call in this process even when the root has a hub
	// (an editor's hashls serve, package hub) to forward it to.
	NoHub bool
	// LangServers runs the language servers of the lsp tool and of
	// diagnostics after edits (nil: none).
	LangServers *langserver.Pool

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

// instructions are sent at initialize; clients show them to the model.
const instructions = `hashls is a precise, safe file-editing engine. read shows a file as ¶PATH#TAG then N:TEXT rows; edit takes sections starting with that ¶PATH#TAG header, then ops on the original line numbers (replace N..M:, delete N..M, insert before|after N:, insert head:|tail:, replace block N:, delete block N, insert after block N:) with +TEXT body rows. A stale tag is recovered when provably safe, else refused: read again and redo the edit. Everything replaced goes to the trash (trash, restore) and every change is in the audit log (audit).`

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
		listing:    agent.New(agent.Deps{}),
		workspaces: map[string]*opened{},
		sessions:   map[*sdk.ServerSession]*sessionRoot{},
	}
	s.logger = slog.New(quietShutdown{slog.NewTextHandler(logfWriter{opts.Logf}, &slog.HandlerOptions{Level: slog.LevelWarn})})
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "hashls", Title: "hashls", Version: opts.Version}, &sdk.ServerOptions{
		Instructions: instructions,
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
// JSON-RPC, nothing else written to w.
func (s *Server) RunIO(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	return s.Run(ctx, &sdk.IOTransport{Reader: r, Writer: w})
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
		Name:         t.Name(),
		Title:        h.Title,
		Description:  agent.GuideOf(t),
		InputSchema:  json.RawMessage(schema),
		OutputSchema: outputSchema,
		Annotations:  ann,
	}, nil
}

// handler runs tool name for one tools/call.
func (s *Server) handler(name string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		root, ask, err := s.rootFor(ctx, req)
		if err != nil {
			return errorResult(err), nil
		}
		if ask {
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{rootsInput: &sdk.ListRootsParams{}}}, nil
		}
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		call := agent.Call{Transport: "mcp", Progress: s.progress(ctx, req), ID: hub.NewCallID(), Who: attribution(req)}
		direct := func(ctx context.Context, retry bool) (*agent.Result, error) {
			ts, err := s.toolset(root)
			if err != nil {
				return nil, err
			}
			c := call
			c.Retry = retry
			if s.opts.runTool != nil {
				return s.opts.runTool(ctx, ts, name, args, c)
			}
			return ts.Run(ctx, name, args, c)
		}
		var res *agent.Result
		if s.opts.NoHub {
			res, err = direct(ctx, false)
		} else {
			// An editor's server on the root is its hub: the call runs
			// there, against the open buffers (package hub).
			res, _, err = hub.Forward(ctx, s.opts.StateDir, root, hub.Request{ID: call.ID, Tool: name, Args: args, Transport: "mcp", Who: call.Who}, direct)
		}
		if ctx.Err() != nil {
			// The client cancelled (or went away): it reads no result.
			return nil, fmt.Errorf("tool %s: cancelled by the client: %w", name, ctx.Err())
		}
		if err == nil && res == nil {
			err = &agent.Error{Kind: agent.KindInternal, Message: fmt.Sprintf("tool %s returned no result (this is a hashls bug)", name)}
		}
		if err != nil {
			return errorResult(err), nil
		}
		return &sdk.CallToolResult{
			Content:           []sdk.Content{&sdk.TextContent{Text: res.Text}},
			StructuredContent: output{Text: res.Text, Details: res.DetailsWithoutDiffs(), Changes: res.Changes, Shown: res.Shown, Warnings: res.Warnings},
		}, nil
	}
}

// output is every tool's structuredContent. Each diff is sent once, in
// changes[].diff: details leave out the diffs they repeat from there
// (agent.Result.DetailsWithoutDiffs).
type output struct {
	Text     string         `json:"text"`
	Details  any            `json:"details,omitempty"`
	Changes  []agent.Change `json:"changes,omitempty"`
	Shown    []agent.Shown  `json:"shown,omitempty"`
	Warnings []string       `json:"warnings,omitempty"`
	Error    *toolError     `json:"error,omitempty"`
}

// toolError is a failed tool run: its kind (agent.Kind*), the message and
// the next step.
type toolError struct {
	Kind            string `json:"kind"`
	Message         string `json:"message"`
	SuggestedAction string `json:"suggestedAction"`
}

// errorResult reports a tool failure as an isError result.
func errorResult(err error) *sdk.CallToolResult {
	ae := agent.AsError(err)
	te := &toolError{Kind: ae.Kind, Message: ae.Message, SuggestedAction: ae.SuggestedAction}
	text := fmt.Sprintf("%s\n\nerror kind: %s; next: %s", ae.Message, te.Kind, te.SuggestedAction)
	return &sdk.CallToolResult{
		IsError:           true,
		Content:           []sdk.Content{&sdk.TextContent{Text: text}},
		StructuredContent: output{Text: text, Error: te},
	}
}

// outputSchema describes output, for every tool.
var outputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "text": {"type": "string", "description": "what the tool shows a model: the same text as the result's text content"},
    "details": {"description": "the tool's structured details (sha256s, tags, per-file results, pages); a changed file's diff is not repeated here but is in changes[].diff"},
    "changes": {
      "type": "array",
      "description": "the files the tool changed, in order",
      "items": {
        "type": "object",
        "properties": {
          "path": {"type": "string", "description": "root-relative path"},
          "op": {"type": "string", "enum": ["create", "update", "delete"]},
          "movedFrom": {"type": "string"},
          "oldSha256": {"type": "string"},
          "newSha256": {"type": "string"},
          "oldTag": {"type": "string"},
          "newTag": {"type": "string", "description": "the file's new ¶PATH#TAG tag"},
          "trashIds": {"type": "array", "items": {"type": "integer"}},
          "auditId": {"type": "integer"},
          "overlay": {"type": "boolean"},
          "diff": {"type": "string", "description": "the file's unified diff: the one place a result carries it"},
          "note": {"type": "string"}
        },
        "required": ["path", "op"]
      }
    },
    "shown": {
      "type": "array",
      "description": "the files the result shows under a tag: what an edit may name next",
      "items": {
        "type": "object",
        "properties": {
          "path": {"type": "string"},
          "tag": {"type": "string"},
          "sha256": {"type": "string"}
        },
        "required": ["path", "tag", "sha256"]
      }
    },
    "warnings": {"type": "array", "items": {"type": "string"}, "description": "what the caller should know although the tool succeeded"},
    "error": {
      "type": "object",
      "description": "set when isError is true",
      "properties": {
        "kind": {"type": "string", "description": "stale_file, not_found, already_exists, permission_denied, invalid_argument, conflict, too_large, binary_file, outside_root, invalid_input, no_change, store, io or internal"},
        "message": {"type": "string"},
        "suggestedAction": {"type": "string", "description": "the next step to take"}
      },
      "required": ["kind", "message", "suggestedAction"]
    }
  },
  "required": ["text"]
}`)

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
		s.opts.Logf("mcp: store recovery at open: %v", r)
	}
	o := &opened{ws: ws, tools: agent.New(agent.Deps{WS: ws, Resolver: &treesitter.Resolver{}, Edit: s.opts.Edit, LangServers: s.opts.LangServers})}
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
