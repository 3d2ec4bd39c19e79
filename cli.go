package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/hashls/hashls/agent"
	"github.com/hashls/hashls/hub"
	"github.com/hashls/hashls/internal/options"
	"github.com/hashls/hashls/langserver"
	"github.com/hashls/hashls/workspace"
)

// Exit codes of the CLI contract.
const (
	exitOK    = 0
	exitTool  = 1 // the tool ran and failed
	exitUsage = 2 // bad command line, arguments or tool name
)

var usage = `hashls — one precise, safe editing engine for editors and coding agents

Usage:
  hashls [--root DIR] [--json] tool NAME 'JSON'   run one agent tool ('-' reads JSON from stdin)
  hashls tool --list                            list the tools with one-line descriptions
  hashls tool NAME --schema                     print a tool's JSON schema
  hashls [--root DIR] serve [--stdio]           run the language server on stdin/stdout
  hashls [--root DIR] [--json] doctor [--fix]   check the store and the root (integrity, sizes,
                                                unfinished commits, orphan temp files); --fix repairs
  hashls [--root DIR] mcp                       run the MCP server on stdin/stdout (for terminal agents)
  hashls [--root DIR] mcp --http ADDR           the MCP server over Streamable HTTP (loopback addresses only,
                                                unless --allow-remote and HASHLS_MCP_TOKEN are given)
  hashls version                                print the version
  hashls help                                   print this help ('hashls COMMAND --help': one command's)

Flags:
  --root DIR        workspace root (default: the current directory); every path resolves inside it
  --json            print one JSON object: {"text": ..., "details": ...} or {"error": {"kind": ..., "message": ..., "suggestedAction": ...}}
  --no-hub          run tools directly on the store, even when an editor's hashls serve is the root's hub
                    (tool, mcp: calls are not forwarded; serve: the server does not become the hub)
  --toolsets LIST   the toolsets offered, comma-separated (default: all; mcp: ` + agent.DefaultToolsets + `):
` + toolsetsHelp + `
Environment (README "Options" has every option and where each is set):
  HASHLS_SEEN_LINES=off, HASHLS_EDIT_HEADERS=bracket, HASHLS_DIAGNOSTICS_MS=N, HASHLS_FORMAT_ON_WRITE=1
                     the edit tools' defaults (serve: the editor's settings)
  HASHLS_LANGSERVER_LOG=1  the language servers' stderr on hashls's stderr in a tool call
  HASHLS_MCP_ALLOW_ROOTS   as mcp --allow-roots
  HASHLS_STATE_DIR   where the store lives (default $XDG_STATE_HOME/hashls, else ~/.local/state/hashls; %LOCALAPPDATA%\hashls on Windows)
  HASHLS_TOOLSETS    the toolsets, as --toolsets (which overrides it); for the env of an mcp.json entry
  HASHLS_MCP_TOKEN   bearer token mcp --http requires (always checked when set; needed off loopback)
  HASHLS_NO_HUB      1 does what --no-hub does
  HASHLS_AGENT       the agent's name, recorded with every change (the editor's review shows it)
  HASHLS_TURN        a group id: the changes of calls that pass the same one form one turn

Hub: a running 'hashls serve' is its root's hub: 'hashls tool' and 'hashls mcp' on that root hand their
calls to it, so reads see the editor's unsaved text and edits land in its buffers (undoable), not on disk.

Exit status: 0 success, 1 the tool failed, 2 usage error.
`

// toolsetsHelp lists the toolsets for the usage text.
var toolsetsHelp = indent(agent.ToolsetsHelp(), "                  ")

func indent(s, by string) string {
	return by + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+by) + "\n"
}

