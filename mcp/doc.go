// Package mcp serves the agent tools over the Model Context Protocol, for
// terminal agents (Claude Code, Codex CLI, Gemini CLI, ...): `hashls mcp` on
// stdio and `hashls mcp --http ADDR` over Streamable HTTP. It holds no tool
// logic: every MCP tool is an agent tool with its JSON schema, description
// and hints, run through agent.Toolset.Run with transport "mcp", against the
// same store as the CLI and the language server, so a tag minted here is
// accepted there and the other way round.
//
// The entry points are New (a Server over the tools, which it builds for
// each workspace from Options.Tools with agent.Deps.For), Server.RunIO (one
// client on stdin/stdout), Server.Run (one client on any SDK transport: the
// in-memory ones in tests), Server.ServeHTTP (Streamable HTTP on a
// listener; CheckHTTPAddr decides whether an address may be served and
// with which token) and Server.Close.
//
// Wire contract: the tools offered are those of Options.Tools.Sets (the toolsets;
// the CLI's default agent.DefaultToolsets), each with the agent tool's
// schema as inputSchema, its description (agent.GuideOf) and annotations
// from its hints; Instructions tells the model how the offered tools fit
// together. A result is what the model reads: the tool's text as its one
// text content, and no structuredContent (clients show structuredContent to
// the model instead of the text when it is present) and so no outputSchema.
// Programs read the typed result in _meta[ResultMeta] ({details, changes,
// shown, warnings, diagnostics}; each changed file's diff once, in
// changes[].diff). A tool failure is a result with isError set, its text
// the message, kind and next step rendered for an MCP model
// (agent.Caller.Explain: tools of its toolsets, no command lines), and the
// *agent.Error in _meta[ErrorMeta]. Protocol errors are kept for protocol
// misuse (an unknown tool, a malformed request). A progress token on
// tools/call gets notifications/progress from tools that report progress;
// notifications/cancelled cancels the tool's context. Diagnostics go to the
// client through MCP logging (once it sets a level) and to stderr, never to
// stdout.
package mcp
