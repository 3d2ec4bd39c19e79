// Package agent holds the tools that coding agents call (read, edit, write,
// search, find, ...): one file per tool, each with its JSON schema,
// validation, execution and result text plus details. The registry lists
// them; package lsp and the CLI run them through Run. Beside the hashline
// tools sit the file tools (read_file, edit_file, ... : filetools.go), the
// sha256-gated contract on the same engine. The lsp tool (lsp.go) asks the
// project's language servers through package langserver (Deps.LangServers);
// renames and code actions it applies go through the commit path, and
// edit, write, edit_file and apply_patch can report the servers' new
// diagnostics after a change (after_edit.go). Tools come in named toolsets
// (toolsets.go: hashline, history, stale-file, patch, lsp; ParseSets), of
// which Deps.Sets chooses the ones a Toolset offers. Where two tools do one
// job for the two families (read/read_file, write/write_file/create_file,
// search/search_files, find/glob, restore/restore_file), they are faces of
// one core (displayLines, the line model of both reads; writeFile;
// runSearch; runFind; restoreTrash). Every error is an *Error with a kind from one taxonomy
// (KindStale and the constants beside it, decided in KindOf) and a
// suggested action whose tools are jobs ({read}, {create}, ...) that a
// transport renders for its caller with Caller.Explain.
//
// The entry points are New and Toolset.Tools (the registry), Toolset.Run
// (validate arguments and execute one tool against an Env) and
// Caller.Explain (an error as a caller reads it).
package agent
