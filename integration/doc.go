// Package integration holds the editor plugins (integration/nvim,
// integration/lsp-e2e) and the tests that drive real editors against the
// built hashls binary.
//
// The Go tests here build hashls into a temporary directory and run an
// editor's own test script against it; they skip with a message when the
// editor is not installed. No Go package imports this one.
package integration
