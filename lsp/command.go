package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hashls/hashls/agent"
	"github.com/hashls/hashls/hub"
	"github.com/hashls/hashls/workspace"
)

// Command names. Every agent tool NAME is also the command hashls.NAME.
const (
	commandPrefix  = "hashls."
	cmdSelectBlock = "hashls.selectBlock"
	cmdCopyAnchor  = "hashls.copyBlockAnchor"
	cmdOutline     = "hashls.outline"
	cmdToolSchemas = "hashls.toolSchemas"
)

// commandNames lists every command the server executes.
func (s *server) commandNames() []string {
	names := []string{cmdSelectBlock, cmdCopyAnchor, cmdOutline, cmdToolSchemas, cmdReview}
	for _, t := range s.tools() {
		names = append(names, commandPrefix+t.Name())
	}
	sort.Strings(names)
	return names
}

// ExecuteCommand runs hashls.<tool> with its one JSON object argument, or one
// of the editor commands that code actions reference.
func (s *server) ExecuteCommand(ctx context.Context, params *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	if len(params.Arguments) > 1 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s takes one JSON object argument, got %d arguments", params.Command, len(params.Arguments))
	}
	var arg []byte
	if len(params.Arguments) == 1 {
		arg = params.Arguments[0]
	}
	switch params.Command {
	case cmdSelectBlock:
		return s.selectBlockCommand(ctx, arg)
	case cmdCopyAnchor:
		return s.copyAnchorCommand(ctx, arg, params.WorkDoneToken)
	case cmdOutline:
		return s.outlineCommand(ctx, arg, params.WorkDoneToken)
	case cmdToolSchemas:
		return marshalAny(s.toolSchemas())
	case cmdReview:
		return s.reviewCommand(ctx, arg)
	}
	name, ok := strings.CutPrefix(params.Command, commandPrefix)
	if ok && s.hasTool(name) {
		return s.runTool(ctx, name, arg, params.WorkDoneToken)
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q; commands: %s", params.Command, strings.Join(s.commandNames(), ", "))
}

