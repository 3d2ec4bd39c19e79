// Package agent holds the tools that coding agents call (read, edit, write,
// search, find, ...): one file per tool, each with its JSON schema,
// validation, execution and result text plus details. The registry lists
// them; package lsp and the CLI run them through Run.
//
// The entry points are Tools (the registry) and Run (validate arguments and
// execute one tool against an Env).
package agent
