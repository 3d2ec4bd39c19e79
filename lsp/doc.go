// Package lsp is the hashls language server: the editor-facing edge of the
// engine. It negotiates capabilities (initialize/shutdown/exit), mirrors open
// documents into workspace overlays (incremental sync, UTF-16 positions
// converted in mapper.go only), exposes every agent tool as the command
// hashls.<tool> through workspace/executeCommand, sends edits to open
// documents back to the editor as versioned workspace/applyEdit requests
// (bufedit.go), and serves tree-sitter document symbols, folding ranges,
// selection ranges and block code actions. It reports $/progress for long
// tool runs and a hashls/activity notification after every tool run, its
// own and those of other hashls processes on the root (read from the store's
// audit log). With Options.Hub it is its root's hub (package hub): `hashls
// tool` and `hashls mcp` forward their calls to it, which run here against
// the open buffers.
//
// Open documents are also followed by package treesitter (OpenDocument,
// EditDocument, CloseDocument, called under the server's mutex so they see
// the changes in order): each content change is passed as the byte offsets
// the mapper computed (a whole-document change as its minimal edit), so
// symbols, folding, selection ranges, code actions and block ops on an open
// document reparse incrementally. A didChange whose range changes come last
// first (as editors send a multi-edit, such as the answer to a 50-hunk
// applyEdit) is applied in one pass over one line index and passed on as
// one edit spanning them; other orders are applied change by change. The
// document's line index is updated from the changed bytes, not rebuilt.
// didClose and the end of the session free the document's trees.
//
// The entry point is Serve, which speaks LSP over one io.ReadWriteCloser
// (Stdio() for `hashls serve --stdio`). Tool logic lives in package agent;
// this package only translates between the wire and the tools.
//
// # Wire contract for editor plugins
//
// Commands (workspace/executeCommand, one JSON object argument):
//
//   - hashls.<tool> {the tool's arguments} → {"text", "details"}. Failures
//     are JSON-RPC errors: code -32602 (InvalidParams) for bad arguments,
//     -32803 (RequestFailed) otherwise, -32800 when cancelled; error.data is
//     {"kind": <agent error kind, e.g. "stale_file">, "suggestedAction":
//     <what to do next>, "tool": <name>} (the kinds: agent.KindStale and
//     the constants beside it).
//   - hashls.selectBlock {"uri", "line"} → {"uri", "range", "startLine",
//     "endLine"}: the block beginning on (or enclosing) the 1-based line.
//   - hashls.copyBlockAnchor {"uri", "line"} → {"text": "¶PATH#TAG\nreplace
//     block N:", "anchor", "tag", "path", "startLine", "endLine", "range"};
//     the tag is minted by the read tool over the current buffer.
//   - hashls.outline {"uri"} → the read tool's {"text", "details"} for the
//     file (its structural summary).
//   - hashls.toolSchemas {} → {"tools": [{"name", "description",
//     "inputSchema"}]}: every tool runnable as hashls.<name>, sorted by
//     name, with the JSON schema of its arguments object.
//   - hashls.review {"action": "list"|"keep"|"undo", "uri"?, "hunk"?,
//     "turn"?} → {"files"?, "kept"?, "total", "text"?, "changes"?}: the
//     review of other callers' changes (below). list: every file's hunks
//     (ReviewFile). keep: the hunk (uri and hunk), the file's hunks (uri),
//     a turn's hunks in every file (turn), or all; they stay as they are
//     and leave the review. undo: the hunk or the file's hunks get their
//     old text back through the commit path, as the person's change
//     (tool "review", transport lsp): an open document's buffer changes
//     (its undo history has it), a closed file's disk. A turn is undone
//     with hashls.revert {"turn"}, which restores every file it changed.
//
// Code actions at the cursor: refactor.hashls.deleteBlock (a versioned
// edit), refactor.hashls.selectBlock and refactor.hashls.copyBlockAnchor
// (commands above), source.hashls.outline.
//
// Requests to the client: workspace/applyEdit, the versioned text edits of
// an open document (one TextEdit per changed region, all in one
// TextDocumentEdit; each range names the document before the edit, as the
// LSP says), or (move_file, apply_patch moves of an open document,
// when workspace.workspaceEdit.resourceOperations holds "rename") one
// RenameFile operation that never overwrites: the editor moves the file and
// its buffer follows; it is expected to announce the buffer under its new
// name with didClose and didOpen.
//
// Review (review.go, review_server.go; the "review" setting, on by
// default): the changes that did not come from this editor (calls other
// processes forward through the hub, changes other processes make on
// closed files) are marked hunk by hunk until the person keeps or undoes
// each one. hashls/review {uri, path, version?, hunks: [{id, line, added,
// removed, removedLines, removedCut?, agents, turns?, tools?}], total}
// sends a file's hunks (lines are 0-based; version is the open document's
// the lines refer to, absent for a closed file) whenever they change or
// move, and once with no hunks when the file is reviewed; total counts
// every file's. The person's typing inside a hunk changes the hunk;
// outside, it moves the hunks after it. An agent's edit to an open
// document is labelled with its name in the editor's undo history; the
// editor's own commands are never refused for lines no read displayed
// (the person sees the buffer).
//
// Notifications from the server: hashls/activity after every tool run
// (see Activity: tool, paths, outcome, errorKind, message, auditIds, diff,
// durationMs, transport, time, external, forwarded, callId, agent, turn,
// readOnly). The server's
// own runs carry transport "lsp", or the caller's ("cli", "mcp") with
// forwarded true for calls forwarded through the hub. Runs of other
// processes (a `hashls tool` without a hub or with --no-hub, `hashls mcp`,
// recovery) are seen in the store's audit log (polled through SQLite's
// data_version, every 200ms) and reported with external true, the audit
// row's transport and time, their audit ids and paths, and no diff
// (hashls.audit has it); one entry per tool run (rows sharing a call id).
// $/progress (work-done progress) for tools that report
// progress or run longer than 400ms, window/logMessage for warnings.
//
// Settings, from initializationOptions and workspace/didChangeConfiguration,
// at the top level or under "hashls" (see Settings): progress, activity,
// logLevel, applyEditTimeoutMs, stateDir (initializationOptions only),
// review, and
// the edit tools' defaults: seenLines, editHeaders, diagnosticsMs and
// formatOnWrite (diagnostics after edits and format-on-write; a call's own
// arguments override them), and toolsets (the tools run as hashls.NAME
// commands; default all). Tool errors are rendered for an editor
// (agent.Caller): their next step names tools it has.
//
// # Files
//
// One per LSP area: serve.go (Serve, the handler chain, lifecycle gating,
// cancellation), stream.go (tolerant Content-Length framing), server.go
// (initialize, settings, shutdown), uri.go (every URI conversion),
// mapper.go (UTF-16 <-> byte offsets over internal/lspmap, minimal edits), text_sync.go
// (didOpen/didChange/didClose, also reported to treesitter), command.go (executeCommand), bufedit.go
// (workspace.BufferEditor and BufferRenamer over workspace/applyEdit), symbols.go
// (documentSymbol, foldingRange, selectionRange), code_action.go (block
// actions and their commands), progress.go (work-done progress, activity,
// log messages), external.go (the hub endpoint and the activity of other
// processes), review.go (the review's model: a file's text and its
// unreviewed hunks), review_server.go (the review in the server: agents'
// edits, the documents, hashls/review and hashls.review).
package lsp
