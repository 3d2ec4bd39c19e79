// Package lsp is the hashls language server: the editor-facing edge of the
// engine. It negotiates capabilities (initialize/shutdown/exit), mirrors open
// documents into workspace overlays (incremental sync, UTF-16 positions
// converted in mapper.go only), exposes every agent tool as the command
// hashls.<tool> through workspace/executeCommand, sends edits to open
// documents back to the editor as versioned workspace/applyEdit requests
// (bufedit.go), and serves tree-sitter document symbols, folding ranges,
// selection ranges and block code actions. It reports $/progress for long
// tool runs and a hashls/activity notification after every tool run.
//
// The entry point is Serve, which speaks LSP over one io.ReadWriteCloser
// (stdio for `hashls serve`). Tool logic lives in package agent; this
// package only translates between the wire and the tools.
//
// Files, one per LSP area: serve.go (Serve, the handler chain, lifecycle
// gating), stream.go (tolerant Content-Length framing), server.go
// (initialize, settings, shutdown), uri.go (every URI conversion),
// mapper.go (UTF-16 <-> byte offsets), text_sync.go (didOpen/didChange/
// didClose), command.go (executeCommand), bufedit.go (workspace.BufferEditor
// over workspace/applyEdit), symbols.go (documentSymbol, foldingRange,
// selectionRange), code_action.go (block actions), progress.go (work-done
// progress, activity, log messages).
package lsp