type cli struct {
	// opts are the user's choices: the environment's, then the flags'
	// (package options; README "Options").
	opts    options.Options
	sets    agent.Sets
	listed  *agent.Toolset // the chosen toolsets' tools, without a workspace
	stdin   io.Reader
	stdout  io.Writer
	stderr  io.Writer
	cmdArgs []string
	// langServers are the language servers a tool call started.
	langServers *langserver.Pool
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "hashls: internal error: %v (this is a bug; please report it)\n%s", r, debug.Stack())
			code = exitTool
		}
	}()
	c := &cli{opts: options.FromEnv(os.Getenv), stdin: stdin, stdout: stdout, stderr: stderr}
	rest, err := c.parseFlags(args)
	if err != nil {
		return c.usageError(err.Error())
	}
	if len(rest) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	// The toolsets: --toolsets, else HASHLS_TOOLSETS, else every tool
	// (mcp chooses its own default: a model reads its tool list).
	if rest[0] != "tool" && slices.ContainsFunc(rest[1:], isHelp) {
		return c.help(rest[0])
	}
	switch rest[0] {
	case "tool", "serve", "mcp":
		def := agent.AllToolsets
		if rest[0] == "mcp" {
			def = agent.DefaultToolsets
		}
		if c.sets, err = c.opts.Sets(def); err != nil {
			return c.usageError(err.Error())
		}
	}
	switch rest[0] {
	case "tool":
		return c.tool(rest[1:])
	case "serve":
		return c.serve(rest[1:])
	case "doctor":
		return c.doctor(rest[1:])
	case "mcp":
		return c.mcpCmd(rest[1:])
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, "hashls", version())
		return exitOK
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		return c.usageError(fmt.Sprintf("unknown command %q", rest[0]))
	}
}

// parseFlags takes --root, --json, --no-hub and --toolsets from anywhere on
// the command line (before or after the subcommand) into c.opts, over what
// the environment chose, and returns the other arguments.
func (c *cli) parseFlags(args []string) ([]string, error) {
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--root" || a == "-root":
			if i+1 >= len(args) {
				return nil, errors.New("--root needs a directory")
			}
			i++
			c.opts.Root = args[i]
		case strings.HasPrefix(a, "--root="):
			c.opts.Root = strings.TrimPrefix(a, "--root=")
		case a == "--json" || a == "-json":
			c.opts.JSON = true
		case a == "--no-hub" || a == "-no-hub":
			c.opts.NoHub = true
		case a == "--toolsets" || a == "-toolsets":
			if i+1 >= len(args) {
				return nil, fmt.Errorf("--toolsets needs a list of toolsets: %s", agent.ToolsetNames())
			}
			i++
			c.opts.Toolsets, c.opts.ToolsetsFrom = args[i], "--toolsets"
		case strings.HasPrefix(a, "--toolsets="):
			c.opts.Toolsets, c.opts.ToolsetsFrom = strings.TrimPrefix(a, "--toolsets="), "--toolsets"
		default:
			rest = append(rest, a)
		}
	}
	return rest, nil
}

func (c *cli) usageError(msg string) int {
	return c.toolUsageError(&agent.Error{Kind: agent.KindUsage, Message: msg})
}

// toolUsageError reports an invalid_argument error, keeping the suggested
// action a tool gave (the kind's default otherwise).
func (c *cli) toolUsageError(ae *agent.Error) int {
	if c.opts.JSON {
		c.printJSON(map[string]any{"error": agent.AsError(ae)})
	} else {
		fmt.Fprintf(c.stderr, "hashls: %s\nRun 'hashls help' for usage.\n", ae.Message)
	}
	return exitUsage
}

