// Package langserver is hashls's client of real language servers (gopls,
// pyright or basedpyright, typescript-language-server, rust-analyzer,
// clangd): it starts them, keeps documents in sync with what the tools see
// (open editor buffers included), and turns their answers into plain values
// (Location, Diagnostic, WorkspaceEdit with byte offsets) for the agent's
// `lsp` tool and for diagnostics after edits.
//
// The entry points are NewPool (one per long-lived process: `hashls serve`,
// `hashls mcp`, or one CLI call) and Pool.For, which gives the Manager of
// one workspace root. A Manager routes a file to its server by file type
// (Config, defaults detected from root markers and PATH, overridden by
// `.hashls.json` at the root), runs one process per server and root,
// restarts a server that died or stopped answering (a request that times
// out kills it; the next request starts a fresh one), and stops servers
// idle for Options.IdleTimeout. Server stderr goes to Options.Logf, never to
// stdout.
//
// Positions are 1-based lines and byte columns; UTF-16 exists only in
// this package's wire conversion (text.go). The package never writes files:
// edits a server proposes come back as a WorkspaceEdit the caller applies
// through the workspace's commit path.
//
// Errors: a server not installed and a file no server handles are the
// package's Error (internal/kinded's: NotFound wrapping exec.ErrNotFound,
// and Usage wrapping ErrNoServer); a request the server did not answer in time wraps
// ErrTimeout.
//
// Files: config.go (server definitions, detection, .hashls.json),
// client.go (one server process: JSON-RPC, initialize, diagnostics cache,
// timeouts), manager.go (routing, document sync, the typed requests),
// text.go (positions, UTF-16, wire types).
package langserver
