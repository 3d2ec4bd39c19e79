package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hashls/hashls/agent"
)

// Options configures Serve.
type Options struct {
	// StateDir is where the workspace store lives ("" = the workspace
	// default: $HASHLS_STATE_DIR, else the OS's, see workspace.StateDir). The
	// initializationOption "stateDir" overrides it.
	StateDir string
	// Logf receives diagnostics for stderr. nil discards them. Serve never
	// writes anything but protocol frames to rwc.
	Logf func(format string, args ...any)
	// Version is reported as serverInfo.version.
	Version string
	// Root, when set, is the workspace root regardless of what the client
	// sends in initialize (workspaceFolders, rootUri, rootPath).
	Root string
	// Hub makes the server the root's hub once its workspace is open
	// (package hub): other hashls processes on the root forward their
	// tool calls to it. When another process is the hub already, the server
	// works without being one.
	Hub bool

	// Tools are the dependencies of the tools, built once by the process
	// (package options) as for every transport: Tools.Sets are the
	// toolsets run as commands until the setting toolsets chooses others
	// (zero value: every tool; hashls --toolsets), Tools.LangServers runs
	// the language servers of the lsp tool and of diagnostics after edits
	// (nil: none; hashls uses its own clients, not the editor's: see
	// README "Language servers"). Each run gets a tool set over the
	// workspace with the run's edit settings (the person's or an agent's,
	// from the settings) and the server's resolver, which follows the open
	// documents.
	Tools agent.Deps

	// tools and runTool replace the agent registry in tests.
	tools   func() []agent.Tool
	runTool func(ctx context.Context, env *agent.Env, name string, args []byte) (*agent.Result, error)
	// onServer lets white-box tests see the server.
	onServer func(*server)
}

// ErrExitWithoutShutdown is returned by Serve when the client sent exit
// without a prior shutdown request; the LSP specification asks the server
// process to exit with code 1 then.
var ErrExitWithoutShutdown = errors.New("lsp: exit notification without a prior shutdown request")

// Serve speaks LSP (Content-Length framing, JSON-RPC 2.0) over rwc until the
// client sends exit, the transport ends, or ctx is cancelled. It returns nil
// after a clean shutdown+exit or when the client closes the connection,
// ErrExitWithoutShutdown after an exit without shutdown, and the transport
// error otherwise. Serve closes rwc before returning.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) error {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.tools == nil {
		opts.tools = agent.New(agent.Deps{}).Tools
	}
	if opts.runTool == nil {
		opts.runTool = func(ctx context.Context, env *agent.Env, name string, args []byte) (*agent.Result, error) {
			d := opts.Tools
			// The server decides which tools a run may use (the settings'
			// toolsets; a forwarded call was chosen by its own process's):
			// the run's tool set offers them all.
			d.Resolver, d.Edit, d.Sets = env.Resolver, env.Edit, agent.Sets{}
			ts := d.For(env.WS)
			return ts.Run(ctx, name, args, agent.Call{Progress: env.Progress, Transport: env.Transport, ID: env.CallID, Who: env.Who, Offered: env.Offered})
		}
	}
	s := newServer(opts)
	defer s.close()
	if opts.onServer != nil {
		opts.onServer(s)
	}

	conn := jsonrpc2.NewConn(newStream(rwc, opts.Logf), jsonrpc2.WithCodec(codec{}))
	// The client dispatcher exists before the read loop starts, so handlers
	// see it without a race; it also rides in the context for helpers.
	s.conn = conn
	s.client = protocol.ClientDispatcher(conn)
	ctx = protocol.WithClient(ctx, s.client)
	conn.Go(ctx, s.handler())

	select {
	case <-conn.Done():
	case <-s.exited:
	case <-ctx.Done():
	}
	s.cancelInflight()
	closeConn(conn, rwc)

	if s.exitedEarly() {
		return ErrExitWithoutShutdown
	}
	if err := conn.Err(); err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("lsp: connection failed: %w", err)
	}
	return nil
}

// closeConn ends the session: it closes the transport (which ends a read
// blocked on it, when the transport supports that) and the connection, but
// waits at most 50ms: after exit nothing is left to write, and a reader
// blocked on a stdin whose Close does nothing cannot be interrupted anyway.
// (Stdio's Close closes os.Stdin.)
func closeConn(conn jsonrpc2.Conn, rwc io.Closer) {
	_ = rwc.Close()
	done := make(chan struct{})
	go func() {
		_ = conn.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(50 * time.Millisecond):
	}
}

