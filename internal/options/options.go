// Package options is every choice a user makes of hashls, in one value
// (Options), and the one way each of its sources is read into it. The
// sources, from the weakest:
//
//   - the defaults (each field's comment);
//   - the environment: FromEnv reads every HASHLS_* variable hashls knows
//     (the Env* constants name them), and Bool and Off decide what a
//     variable's value means, for every variable alike;
//   - the command line: package main sets the fields its flags name
//     (--root, --json, --no-hub, --toolsets, mcp's --http, --allow-remote
//     and --allow-roots), over the environment's;
//   - under hashls serve, the editor's settings (initializationOptions and
//     workspace/didChangeConfiguration, lsp.Settings): they choose other
//     toolsets than Sets, and they alone decide the edit settings (serve
//     does not read Edit's variables);
//   - the project file, .hashls.json at a workspace root: its
//     languageServers, read by package langserver for that root (one
//     process may serve several roots, so it is not a process-wide field).
//
// README "Options" is the table of them all. The tools a transport offers
// are built from one Options by Tools (agent.Deps), once per process.
package options

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hashls/hashls/agent"
	"github.com/hashls/hashls/langserver"
)

// The environment variables hashls reads. HASHLS_STATE_DIR is read by
// package workspace (workspace.StateDir), where the store is opened, for
// every caller alike.
const (
	EnvStateDir      = "HASHLS_STATE_DIR"
	EnvToolsets      = agent.ToolsetsEnv
	EnvNoHub         = "HASHLS_NO_HUB"
	EnvSeenLines     = "HASHLS_SEEN_LINES"
	EnvEditHeaders   = "HASHLS_EDIT_HEADERS"
	EnvDiagnosticsMs = "HASHLS_DIAGNOSTICS_MS"
	EnvFormatOnWrite = "HASHLS_FORMAT_ON_WRITE"
	EnvLangServerLog = "HASHLS_LANGSERVER_LOG"
	EnvMCPToken      = "HASHLS_MCP_TOKEN"
	EnvMCPAllowRoots = "HASHLS_MCP_ALLOW_ROOTS"
	EnvAgent         = "HASHLS_AGENT"
	EnvTurn          = "HASHLS_TURN"
	EnvTurnGap       = "HASHLS_TURN_GAP"
)

// Options are a process's choices.
type Options struct {
	// Root is the workspace root (--root; "": the current directory, or
	// for mcp the client's first root).
	Root string
	// JSON prints a tool's result or error as one JSON object (--json).
	JSON bool
	// NoHub runs tool calls in this process even when the root has a hub,
	// and keeps serve from becoming one (--no-hub, HASHLS_NO_HUB).
	NoHub bool
	// Toolsets is the toolsets chosen (--toolsets, else HASHLS_TOOLSETS;
	// "": the command's default, see Sets), and ToolsetsFrom where it was
	// chosen, for its errors.
	Toolsets, ToolsetsFrom string
	// Edit are the edit tools' settings (HASHLS_SEEN_LINES,
	// HASHLS_EDIT_HEADERS, HASHLS_DIAGNOSTICS_MS, HASHLS_FORMAT_ON_WRITE;
	// under serve the editor's settings decide them).
	Edit agent.EditSettings
	// LangServerLog sends the language servers' stderr to hashls's own in
	// a CLI tool call (HASHLS_LANGSERVER_LOG; serve and mcp always do).
	LangServerLog bool
	// MCPHTTP is the address mcp serves Streamable HTTP on (mcp --http;
	// "": stdio), MCPAllowRemote lets it be one off loopback
	// (--allow-remote, which needs MCPToken).
	MCPHTTP        string
	MCPAllowRemote bool
	// MCPToken is the bearer token mcp --http requires (HASHLS_MCP_TOKEN).
	MCPToken string
	// AllowRoots are the directories under which an mcp client may choose
	// its root when Root is "" (--allow-roots, else
	// HASHLS_MCP_ALLOW_ROOTS; a list separated as PATH is).
	AllowRoots []string
	// Agent and Turn name the agent running `hashls tool` and the turn its
	// calls form (HASHLS_AGENT, HASHLS_TURN; agent.CLIAttribution).
	Agent, Turn string
	// TurnGap is the quiet gap that ends a session's turn
	// (HASHLS_TURN_GAP: a Go duration such as 90s, or a number of
	// seconds; 0: agent.DefaultTurnGap).
	TurnGap time.Duration
}

// Bool reports whether an environment variable's value v says yes: 1,
// true, yes or on, in any case, spaces around ignored.
func Bool(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// Off reports whether v says no: 0, false, no or off, in any case.
func Off(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "0", "false", "no", "off":
		return true
	}
	return false
}

// FromEnv reads the environment through getenv (os.Getenv). Values it
// cannot read leave the default: HASHLS_DIAGNOSTICS_MS must be a positive
// number of milliseconds, HASHLS_EDIT_HEADERS "bracket" to change the
// header form.
func FromEnv(getenv func(string) string) Options {
	var o Options
	if spec := getenv(EnvToolsets); strings.TrimSpace(spec) != "" {
		o.Toolsets, o.ToolsetsFrom = spec, EnvToolsets
	}
	o.NoHub = Bool(getenv(EnvNoHub))
	o.Edit.AllowUnseen = Off(getenv(EnvSeenLines))
	o.Edit.BracketHeaders = strings.EqualFold(strings.TrimSpace(getenv(EnvEditHeaders)), "bracket")
	if ms, err := strconv.Atoi(strings.TrimSpace(getenv(EnvDiagnosticsMs))); err == nil && ms > 0 {
		o.Edit.DiagnosticsWait = time.Duration(ms) * time.Millisecond
	}
	o.Edit.FormatOnWrite = Bool(getenv(EnvFormatOnWrite))
	o.LangServerLog = Bool(getenv(EnvLangServerLog))
	o.MCPToken = getenv(EnvMCPToken)
	if v := getenv(EnvMCPAllowRoots); v != "" {
		o.AllowRoots = filepath.SplitList(v)
	}
	o.Agent, o.Turn = getenv(EnvAgent), getenv(EnvTurn)
	o.TurnGap = duration(getenv(EnvTurnGap))
	return o
}

// duration reads a positive duration: a Go duration (90s, 5m) or a number
// of seconds; 0 for anything else.
func duration(v string) time.Duration {
	v = strings.TrimSpace(v)
	if d, err := time.ParseDuration(v); err == nil && d > 0 {
		return d
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n > 0 {
		return time.Duration(n * float64(time.Second))
	}
	return 0
}

// Sets are the toolsets chosen, else def (agent.AllToolsets, or for mcp
// agent.DefaultToolsets). An error names where the bad choice was made.
func (o *Options) Sets(def string) (agent.Sets, error) {
	if strings.TrimSpace(o.Toolsets) == "" {
		return agent.ParseSets(def)
	}
	s, err := agent.ParseSets(o.Toolsets)
	if err != nil && o.ToolsetsFrom != "" {
		return s, fmt.Errorf("%s: %w", o.ToolsetsFrom, err)
	}
	return s, err
}

// Tools are the dependencies of every tool set a process builds (one per
// workspace, agent.Deps.For): the chosen toolsets, the edit settings, the
// language servers and the turn gap.
func (o *Options) Tools(sets agent.Sets, servers *langserver.Pool) agent.Deps {
	return agent.Deps{Edit: o.Edit, LangServers: servers, Sets: sets, TurnGap: o.TurnGap}
}