func (c *cli) tool(args []string) int {
	if len(args) == 0 {
		return c.usageError("tool needs a NAME and a JSON object; 'hashls tool --list' lists the tools")
	}
	if args[0] == "--list" || args[0] == "-list" {
		return c.listTools()
	}
	if isHelp(args[0]) {
		return c.help("tool")
	}
	name := args[0]
	t, ok := c.listing().Lookup(name)
	if !ok {
		if _, exists := agent.New(agent.Deps{}).Lookup(name); exists {
			return c.toolError(name, agent.NotOffered(name, c.sets))
		}
		return c.usageError(fmt.Sprintf("unknown tool %q; tools: %s", name, c.toolNames()))
	}
	rest := args[1:]
	if len(rest) == 1 && (rest[0] == "--schema" || rest[0] == "-schema") {
		fmt.Fprintln(c.stdout, string(t.Schema()))
		return exitOK
	}
	if len(rest) == 1 && isHelp(rest[0]) {
		fmt.Fprintf(c.stdout, "Usage: hashls [--root DIR] [--json] tool %s 'JSON'   ('-' reads the JSON from stdin)\n\n%s\n\nArguments (JSON schema):\n%s\n", name, agent.GuideOf(t), t.Schema())
		return exitOK
	}
	if len(rest) != 1 {
		return c.usageError(fmt.Sprintf("tool %s needs exactly one JSON object argument ('-' reads it from stdin); see 'hashls tool %s --schema'", name, name))
	}
	raw := []byte(rest[0])
	if rest[0] == "-" {
		b, err := io.ReadAll(c.stdin)
		if err != nil {
			return c.usageError(fmt.Sprintf("reading the JSON arguments from stdin: %v", err))
		}
		raw = b
	}
	if !json.Valid(raw) {
		return c.usageError(fmt.Sprintf("tool %s: arguments are not valid JSON: %s", name, jsonSyntaxError(raw)))
	}
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] != '{' {
		return c.usageError(fmt.Sprintf("tool %s: the arguments must be one JSON object ({...}), not %s; see 'hashls tool %s --schema'", name, jsonKind(t), name))
	}

	// Language servers started for this call stop with it.
	defer func() { c.langServers.Close() }()
	// The store stays open until the process exits. Closing the last
	// connection would checkpoint the WAL into the database (5-10 ms of
	// reads, writes and fsyncs, more than the edit itself); every committed
	// transaction is already durable in the WAL, and a later process's
	// automatic checkpoint folds it in, exactly as after a crash.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := c.runTool(ctx, name, raw)
	if err != nil {
		// Whatever the tool refuses, its input errors included (an
		// argument of the wrong type or shape, a bad regex, :0), is the
		// tool's failure: exit 1. Exit 2 is for the command line itself,
		// checked above.
		return c.toolError(name, err)
	}
	if c.opts.JSON {
		c.printJSON(res)
	} else {
		io.WriteString(c.stdout, res.Text)
		if !strings.HasSuffix(res.Text, "\n") {
			io.WriteString(c.stdout, "\n")
		}
	}
	return exitOK
}

// runTool runs one tool call: through the root's hub (the editor's
// server, package hub) when one runs and --no-hub / HASHLS_NO_HUB do not
// say otherwise, else directly on the store.
func (c *cli) runTool(ctx context.Context, name string, raw []byte) (*agent.Result, error) {
	id := hub.NewCallID()
	who := agent.CLIAttribution(c.opts.Agent, c.opts.Turn)
	var root string // the root the hub is looked up for
	direct := func(ctx context.Context, fb hub.Fallback) (*agent.Result, error) {
		if msg := fb.Message(root, name); msg != "" {
			c.logf("%s", msg)
		}
		tools, err := c.toolset()
		if err != nil {
			return nil, err
		}
		return tools.Run(ctx, name, raw, agent.Call{Transport: "cli", ID: id, Retry: fb.Retry, Who: who})
	}
	if c.opts.NoHub {
		return direct(ctx, hub.Fallback{})
	}
	var err error
	if root, err = c.rootDir(); err != nil {
		return nil, err
	}
	res, _, err := hub.Forward(ctx, "", root, hub.Request{ID: id, Tool: name, Args: raw, Transport: "cli", TextOnly: !c.opts.JSON, Who: who, Toolsets: c.sets.String()}, direct)
	return res, err
}