// asyncMethods are the requests that may run long or call back into the
// client (workspace/applyEdit, window/workDoneProgress/create); they release
// the read loop with jsonrpc2.Async. Everything else, notifications in
// particular, runs inline on the read loop, in wire order.
var asyncMethods = map[string]bool{
	protocol.MethodWorkspaceExecuteCommand: true,
}

// handler builds the whole handler chain: cancellation, lifecycle gating,
// panic recovery, the async split and typed dispatch.
//
// Cancellation is done here rather than with protocol.CancelHandler: that
// derives a context.WithCancel from jsonrpc2's pooled per-request context,
// whose propagation goroutine can touch the request after it was recycled
// (a nil-parent panic, seen in tests). Each call instead runs under a
// cancellable child of the connection context (jsonrpc2.DetachContext).
func (s *server) handler() jsonrpc2.Handler {
	dispatch := protocol.ServerHandler(s, nil)
	mu, inflight := &s.reqMu, s.inflight
	return func(reqCtx context.Context, req *jsonrpc2.Request) (result any, err error) {
		method := strings.Clone(req.Method()) // the request's own bytes die with the frame
		isCall := req.IsCall()
		defer func() {
			if r := recover(); r != nil {
				s.logf("lsp: panic handling %s: %v\n%s", method, r, debug.Stack())
				result = nil
				err = nil
				if isCall {
					err = jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error handling %s: %v (this is a hashls bug; please report it)", method, r)
				}
			}
		}()
		if !isCall {
			if method == protocol.MethodCancelRequest {
				var params protocol.CancelParams
				if err := protocol.Unmarshal(req.Params(), &params); err == nil {
					var id jsonrpc2.ID
					switch v := params.ID.(type) {
					case protocol.Integer:
						id = jsonrpc2.NewNumberID(int64(v))
					case protocol.String:
						id = jsonrpc2.NewStringID(string(v))
					}
					mu.Lock()
					cancel := inflight[id]
					mu.Unlock()
					if cancel != nil {
						cancel()
					}
				}
				return nil, nil
			}
			if !s.acceptNotification(method) {
				return nil, nil
			}
			if method == protocol.MethodTextDocumentDidChange {
				// Decoded here, strictly: see didChangeRaw.
				if err := s.didChangeRaw(reqCtx, req.Params()); err != nil {
					s.logf("lsp: %s: %v", method, err)
				}
				return nil, nil
			}
			// A notification handler error would end the connection: log it.
			if _, err := dispatch(reqCtx, req); err != nil {
				s.logf("lsp: %s: %v", method, err)
			}
			return nil, nil
		}
		if err := s.acceptRequest(method); err != nil {
			return nil, err
		}
		// The request context is cancelled by $/cancelRequest only, never
		// when the request completes: smacker/go-tree-sitter's ParseCtx can
		// set a pooled parser's cancellation flag after the parse finished
		// if ctx is cancelled then, poisoning the parser for every later
		// parse ("operation limit was hit"). Not calling cancel leaks
		// nothing: the parent (WithoutCancel) has no Done channel, so the
		// child is not registered anywhere.
		id := req.ID()
		ctx, cancel := context.WithCancel(context.WithoutCancel(jsonrpc2.DetachContext(reqCtx)))
		mu.Lock()
		inflight[id] = cancel
		mu.Unlock()
		defer func() {
			mu.Lock()
			delete(inflight, id)
			mu.Unlock()
		}()
		if asyncMethods[method] {
			jsonrpc2.Async(reqCtx)
		}
		res, err := dispatch(ctx, req)
		if err != nil && ctx.Err() != nil {
			return nil, protocol.ErrRequestCancelled
		}
		return res, err
	}
}

// cancelInflight cancels every request still running (the session ends).
func (s *server) cancelInflight() {
	s.reqMu.Lock()
	defer s.reqMu.Unlock()
	for _, cancel := range s.inflight {
		cancel()
	}
}

// codec marshals payloads with the protocol package's union-aware codec
// (the one protocol.NewServer installs, which is unexported).
type codec struct{}

func (codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case *jsonrpc2.RawMessage:
		if m == nil || *m == nil {
			return []byte("null"), nil
		}
		return *m, nil
	}
	return protocol.Marshal(v)
}

func (codec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}

// Stdio returns the process's stdin and stdout as one io.ReadWriteCloser for
// Serve (`hashls serve --stdio`).
func Stdio() io.ReadWriteCloser { return stdio{} }

type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error {
	err := os.Stdin.Close()
	if err2 := os.Stdout.Close(); err == nil {
		err = err2
	}
	return err
}
