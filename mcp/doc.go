// Package mcp serves the agent tools over the Model Context Protocol, for
// terminal agents (Claude Code, Codex CLI, Gemini CLI, ...): `hashls mcp` on
// stdio and `hashls mcp --http ADDR` over Streamable HTTP. It holds no tool
// logic: every MCP tool is an agent tool with its JSON schema, description
// and hints, run through agent.Toolset.Run with transport "mcp", against the
// same store as the CLI and the language server, so a tag minted here is
// accepted there and the other way round.
//
// The entry points are New (a Server over the tools), Server.Run (one client
// on a transport: stdio, or the SDK's in-memory transports in tests) and
// Server.ServeHTTP (Streamable HTTP on a listener; CheckHTTPAddr decides
// whether an address may be served and with which token).
//
// Wire contract: each tool's inputSchema is the agent tool's schema; a
// result carries the tool's text as text content and {text, details,
// changes, shown, warnings} as structuredContent, where each changed file's
// diff is in changes[].diff only (details, which the CLI and the LSP send
// with their diffs, leave them out here: an edit's result would repeat a
// diff three times); a tool failure is a result with isError
// set, its text the message plus the next step, and structuredContent
// {text, error: {kind, message, suggestedAction}}. Protocol errors are kept for
// protocol misuse (an unknown tool, a malformed request). A progress token
// on tools/call gets notifications/progress from tools that report progress;
// notifications/cancelled cancels the tool's context. Diagnostics go to the
// client through MCP logging (once it sets a level) and to stderr, never to
// stdout.
package mcp