// jsonKind names the kind of a valid JSON value that is not an object.
func jsonKind(v []byte) string {
	switch v[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// toolError reports the failure of tool (or of a command, tool ""),
// rendered for a CLI user: exit 1.
func (c *cli) toolError(tool string, err error) int {
	ae := agent.Caller{Transport: "cli", Sets: c.sets}.Explain(tool, err)
	if c.opts.JSON {
		c.printJSON(map[string]any{"error": ae})
	} else {
		io.WriteString(c.stderr, ae.Text()+"\n")
	}
	return exitTool
}

// openWorkspace opens the workspace at --root (default: the current
// directory) with its store.
func (c *cli) openWorkspace() (*workspace.Workspace, error) {
	root, err := c.rootDir()
	if err != nil {
		return nil, err
	}
	return workspace.Open(root, workspace.Options{OneShot: true})
}

// rootDir is --root, else the current directory.
func (c *cli) rootDir() (string, error) {
	if c.opts.Root != "" {
		return c.opts.Root, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the current directory: %w; pass --root DIR", err)
	}
	return wd, nil
}

// listing is the chosen toolsets' tools without a workspace: names,
// descriptions, schemas. It is built on first use: `version`, `serve` and
// `mcp` do not need it.
func (c *cli) listing() *agent.Toolset {
	if c.listed == nil {
		c.listed = agent.New(agent.Deps{Sets: c.sets})
	}
	return c.listed
}

// commandHelp is each command's usage, for 'hashls COMMAND --help'.
var commandHelp = map[string]string{
	"tool": `Usage:
  hashls [--root DIR] [--json] [--toolsets LIST] tool NAME 'JSON'   run one tool ('-' reads the JSON from stdin)
  hashls tool --list                  the tools with one-line descriptions
  hashls tool NAME --schema           the tool's JSON schema
  hashls tool NAME --help             the tool's description and schema

Success: the tool's text on stdout, exit 0. A tool error: its message, kind and next step on
stderr, exit 1. Exit 2: the command line itself is wrong (bad flags, JSON that is not one object,
an unknown tool).
`,
	"serve": `Usage: hashls [--root DIR] [--no-hub] serve [--stdio]

The language server on stdin/stdout (--stdio is accepted and ignored). Every tool is the
workspace/executeCommand command hashls.NAME; settings (initializationOptions or
workspace/didChangeConfiguration, under "hashls") include toolsets, seenLines, editHeaders,
diagnosticsMs and formatOnWrite. A running serve is its root's hub (see 'hashls help').
`,
	"mcp": `Usage: hashls [--root DIR] [--toolsets LIST] [--no-hub] mcp [--http ADDR [--allow-remote]] [--allow-roots DIRS]

The MCP server for terminal agents, on stdin/stdout (newline-delimited JSON-RPC), or over
Streamable HTTP with --http ADDR (a loopback address unless --allow-remote and HASHLS_MCP_TOKEN
are given; port 0 picks one, logged on stderr).

  --toolsets LIST      the tools offered (default ` + agent.DefaultToolsets + `; or HASHLS_TOOLSETS):
` + toolsetsHelp + `  --allow-roots DIRS   without --root, serve only client roots under these directories
                       (separated by '` + string(os.PathListSeparator) + `'; or HASHLS_MCP_ALLOW_ROOTS). --http needs --root or this.

The root is --root DIR, else the client's first file:// root (roots/list), else the current
directory. Environment: HASHLS_SEEN_LINES=off, HASHLS_EDIT_HEADERS=bracket, HASHLS_DIAGNOSTICS_MS,
HASHLS_FORMAT_ON_WRITE=1 set the edit tools' defaults.
`,
	"doctor": `Usage: hashls [--root DIR] [--json] doctor [--fix]

Checks the store and the root: integrity, sizes, the newest audit row, unfinished commits, orphan
temp files, the trash. Exit 1 when something needs repair; --fix finishes unfinished commits and
removes orphan temp files (for a damaged store it prints the command that moves it aside).
`,
	"version": "Usage: hashls version\n\nPrints the version, VCS revision and Go version.\n",
}

// help prints cmd's usage (the whole usage for help itself) on stdout.
func (c *cli) help(cmd string) int {
	text, ok := commandHelp[cmd]
	if !ok {
		if cmd != "help" && cmd != "--help" && cmd != "-h" && cmd != "-help" {
			return c.usageError(fmt.Sprintf("unknown command %q", cmd))
		}
		text = usage
	}
	fmt.Fprint(c.stdout, text)
	return exitOK
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool { return arg == "--help" || arg == "-help" || arg == "-h" }

// toolset opens the workspace at the root and its store, and builds the
// tools over it.
func (c *cli) toolset() (*agent.Toolset, error) {
	ws, err := c.openWorkspace()
	if err != nil {
		return nil, err
	}
	// Language servers' stderr goes nowhere in a CLI call (the servers
	// are chatty) unless HASHLS_LANGSERVER_LOG asks for it; serve and mcp
	// send it to their log (stderr).
	var logf func(string, ...any)
	if c.opts.LangServerLog {
		logf = c.logf
	}
	c.langServers = langserver.NewPool(langserver.Options{Logf: logf, IdleTimeout: -1})
	return c.opts.Tools(c.sets, c.langServers).For(ws), nil
}

// logf writes one line of hashls's log to stderr.
func (c *cli) logf(format string, args ...any) {
	fmt.Fprintf(c.stderr, "hashls: "+format+"\n", args...)
}

func (c *cli) listTools() int {
	if c.opts.JSON {
		var list []map[string]string
		for _, t := range c.listing().Tools() {
			list = append(list, map[string]string{"name": t.Name(), "description": t.Description()})
		}
		c.printJSON(list)
		return exitOK
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	for _, t := range c.listing().Tools() {
		fmt.Fprintf(tw, "%s\t%s\n", t.Name(), t.Description())
	}
	tw.Flush()
	return exitOK
}

func (c *cli) printJSON(v any) {
	enc := json.NewEncoder(c.stdout)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

func (c *cli) toolNames() string {
	var names []string
	for _, t := range c.listing().Tools() {
		names = append(names, t.Name())
	}
	return strings.Join(names, ", ")
}

func jsonSyntaxError(raw []byte) string {
	var v any
	err := json.Unmarshal(raw, &v)
	if err == nil {
		return "unknown error"
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (at byte %d)", se, se.Offset)
	}
	return err.Error()
}

// buildVersion may be set at link time (-ldflags "-X main.buildVersion=v1.2.3")
// for builds that are not made by go install of a tagged module.
var buildVersion string

func version() string {
	bi, ok := debug.ReadBuildInfo()
	return versionOf(buildVersion, bi, ok)
}

// versionOf renders the module version (or the link-time one), the VCS
// revision, its time and whether the tree was modified, and the Go
// version: "v1.2.3 (rev 0123456789ab, 2026-01-02T03:04:05Z, modified; go1.26.8)".
// A build without module or VCS information says so rather than "(devel)".
func versionOf(linked string, bi *debug.BuildInfo, ok bool) string {
	v := linked
	if v == "" && ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	if v == "" {
		v = "devel"
	}
	if !ok {
		return v + " (no build information)"
	}
	var rev, at string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	var parts []string
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		parts = append(parts, "rev "+rev)
		if at != "" {
			parts = append(parts, at)
		}
		if modified {
			parts[len(parts)-1] += ", modified"
		}
	} else {
		parts = append(parts, "no VCS revision: built outside a git checkout or with -buildvcs=false")
	}
	if bi.GoVersion != "" {
		return v + " (" + strings.Join(parts, ", ") + "; " + bi.GoVersion + ")"
	}
	return v + " (" + strings.Join(parts, ", ") + ")"
}

// doctor runs `hashls doctor [--fix]`: the store's health report, and the
// repairs with --fix. Exit 1 when something needs repair (or was repaired
// partly).
func (c *cli) doctor(args []string) int {
	fix := false
	for _, a := range args {
		switch a {
		case "--fix", "-fix":
			fix = true
		default:
			return c.usageError(fmt.Sprintf("doctor takes only --fix, not %q", a))
		}
	}
	ws, err := c.openWorkspace()
	if err != nil {
		return c.toolError("", err)
	}
	defer ws.Close()
	r, err := ws.Doctor(context.Background(), fix)
	if err != nil {
		return c.toolError("", err)
	}
	if c.opts.JSON {
		c.printJSON(r)
	} else {
		io.WriteString(c.stdout, r.Text())
	}
	if len(r.Offers) > 0 || r.Integrity != "ok" {
		return exitTool
	}
	return exitOK
}
