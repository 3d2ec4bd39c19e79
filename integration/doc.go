// Package integration holds the editor plugins and the tests that drive
// them against the built hashls binary: the Neovim plugin (integration/nvim,
// run in headless Neovim), the VS Code extension (integration/vscode, its
// tests against the real server; a code-server + Chromium test is opt-in)
// a third-party LSP client test (integration/lsp-e2e, run from package
// lsp), and the MCP tests (integration/mcp-e2e: the official conformance
// suite over Streamable HTTP and the TypeScript SDK client over stdio).
//
// The Go tests here build hashls into a temporary directory and run an
// editor's own test script against it; they skip with a message when the
// editor or its node packages are not installed. No Go package imports this
// one.
package integration