// toolSchema is one entry of hashls.toolSchemas: a tool's name, its
// one-line description and the JSON schema of its arguments object.
type toolSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// toolSchemas is the result of hashls.toolSchemas: every tool the server
// runs as hashls.<name>, sorted by name, so that a client checks arguments
// against the schemas of the binary it talks to.
func (s *server) toolSchemas() map[string][]toolSchema {
	var out []toolSchema
	for _, t := range s.tools() {
		out = append(out, toolSchema{Name: t.Name(), Description: t.Description(), InputSchema: t.Schema()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return map[string][]toolSchema{"tools": out}
}

// readOnlyTool reports whether tool only reads (its MCP annotation).
func (s *server) readOnlyTool(name string) bool {
	if s.opts.tools == nil {
		return false
	}
	for _, t := range s.opts.tools() {
		if t.Name() == name {
			return agent.HintsOf(t).ReadOnly
		}
	}
	return false
}

// tools are the tools of the toolsets setting.
func (s *server) tools() []agent.Tool {
	sets := s.currentSettings().sets
	return slices.DeleteFunc(s.opts.tools(), func(t agent.Tool) bool { return !sets.Has(t.Name()) })
}

// hasTool reports whether the toolsets setting offers the tool called name.
func (s *server) hasTool(name string) bool {
	return s.currentSettings().sets.Has(name) && slices.ContainsFunc(s.opts.tools(), func(t agent.Tool) bool { return t.Name() == name })
}

// commandResult is the result of every hashls.<tool> command.
type commandResult struct {
	Text    string         `json:"text"`
	Details any            `json:"details,omitempty"`
	Changes []agent.Change `json:"changes,omitempty"` // the files changed, typed
	Shown   []agent.Shown  `json:"shown,omitempty"`   // the files shown under a tag
	// Diagnostics are the language servers' new diagnostics after an edit
	// (the diagnosticsMs setting or the call's diagnostics argument).
	Diagnostics *agent.DiagnosticsReport `json:"diagnostics,omitempty"`
}

// runTool runs one agent tool and returns {text, details}, or an LSP error
// whose data carries the tool's error kind.
func (s *server) runTool(ctx context.Context, tool string, args []byte, token protocol.ProgressToken) (protocol.LSPAny, error) {
	res, err := s.callTool(ctx, tool, args, token)
	if err != nil {
		return nil, err
	}
	return marshalAny(commandResult{Text: res.Text, Details: res.Details, Changes: res.Changes, Shown: res.Shown, Diagnostics: res.Diagnostics})
}

// callTool runs tool with progress reporting and an activity notification,
// mapping failures to LSP errors.
func (s *server) callTool(ctx context.Context, tool string, args []byte, token protocol.ProgressToken) (*agent.Result, error) {
	res, err := s.runAs(ctx, tool, args, token, origin{transport: "lsp"})
	if err != nil {
		if ctx.Err() != nil {
			return nil, protocol.ErrRequestCancelled
		}
		return nil, toolError(tool, s.currentSettings().sets, err)
	}
	return res, nil
}

// origin says who asked for a tool run: the editor ("lsp"), or a process
// that forwarded the call through the hub (its transport and call id).
type origin struct {
	transport string
	callID    string // "" = a new one
	forwarded bool
	who       workspace.Attribution // the agent, session and turn of a forwarded call
	// offered are the caller's toolsets, what its hints may name: a
	// forwarded call's (nil: every tool); the editor's are its settings'.
	offered *agent.Sets
}

// person reports whether o is the person at this editor (a command run
// from it), not an agent: the person sees the buffer, so their edits are
// never refused for lines no read displayed, and their changes are not
// put up for review.
func (o origin) person() bool { return !o.forwarded }

// runAs runs tool for o with progress reporting and an activity
// notification. Its run's call id is remembered as the server's own, so the
// audit feed does not report the run again as another process's.
func (s *server) runAs(ctx context.Context, tool string, args []byte, token protocol.ProgressToken, o origin) (*agent.Result, error) {
	if len(args) == 0 {
		args = []byte("{}")
	}
	return s.runWith(ctx, tool, args, token, &runInfo{o: o, tool: tool}, func(ctx context.Context, env *agent.Env) (*agent.Result, error) {
		return s.opts.runTool(ctx, env, tool, args)
	})
}

// runWith runs f as the run ri describes (a tool, or an editor operation
// such as undoing reviewed hunks): with progress reporting, the person's
// or the agent's settings, the review of what it changed and an activity
// notification.
func (s *server) runWith(ctx context.Context, tool string, args []byte, token protocol.ProgressToken, ri *runInfo, f func(context.Context, *agent.Env) (*agent.Result, error)) (*agent.Result, error) {
	o := &ri.o
	ws, err := s.requireWorkspace()
	if err != nil {
		return nil, &agent.Error{Kind: agent.KindUsage, Message: fmt.Sprintf("%s: %v", tool, err)}
	}
	if o.callID == "" {
		o.callID = hub.NewCallID()
	}
	s.ownCall(o.callID)
	prog := s.startProgress(ctx, "hashls "+tool, token)
	edit := s.currentSettings().editSettings()
	if o.person() {
		edit.AllowUnseen = true
	}
	offered := o.offered
	if o.person() {
		sets := s.currentSettings().sets
		offered = &sets
	}
	env := &agent.Env{WS: ws, Resolver: &s.resolver, Progress: prog.report, Edit: edit, Transport: o.transport, CallID: o.callID, Who: o.who, Offered: offered}
	ctx = withRunInfo(ctx, ri)
	start := time.Now()
	res, err := f(ctx, env)
	prog.end()
	if err == nil && res == nil {
		err = &agent.Error{Kind: agent.KindInternal, Message: fmt.Sprintf("tool %s returned no result (this is a hashls bug)", tool)}
	}
	if err == nil {
		s.reviewRun(ctx, ws, ri, res)
	}
	s.reportActivity(ctx, tool, args, res, err, start, ri)
	if err != nil {
		return nil, err
	}
	s.logWarnings(ctx, tool, res)
	return res, nil
}

// runForwarded is the hub's Runner: a call another process forwarded runs
// here as the editor's own would (its reads see the open buffers, its edits
// go to the editor), audited with the caller's transport.
func (s *server) runForwarded(ctx context.Context, req hub.Request) (*agent.Result, error) {
	if !slices.ContainsFunc(s.opts.tools(), func(t agent.Tool) bool { return t.Name() == req.Tool }) {
		return nil, &agent.Error{Kind: agent.KindUsage, Message: fmt.Sprintf("unknown tool %q: this editor's hashls (the root's hub) has no tool of that name; it may be older than the caller", req.Tool)}
	}
	tr := req.Transport
	if tr == "" {
		tr = "hub"
	}
	o := origin{transport: tr, callID: req.ID, forwarded: true, who: agent.CleanAttribution(req.Who)}
	if sets, err := agent.ParseSets(req.Toolsets); err == nil {
		o.offered = &sets
	}
	return s.runAs(ctx, req.Tool, req.Args, nil, o)
}

// toolError turns a tool failure into an LSP error, rendered for an
// editor with the toolsets sets: InvalidParams for bad arguments,
// RequestFailed otherwise, with {"kind", "suggestedAction", "tool"} as
// data.
func toolError(tool string, sets agent.Sets, err error) error {
	ae := agent.Caller{Transport: "lsp", Sets: sets}.Explain(tool, err)
	code := jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed)
	if ae.Kind == agent.KindUsage {
		code = jsonrpc2.InvalidParams
	}
	data, _ := json.Marshal(map[string]string{"kind": ae.Kind, "suggestedAction": ae.SuggestedAction, "tool": tool})
	return &jsonrpc2.Error{Code: code, Message: ae.Message, Data: data}
}

// marshalAny encodes a result for the wire.
func marshalAny(v any) (protocol.LSPAny, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "encoding the result: %v", err)
	}
	return protocol.LSPAny(b), nil
}
