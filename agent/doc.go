// Package agent holds the tools that coding agents call (read, edit, write,
// search, find, ...), each with its JSON schema, validation, execution and
// result text plus details. A tool lives in the file of its name
// (apply_patch.go, read_file.go, ...), except where tools of one job share
// one: delete_file.go holds delete_file, move_file and restore_file;
// trash.go trash, restore and audit; search_files.go search_files and
// glob; write_file.go write_file and create_file; lsp.go lsp and lsp_edit.
// A tool's Run parses its arguments, does the work and renders its result
// from plain values (renderFind, renderSearch, applyPatchResult,
// readFileText, listDirectoryText, editResult: render_test.go renders them
// alone). The registry (registry.go) lists them; every transport (the CLI,
// packages mcp and lsp) builds the tool set of a workspace with Deps.For
// from the Deps the process built once (package options; lsp per run,
// with the run's edit settings), and runs them through Toolset.Run. Beside the hashline tools sit the
// file tools (read_file, edit_file, ... : filetools.go), the sha256-gated
// contract on the same engine. The lsp tool (lsp.go) asks the
// project's language servers through package langserver (Deps.LangServers);
// renames and code actions it applies go through the commit path, and
// edit, write, edit_file and apply_patch can report the servers' new
// diagnostics after a change (after_edit.go). Tools come in named toolsets
// (toolsets.go: hashline, history, stale-file, patch, lsp; ParseSets), of
// which Deps.Sets chooses the ones a Toolset offers. Where two tools do one
// job for the two families (read/read_file, write/write_file/create_file,
// search/search_files, find/glob, restore/restore_file), they are faces of
// one core (loadText, the loading core of both reads; writeFile;
// runSearch; runFind; restoreTrash). Every error is an *Error with a kind
// from one taxonomy (KindStale and the constants beside it, decided in
// KindOf) and a suggested action whose tools are jobs ({read}, {create},
// ...) that a transport renders for its caller with Caller.Explain.
//
// The entry points are New, Deps.For and Toolset.Tools (the registry),
// Toolset.Run (validate arguments and execute one tool against an Env),
// KindOf and AsError (errors.go: an error's kind, decided in one place,
// and the *Error of any error) and Caller.Explain (an error as a caller
// reads it).
package agent
