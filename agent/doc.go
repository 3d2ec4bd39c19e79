// Package agent holds the tools that coding agents call (read, edit, write,
// search, find, ...): one file per tool, each with its JSON schema,
// validation, execution and result text plus details. The registry lists
// them; package lsp and the CLI run them through Run. Beside the hashline
// tools sit the file tools (read_file, edit_file, ... : filetools.go), the
// sha256-gated contract on the same engine. The lsp tool (lsp.go) asks the
// project's language servers through package langserver (Deps.LangServers);
// renames and code actions it applies go through the commit path, and
// edit, write, edit_file and apply_patch can report the servers' new
// diagnostics after a change (after_edit.go). Every error is an *Error with a
// kind from one taxonomy (KindStale and the constants beside it) and a
// suggested action.
//
// The entry points are Tools (the registry) and Run (validate arguments and
// execute one tool against an Env).
package agent
