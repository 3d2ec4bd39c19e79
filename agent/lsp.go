package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/langserver"
	"github.com/hashls/hashls/workspace"
)

// The lsp tool's limits (lsp-tool.md "Limits & Caps").
const (
	lspTimeoutDefault     = 20 * time.Second
	lspTimeoutMin         = 5 * time.Second
	lspTimeoutMax         = 60 * time.Second
	lspDiagnosticsLimit   = 50
	lspGlobTargets        = 20
	lspBatchWait          = 3 * time.Second
	lspSettle             = 500 * time.Millisecond
	lspWorkspaceSymbolCap = 200
	lspReferenceContext   = 50
	lspRenamePairsMax     = 1000
	lspLocationContext    = 1
	lspReferencesRetries  = 2
	lspReferencesRetryGap = 250 * time.Millisecond
)

// The language servers as two tools over one implementation (runLSP): lsp
// asks (read-only: it changes no file), lsp_edit changes files through the
// commit path (rename, rename_file, code actions, format) or sends a raw
// request, which may do anything the server does.
type lspTool struct{}
type lspEditTool struct{}

// lspQueries are lsp's actions; lspEdits lsp_edit's.
var (
	lspQueries = []string{"diagnostics", "definition", "type_definition", "implementation", "references", "hover", "symbols", "status", "capabilities", "reload"}
	lspEdits   = []string{"rename", "rename_file", "code_actions", "format", "request"}
)

// lspPositionProps are the properties both faces share.
const lspPositionProps = `"file":{"type":"string","description":"file; diagnostics: also a glob, or \"*\" for all; symbols: \"*\" searches the workspace"},` +
	`"line":{"type":"integer","minimum":1,"description":"1-based (default 1)"},` +
	`"symbol":{"type":"string","description":"text on that line at the position; name#N: its Nth occurrence"},` +
	`"timeout":{"type":"number","description":"seconds, 5-60 (default 20)"},`

func (lspTool) Name() string { return "lsp" }
func (lspTool) Description() string {
	return "Ask the project's language servers (gopls, pyright, clangd, ...), read-only: diagnostics, definition, references, hover, symbols; locations come back as ¶PATH#TAG rows"
}
func (lspTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"action":{"type":"string","enum":["` + strings.Join(lspQueries, `","`) + `"]},` + lspPositionProps +
		`"query":{"type":"string","description":"symbols: the query"}` +
		`},"required":["action"],"additionalProperties":false}`)
}

func (lspEditTool) Name() string { return "lsp_edit" }
func (lspEditTool) Description() string {
	return "Change code through the language servers, all or nothing, old content to the trash: rename, rename_file (fixes imports), code_actions (list or apply), format; request: a raw LSP request"
}
func (lspEditTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"action":{"type":"string","enum":["` + strings.Join(lspEdits, `","`) + `"]},` + lspPositionProps +
		`"query":{"type":"string","description":"code_actions: kind filter (list), index or title (apply); request: the method"},` +
		`"newName":{"type":"string","description":"rename: the new name; rename_file: the new path"},` +
		`"apply":{"type":"boolean","description":"false previews a diff; code_actions: true applies the one query names"},` +
		`"payload":{"type":"string","description":"request: params as JSON"},` +
		`"allowVcs":{"type":"boolean","description":"allow changes under .git, .hg or .svn"}` +
		`},"required":["action"],"additionalProperties":false}`)
}

type lspArgs struct {
	Action   string   `json:"action"`
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Symbol   string   `json:"symbol"`
	Query    string   `json:"query"`
	NewName  string   `json:"newName"`
	Apply    *bool    `json:"apply"`
	Timeout  *float64 `json:"timeout"`
	Payload  string   `json:"payload"`
	AllowVCS bool     `json:"allowVcs"`
}

// lspDetails is the structured part of an lsp result.
type lspDetails struct {
	Action      string                    `json:"action"`
	Server      string                    `json:"server,omitempty"`
	Locations   []lspLocation             `json:"locations,omitempty"`
	Diagnostics []lspDiagnostic           `json:"diagnostics,omitempty"`
	Symbols     []langserver.Symbol       `json:"symbols,omitempty"`
	Servers     []langserver.ServerStatus `json:"servers,omitempty"`
	Actions     []langserver.CodeAction   `json:"codeActions,omitempty"`
	Applied     bool                      `json:"applied,omitempty"`
	Result      json.RawMessage           `json:"result,omitempty"`
}

// lspLocation is a location as the tools name files: root-relative path,
// 1-based line and column (bytes).
type lspLocation struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

// lspDiagnostic is a diagnostic with a root-relative path.
type lspDiagnostic struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	EndLine  int    `json:"endLine"`
	Severity string `json:"severity"`
	Source   string `json:"source,omitempty"`
	Code     string `json:"code,omitempty"`
	Message  string `json:"message"`
}

func (lspTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	return runLSPFace(ctx, env, "lsp", lspQueries, raw)
}

func (lspEditTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (*Result, error) {
	return runLSPFace(ctx, env, "lsp_edit", lspEdits, raw)
}

// runLSPFace runs one of the actions of the face called tool.
func runLSPFace(ctx context.Context, env *Env, tool string, actions []string, raw json.RawMessage) (*Result, error) {
	var a lspArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindUsage, Message: tool + ": " + err.Error()}
	}
	if !slices.Contains(actions, a.Action) {
		other, otherActions := "lsp_edit", lspEdits
		if tool == "lsp_edit" {
			other, otherActions = "lsp", lspQueries
		}
		if slices.Contains(otherActions, a.Action) {
			return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("%s: action %s belongs to the %s tool", tool, a.Action, other), SuggestedAction: fmt.Sprintf("Call %s with the same arguments.", other)}
		}
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("%s: action %s is not one of %s", tool, QuoteInput(a.Action), strings.Join(actions, ", "))}
	}
	if env.LS == nil {
		return nil, &Error{Kind: KindUsage, Message: tool + ": language servers are not available in this process", SuggestedAction: "Run the tool through `hashls tool`, `hashls serve` or `hashls mcp`, which start language servers."}
	}
	timeout := lspTimeoutDefault
	if a.Timeout != nil {
		timeout = min(max(time.Duration(*a.Timeout*float64(time.Second)), lspTimeoutMin), lspTimeoutMax)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := runLSP(ctx, env, &a)
	if err != nil {
		return nil, lspError(a.Action, err)
	}
	return res, nil
}

// lspError gives a language-server failure its kind (KindOf) and next
// step; an error that has a kind of its own already is kept.
func lspError(action string, err error) error {
	ae := &Error{Kind: KindOf(err), Message: "lsp " + action + ": " + err.Error(), Err: err}
	switch {
	case errors.Is(err, exec.ErrNotFound): // a server not installed
		ae.SuggestedAction = "Install the server (see the message) or configure another in .hashls.json."
	case errors.Is(err, langserver.ErrNoServer):
	case ae.Kind != KindInternal && ae.Kind != KindIO:
		return err
	case errors.Is(err, langserver.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		ae.SuggestedAction = "Retry with a larger timeout (up to 60 seconds); the server is restarted on the next call."
	default:
		ae.Message = "lsp " + action + ": LSP error: " + err.Error()
	}
	return ae
}

func usage(format string, args ...any) error {
	return &Error{Kind: KindUsage, Message: "lsp: " + fmt.Sprintf(format, args...)}
}

func runLSP(ctx context.Context, env *Env, a *lspArgs) (*Result, error) {
	switch a.Action {
	case "status":
		return lspStatus(env)
	case "reload":
		env.LS.Close()
		return &Result{Text: "Stopped the language servers of this root; they restart on the next request.", Details: &lspDetails{Action: a.Action}}, nil
	case "diagnostics":
		return lspDiagnostics(ctx, env, a)
	case "symbols":
		if a.File == "" || a.File == "*" {
			return lspWorkspaceSymbols(ctx, env, a)
		}
	case "capabilities":
		return lspCapabilities(ctx, env, a)
	case "request":
		return lspRequest(ctx, env, a)
	case "rename_file":
		return lspRenameFile(ctx, env, a)
	case "":
		return nil, usage("action is empty; give one of diagnostics, definition, references, hover, symbols, rename, rename_file, code_actions, format, status, capabilities, request")
	}
	if a.File == "" || a.File == "*" {
		return nil, usage("%s needs file: a file path inside the root", a.Action)
	}
	p, err := env.WS.Resolve(a.File)
	if err != nil {
		return nil, err
	}
	switch a.Action {
	case "definition", "type_definition", "implementation", "references":
		return lspLocations(ctx, env, a, p)
	case "hover":
		at, err := lspPosition(env, p, a.Line, a.Symbol)
		if err != nil {
			return nil, err
		}
		text, err := env.LS.Hover(ctx, p.Abs, at)
		if err != nil {
			return nil, err
		}
		if text == "" {
			text = "No hover information"
		}
		return &Result{Text: text + "\n", Details: &lspDetails{Action: a.Action}}, nil
	case "symbols":
		syms, err := env.LS.DocumentSymbols(ctx, p.Abs)
		if err != nil {
			return nil, err
		}
		return lspRenderSymbols(env, a, "Symbols in "+p.Rel, syms)
	case "rename":
		if strings.TrimSpace(a.NewName) == "" {
			return nil, usage("rename needs newName: the new identifier")
		}
		at, err := lspPosition(env, p, a.Line, a.Symbol)
		if err != nil {
			return nil, err
		}
		we, err := env.LS.Rename(ctx, p.Abs, at, a.NewName)
		if err != nil {
			return nil, err
		}
		if we.Empty() {
			return &Result{Text: "Rename returned no edits\n", Details: &lspDetails{Action: a.Action}}, nil
		}
		return lspApplyEdit(ctx, env, a, "rename", "Rename", we, nil)
	case "format":
		we, err := env.LS.Format(ctx, p.Abs)
		if err != nil {
			return nil, err
		}
		if we.Empty() {
			return &Result{Text: p.Rel + " is already formatted\n", Details: &lspDetails{Action: a.Action}}, nil
		}
		return lspApplyEdit(ctx, env, a, "lsp_format", "Format", we, nil)
	case "code_actions":
		return lspCodeActions(ctx, env, a, p)
	}
	return nil, usage("unknown action %s; give one of diagnostics, definition, type_definition, implementation, references, hover, symbols, rename, rename_file, code_actions, format, status, reload, capabilities, request", QuoteInput(a.Action))
}

// lspPosition resolves line + symbol to a position in p's current text
// (lsp-tool.md: exact match first, then case-insensitive; name#N picks the
// Nth occurrence on that line only).
func lspPosition(env *Env, p workspace.Path, line int, symbol string) (langserver.Pos, error) {
	if line <= 0 {
		line = 1
	}
	f, err := env.WS.ReadFile(p)
	if err != nil {
		return langserver.Pos{}, err
	}
	lines := splitDisplayLines(f.Bytes)
	if line > len(lines) {
		return langserver.Pos{}, usage("line %d is past the end of %s, which has %d line%s", line, p.Rel, len(lines), plural(len(lines)))
	}
	text := lines[line-1]
	if line == 1 {
		// splitDisplayLines drops a BOM; the server counts it.
		if bytes.HasPrefix(f.Bytes, []byte("\xEF\xBB\xBF")) {
			text = "\uFEFF" + text
		}
	}
	if symbol == "" {
		col := len(text) - len(strings.TrimLeft(text, " \t\uFEFF"))
		return langserver.Pos{Line: line, Col: col}, nil
	}
	name, nth := symbol, 1
	if i := strings.LastIndexByte(symbol, '#'); i > 0 {
		if n, err := strconv.Atoi(symbol[i+1:]); err == nil {
			if n < 1 {
				return langserver.Pos{}, usage("symbol %s: occurrence #%d must be 1 or more", QuoteInput(symbol), n)
			}
			name, nth = symbol[:i], n
		}
	}
	find := func(hay, needle string) []int {
		var at []int
		for i := 0; ; {
			j := strings.Index(hay[i:], needle)
			if j < 0 {
				return at
			}
			at = append(at, i+j)
			i += j + max(len(needle), 1)
			if i > len(hay) {
				return at
			}
		}
	}
	hits := find(text, name)
	if len(hits) == 0 {
		hits = find(strings.ToLower(text), strings.ToLower(name))
	}
	if len(hits) == 0 {
		return langserver.Pos{}, usage("symbol %s is not on line %d of %s (%q); read the file and give the line the symbol is on", QuoteInput(name), line, p.Rel, ClipInput(text))
	}
	if nth > len(hits) {
		return langserver.Pos{}, usage("symbol %s occurs %d time%s on line %d of %s; #%d is out of range", QuoteInput(name), len(hits), plural(len(hits)), line, p.Rel, nth)
	}
	return langserver.Pos{Line: line, Col: hits[nth-1]}, nil
}

var lspLocationWords = map[string][2]string{
	"definition":      {"textDocument/definition", "definition"},
	"type_definition": {"textDocument/typeDefinition", "type definition"},
	"implementation":  {"textDocument/implementation", "implementation"},
	"references":      {"textDocument/references", "reference"},
}

func lspLocations(ctx context.Context, env *Env, a *lspArgs, p workspace.Path) (*Result, error) {
	at, err := lspPosition(env, p, a.Line, a.Symbol)
	if err != nil {
		return nil, err
	}
	w := lspLocationWords[a.Action]
	locs, err := env.LS.Locations(ctx, w[0], p.Abs, at)
	for try := 0; err == nil && a.Action == "references" && try < lspReferencesRetries && len(locs) == 1 && locs[0].Path == p.Abs && locs[0].Start.Line == at.Line; try++ {
		// A project still loading answers with the declaration alone.
		select {
		case <-time.After(lspReferencesRetryGap):
		case <-ctx.Done():
		}
		locs, err = env.LS.Locations(ctx, w[0], p.Abs, at)
	}
	if err != nil {
		return nil, err
	}
	d := &lspDetails{Action: a.Action}
	if len(locs) == 0 {
		return &Result{Text: "No " + w[1] + " found\n", Details: d}, nil
	}
	head := fmt.Sprintf("Found %d %s%s:\n", len(locs), w[1], plural(len(locs)))
	body, shown, locsOut, err := renderLocations(env, locs, lspReferenceContext)
	if err != nil {
		return nil, err
	}
	d.Locations = locsOut
	return &Result{Text: head + body, Details: d, Shown: shown}, nil
}

// renderLocations shows locations grouped by file under ¶PATH#TAG headers,
// the hit lines as *N:TEXT and one line of context as  N:TEXT (the search
// tool's rows, so an edit can follow); the snapshots and the lines shown
// are recorded. Past limit locations, the rest are listed as path:line:col.
// Locations outside the root are listed as paths.
func renderLocations(env *Env, locs []langserver.Location, limit int) (string, []Shown, []lspLocation, error) {
	var sb strings.Builder
	var shown []Shown
	var out []lspLocation
	var recs []workspace.Recording
	byFile := map[string][]langserver.Location{}
	var order []string
	for _, l := range locs {
		if _, ok := byFile[l.Path]; !ok {
			order = append(order, l.Path)
		}
		byFile[l.Path] = append(byFile[l.Path], l)
	}
	var rest, outside []string
	n := 0
	for _, abs := range order {
		p, err := env.WS.Resolve(abs)
		inside := err == nil && !strings.HasPrefix(p.Rel, "..")
		fl := byFile[abs]
		for _, l := range fl {
			name := abs
			if inside {
				name = p.Rel
			}
			out = append(out, lspLocation{Path: name, Line: l.Start.Line, Col: l.Start.Col + 1})
		}
		if !inside {
			for _, l := range fl {
				outside = append(outside, fmt.Sprintf("%s:%d:%d", abs, l.Start.Line, l.Start.Col+1))
			}
			continue
		}
		if n >= limit {
			for _, l := range fl {
				rest = append(rest, fmt.Sprintf("%s:%d:%d", showName(p.Rel), l.Start.Line, l.Start.Col+1))
			}
			continue
		}
		f, err := env.WS.ReadFile(p)
		if err != nil || workspace.IsBinary(f.Bytes) {
			for _, l := range fl {
				rest = append(rest, fmt.Sprintf("%s:%d:%d", showName(p.Rel), l.Start.Line, l.Start.Col+1))
			}
			continue
		}
		hits := map[int]bool{}
		for _, l := range fl {
			if n < limit {
				hits[l.Start.Line] = true
				n++
			} else {
				rest = append(rest, fmt.Sprintf("%s:%d:%d", showName(p.Rel), l.Start.Line, l.Start.Col+1))
			}
		}
		tag := edit.Tag(f.Bytes)
		sum := sha256.Sum256(f.Bytes)
		text, seen := renderHitRows(splitDisplayLines(f.Bytes), hits, lspLocationContext)
		sb.WriteString(header(p.Rel, tag) + "\n" + text)
		recs = append(recs, workspace.Recording{Key: p.Abs, Tag: tag, Content: f.Bytes, SHA256: &sum, Seen: nonNil(seen)})
		shown = append(shown, Shown{Path: p.Rel, Tag: tag, SHA256: fmt.Sprintf("%x", sum)})
	}
	if len(rest) > 0 {
		fmt.Fprintf(&sb, "... %d more location%s without context:\n%s\n", len(rest), plural(len(rest)), strings.Join(rest, "\n"))
	}
	if len(outside) > 0 {
		fmt.Fprintf(&sb, "Outside the root (read-only here):\n%s\n", strings.Join(outside, "\n"))
	}
	if err := env.WS.RecordReads(recs); err != nil {
		return "", nil, nil, err
	}
	return sb.String(), shown, out, nil
}

// renderHitRows renders the hit lines (*N:TEXT) with ctx lines of context
// ( N:TEXT) around each, "..." between gaps; it returns the lines shown.
func renderHitRows(lines []string, hits map[int]bool, ctx int) (string, []workspace.LineRange) {
	show := map[int]bool{}
	for h := range hits {
		for n := h - ctx; n <= h+ctx; n++ {
			if n >= 1 && n <= len(lines) {
				show[n] = true
			}
		}
	}
	nums := make([]int, 0, len(show))
	for n := range show {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	var sb strings.Builder
	var seen []workspace.LineRange
	for i, n := range nums {
		if i > 0 && n != nums[i-1]+1 {
			sb.WriteString("...\n")
		}
		mark := " "
		if hits[n] {
			mark = "*"
		}
		fmt.Fprintf(&sb, "%s%d:%s\n", mark, n, lines[n-1])
		seen = addSeen(seen, n)
	}
	return sb.String(), seen
}

func lspRenderSymbols(env *Env, a *lspArgs, title string, syms []langserver.Symbol) (*Result, error) {
	d := &lspDetails{Action: a.Action, Symbols: syms}
	if len(syms) == 0 {
		return &Result{Text: "No symbols found\n", Details: d}, nil
	}
	var sb strings.Builder
	sb.WriteString(title + ":\n")
	limit := len(syms)
	if a.File == "" || a.File == "*" {
		limit = min(limit, lspWorkspaceSymbolCap)
	}
	for _, s := range syms[:limit] {
		where := s.Loc.Path
		if p, err := env.WS.Resolve(s.Loc.Path); err == nil {
			where = p.Rel
		}
		detail := ""
		if s.Detail != "" {
			detail = " " + s.Detail
		}
		fmt.Fprintf(&sb, "%s%s %s%s @ %s:%d:%d\n", strings.Repeat("  ", s.Depth), s.Kind, s.Name, detail, where, s.Loc.Start.Line, s.Loc.Start.Col+1)
	}
	if limit < len(syms) {
		fmt.Fprintf(&sb, "... %d more symbol%s omitted; narrow the query\n", len(syms)-limit, plural(len(syms)-limit))
	}
	return &Result{Text: sb.String(), Details: d}, nil
}

func lspWorkspaceSymbols(ctx context.Context, env *Env, a *lspArgs) (*Result, error) {
	if strings.TrimSpace(a.Query) == "" {
		return nil, usage("workspace symbols need query (a name or part of one); for one file's symbols give file")
	}
	syms, err := env.LS.WorkspaceSymbols(ctx, "", a.Query)
	if err != nil {
		return nil, err
	}
	// Filter to names containing the query (servers match fuzzily), then
	// dedupe.
	q := strings.ToLower(a.Query)
	var out []langserver.Symbol
	seen := map[string]bool{}
	for _, s := range syms {
		if !strings.Contains(strings.ToLower(s.Name), q) {
			continue
		}
		k := fmt.Sprintf("%s|%s|%d|%d", s.Name, s.Loc.Path, s.Loc.Start.Line, s.Loc.Start.Col)
		if !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	return lspRenderSymbols(env, a, fmt.Sprintf("Found %d symbol%s matching %q", len(out), plural(len(out)), a.Query), out)
}

func lspStatus(env *Env) (*Result, error) {
	src, st, err := env.LS.Status()
	if err != nil {
		return nil, err
	}
	d := &lspDetails{Action: "status", Servers: st}
	if len(st) == 0 {
		return &Result{Text: "No language servers configured for this project (no root marker of a known server; configure one in " + langserver.ConfigFile + ")\n", Details: d}, nil
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Language servers (%s):\n", src)
	for _, s := range st {
		state := "available"
		switch {
		case !s.Installed:
			state = fmt.Sprintf("not installed (%q not in PATH; install: %s)", s.Command[0], s.Install)
		case s.Running:
			state = fmt.Sprintf("running (pid %d, up %s, %d open document%s)", s.PID, s.Uptime, s.Open, plural(s.Open))
		}
		if s.Restarts > 0 {
			state += fmt.Sprintf(", restarted %d time%s", s.Restarts, plural(s.Restarts))
		}
		fmt.Fprintf(&sb, "%s [%s]: %s\n", s.Name, strings.Join(s.FileTypes, " "), state)
	}
	return &Result{Text: sb.String(), Details: d}, nil
}

func lspCapabilities(ctx context.Context, env *Env, a *lspArgs) (*Result, error) {
	path := ""
	if a.File != "" && a.File != "*" {
		p, err := env.WS.Resolve(a.File)
		if err != nil {
			return nil, err
		}
		path = p.Abs
	}
	caps, err := env.LS.Capabilities(ctx, path)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(caps))
	for n := range caps {
		names = append(names, n)
	}
	sort.Strings(names)
	var sb strings.Builder
	for _, n := range names {
		var buf bytes.Buffer
		if json.Indent(&buf, caps[n], "  ", "  ") != nil {
			buf.Reset()
			buf.Write(caps[n])
		}
		fmt.Fprintf(&sb, "%s:\n  capabilities: %s\n", n, buf.String())
	}
	return &Result{Text: sb.String(), Details: &lspDetails{Action: a.Action}}, nil
}

func lspRequest(ctx context.Context, env *Env, a *lspArgs) (*Result, error) {
	if strings.TrimSpace(a.Query) == "" {
		return nil, usage("request needs query: the LSP method, e.g. textDocument/foldingRange")
	}
	path := ""
	var params json.RawMessage
	if a.File != "" && a.File != "*" {
		p, err := env.WS.Resolve(a.File)
		if err != nil {
			return nil, err
		}
		path = p.Abs
		doc := map[string]any{"textDocument": map[string]any{"uri": langserver.URI(p.Abs)}}
		if a.Line > 0 {
			at, err := lspPosition(env, p, a.Line, a.Symbol)
			if err != nil {
				return nil, err
			}
			doc["position"] = env.LS.Position(p.Abs, at)
		}
		params, _ = json.Marshal(doc)
	}
	if a.Payload != "" {
		if !json.Valid([]byte(a.Payload)) {
			return nil, usage("payload is not valid JSON: %q", ClipInput(a.Payload))
		}
		params = json.RawMessage(a.Payload)
	}
	server, res, err := env.LS.Request(ctx, path, a.Query, params)
	if err != nil {
		if server != "" {
			return nil, fmt.Errorf("LSP error from %s on %s: %w", server, a.Query, err)
		}
		return nil, err
	}
	var buf bytes.Buffer
	if len(res) == 0 {
		res = json.RawMessage("null")
	}
	if json.Indent(&buf, res, "", "  ") != nil {
		buf.Reset()
		buf.Write(res)
	}
	return &Result{Text: server + " ← " + a.Query + ":\n" + buf.String() + "\n", Details: &lspDetails{Action: a.Action, Server: server, Result: res}}, nil
}

// lspPlan turns a server's workspace edit into planned changes for the
// commit path (every path confined to the root).
func lspPlan(env *Env, we *langserver.WorkspaceEdit, note string) ([]planned, error) {
	var plans []planned
	for _, f := range we.Files() {
		p, err := env.WS.Resolve(f.Path)
		if err != nil {
			return nil, fmt.Errorf("the server's edit names %s: %w", f.Path, err)
		}
		switch {
		case f.Deleted && !f.Existed:
		case f.Deleted:
			plans = append(plans, plannedDelete(p, f.Old, note))
		case f.MovedFrom != "":
			from, err := env.WS.Resolve(f.MovedFrom)
			if err != nil {
				return nil, fmt.Errorf("the server's edit names %s: %w", f.MovedFrom, err)
			}
			pw := plannedWrite(p, nil, f.New, note)
			pw.ch.MovedFrom = from.Rel
			plans = append(plans, pw)
		case f.Existed && bytes.Equal(f.Old, f.New):
		case f.Existed:
			plans = append(plans, plannedWrite(p, f.Old, f.New, note))
		default:
			plans = append(plans, plannedWrite(p, nil, f.New, note))
		}
	}
	return plans, nil
}

// lspApplyEdit previews (apply false) or commits a server's edit, all or
// nothing; extra are planned changes of the same set (rename_file's move).
func lspApplyEdit(ctx context.Context, env *Env, a *lspArgs, tool, verb string, we *langserver.WorkspaceEdit, extra []planned) (*Result, error) {
	plans, err := lspPlan(env, we, strings.ToLower(verb)+" by language server")
	if err != nil {
		return nil, err
	}
	plans = append(plans, extra...)
	d := &lspDetails{Action: a.Action}
	edits := 0
	for _, f := range we.Files() {
		edits += f.Edits
	}
	if len(plans) == 0 {
		return &Result{Text: verb + " changes nothing\n", Details: d}, nil
	}
	if a.Apply != nil && !*a.Apply {
		var sb strings.Builder
		fmt.Fprintf(&sb, "%s preview (%d edit%s in %d file%s; nothing written, call again without apply:false to apply):\n", verb, edits, plural(edits), len(plans), plural(len(plans)))
		for _, pl := range plans {
			var nb []byte
			if !pl.ch.Delete {
				nb = pl.ch.New
			}
			sb.WriteString(edit.UnifiedDiff(pl.ch.Path.Rel, pl.old, nb))
		}
		return &Result{Text: sb.String(), Details: d}, nil
	}
	changes, err := commit(ctx, env, tool, plans, a.AllowVCS)
	if err != nil {
		return nil, err
	}
	d.Applied = true
	var sb strings.Builder
	fmt.Fprintf(&sb, "Applied %s: %d edit%s in %d file%s\n", strings.ToLower(verb), edits, plural(edits), len(changes), plural(len(changes)))
	for _, c := range changes {
		switch {
		case c.Op == "delete":
			fmt.Fprintf(&sb, "deleted %s\n", c.Path)
		case c.MovedFrom != "":
			fmt.Fprintf(&sb, "%s (moved from %s)\n", header(c.Path, c.NewTag), showName(c.MovedFrom))
		default:
			where := ""
			if c.Overlay {
				where = " (open in the editor: applied to its buffer)"
			}
			fmt.Fprintf(&sb, "%s%s\n", header(c.Path, c.NewTag), where)
		}
	}
	for _, c := range changes {
		sb.WriteString(c.Diff)
	}
	return &Result{Text: sb.String(), Details: d, Changes: changes}, nil
}

func lspRenameFile(ctx context.Context, env *Env, a *lspArgs) (*Result, error) {
	if a.File == "" || a.File == "*" || strings.TrimSpace(a.NewName) == "" {
		return nil, usage("rename_file needs file (the source) and newName (the destination path)")
	}
	src, err := env.WS.Resolve(a.File)
	if err != nil {
		return nil, err
	}
	dst, err := env.WS.Resolve(a.NewName)
	if err != nil {
		return nil, err
	}
	if src.Abs == dst.Abs {
		return nil, usage("rename_file: %s and %s are the same path", src.Rel, dst.Rel)
	}
	st, err := env.WS.Stat(src)
	if err != nil {
		return nil, err
	}
	if !st.Exists {
		return nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("lsp rename_file: %s does not exist", src.Rel)}
	}
	if env.WS.Exists(dst) {
		return nil, &Error{Kind: KindAlreadyExists, Message: fmt.Sprintf("lsp rename_file: %s exists; pick a new destination or delete it first", dst.Rel)}
	}
	pairs, err := renamePairs(env, src, dst, st.Dir)
	if err != nil {
		return nil, err
	}
	we, notes, err := env.LS.WillRenameFiles(ctx, pairs)
	if err != nil {
		return nil, err
	}
	extra, err := renamePlans(env, we, pairs)
	if err != nil {
		return nil, err
	}
	res, err := lspApplyEdit(ctx, env, a, "rename_file", "Rename", &langserver.WorkspaceEdit{}, extra)
	if err != nil {
		return nil, err
	}
	if a.Apply == nil || *a.Apply {
		env.LS.DidRenameFiles(ctx, pairs)
	}
	if len(notes) > 0 {
		res.Text += "Server notes:\n" + strings.Join(notes, "\n") + "\n"
		res.Warnings = append(res.Warnings, notes...)
	}
	return res, nil
}

// renamePairs are the files a rename_file of src to dst moves: src, or
// every regular file under it when it is a directory.
func renamePairs(env *Env, src, dst workspace.Path, isDir bool) ([]langserver.RenamePair, error) {
	var pairs []langserver.RenamePair
	if isDir {
		// Listed beneath the root (a directory swapped for a link out of
		// it meanwhile fails the walk).
		dir, err := env.WS.OpenDir(src)
		if err != nil {
			return nil, err
		}
		err = fs.WalkDir(dir.FS(), ".", func(rel string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if de.Type().IsRegular() {
				rel = filepath.FromSlash(rel)
				pairs = append(pairs, langserver.RenamePair{Old: filepath.Join(src.Abs, rel), New: filepath.Join(dst.Abs, rel)})
				if len(pairs) > lspRenamePairsMax {
					return fmt.Errorf("more than %d files", lspRenamePairsMax)
				}
			}
			return nil
		})
		dir.Close()
		if err != nil {
			return nil, &Error{Kind: KindTooLarge, Message: fmt.Sprintf("lsp rename_file: %s: %v; move fewer files at once", src.Rel, err)}
		}
	} else {
		pairs = []langserver.RenamePair{{Old: src.Abs, New: dst.Abs}}
	}
	if len(pairs) == 0 {
		return nil, usage("rename_file: %s has no files to move", src.Rel)
	}
	return pairs, nil
}

// renamePlans plans a rename_file: what the servers changed (we) beyond the
// moved files, then the moves. The servers' edits name the files at their
// old paths; the move carries each file's edited content to its new path.
func renamePlans(env *Env, we *langserver.WorkspaceEdit, pairs []langserver.RenamePair) ([]planned, error) {
	files := map[string]langserver.FileState{}
	for _, f := range we.Files() {
		files[f.Path] = f
	}
	var moves []planned
	for _, pr := range pairs {
		from, err := env.WS.Resolve(pr.Old)
		if err != nil {
			return nil, err
		}
		to, err := env.WS.Resolve(pr.New)
		if err != nil {
			return nil, err
		}
		f, err := env.WS.ReadFile(from)
		if err != nil {
			return nil, err
		}
		content := f.Bytes
		if fs, ok := files[pr.Old]; ok && !fs.Deleted {
			content = fs.New
			delete(files, pr.Old)
		}
		w := plannedWrite(to, nil, content, "moved by rename_file")
		w.ch.MovedFrom = from.Rel
		moves = append(moves, w, plannedDelete(from, f.Bytes, "moved by rename_file"))
	}
	// What the servers changed beyond the moved files.
	restPlans, err := lspPlan(env, we, "rename_file by language server")
	if err != nil {
		return nil, err
	}
	var extra []planned
	moved := map[string]bool{}
	for _, pr := range pairs {
		moved[pr.Old] = true
	}
	for _, pl := range restPlans {
		if !moved[pl.ch.Path.Abs] {
			extra = append(extra, pl)
		}
	}
	return append(extra, moves...), nil
}

func lspCodeActions(ctx context.Context, env *Env, a *lspArgs, p workspace.Path) (*Result, error) {
	at, err := lspPosition(env, p, a.Line, a.Symbol)
	if err != nil {
		return nil, err
	}
	applying := a.Apply != nil && *a.Apply
	only := a.Query
	if applying {
		only = ""
	}
	acts, err := env.LS.CodeActions(ctx, p.Abs, at, only)
	if err != nil {
		return nil, err
	}
	d := &lspDetails{Action: a.Action, Actions: acts}
	list := func() string {
		var sb strings.Builder
		for i, c := range acts {
			kind := ""
			if c.Kind != "" {
				kind = "[" + c.Kind + "] "
			}
			fmt.Fprintf(&sb, "%d: %s%s\n", i, kind, c.Title)
		}
		return sb.String()
	}
	if !applying {
		if len(acts) == 0 {
			return &Result{Text: "No code actions at " + p.Rel + ":" + strconv.Itoa(at.Line) + "\n", Details: d}, nil
		}
		return &Result{Text: fmt.Sprintf("%d code action%s:\n%s", len(acts), plural(len(acts)), list()), Details: d}, nil
	}
	if strings.TrimSpace(a.Query) == "" {
		return nil, usage("applying a code action needs query: its index or a part of its title (list them first with apply omitted)")
	}
	pick := -1
	if n, err := strconv.Atoi(strings.TrimSpace(a.Query)); err == nil && n >= 0 && n < len(acts) {
		pick = n
	} else {
		for i, c := range acts {
			if strings.Contains(strings.ToLower(c.Title), strings.ToLower(a.Query)) {
				pick = i
				break
			}
		}
	}
	if pick < 0 {
		return &Result{Text: fmt.Sprintf("No code action matches %q. Available actions:\n%s", a.Query, list()), Details: d}, nil
	}
	we, cmds, err := env.LS.ResolveCodeAction(ctx, p.Abs, acts[pick])
	if err != nil {
		return nil, err
	}
	if we.Empty() && len(cmds) == 0 {
		return &Result{Text: fmt.Sprintf("Action %q has no workspace edit or command to apply\n", acts[pick].Title), Details: d}, nil
	}
	if we.Empty() {
		return &Result{Text: fmt.Sprintf("Applied %q:\nExecuted command(s): %s\n", acts[pick].Title, strings.Join(cmds, ", ")), Details: d}, nil
	}
	res, err := lspApplyEdit(ctx, env, a, "code_action", "Code action", we, nil)
	if err != nil {
		return nil, err
	}
	res.Text = fmt.Sprintf("Applied %q:\n", acts[pick].Title) + res.Text
	if len(cmds) > 0 {
		res.Text += "Executed command(s): " + strings.Join(cmds, ", ") + "\n"
	}
	return res, nil
}

func toLSPDiag(env *Env, d langserver.Diagnostic) lspDiagnostic {
	name := d.Path
	if p, err := env.WS.Resolve(d.Path); err == nil {
		name = p.Rel
	}
	return lspDiagnostic{Path: name, Line: d.Start.Line, Col: d.Start.Col + 1, EndLine: d.End.Line, Severity: d.Severity, Source: d.Source, Code: d.Code, Message: d.Message}
}

func lspDiagnostics(ctx context.Context, env *Env, a *lspArgs) (*Result, error) {
	if a.File == "" {
		return nil, usage("diagnostics needs file: a path, a glob, or \"*\" for the workspace")
	}
	d := &lspDetails{Action: a.Action}
	var targets []workspace.Path
	truncated := false
	switch {
	case a.File == "*":
		return lspWorkspaceDiagnostics(ctx, env, a)
	case strings.ContainsAny(a.File, "*?[{"):
		files, err := lspHandledFiles(ctx, env, a.File, 1000)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, usage("no file a language server handles matches %s", QuoteInput(a.File))
		}
		if len(files) > lspGlobTargets {
			files, truncated = files[:lspGlobTargets], true
		}
		targets = files
	default:
		p, err := env.WS.Resolve(a.File)
		if err != nil {
			return nil, err
		}
		targets = []workspace.Path{p}
	}
	var sb strings.Builder
	if truncated {
		fmt.Fprintf(&sb, "Warning: the glob matches more than %d files; showing the first %d\n", lspGlobTargets, lspGlobTargets)
	}
	for i, p := range targets {
		// The first file waits for the project to load; the rest are
		// diagnosed by then and get lspBatchWait each.
		wctx, cancel := context.WithTimeout(ctx, lspBatchWait)
		if i == 0 {
			wctx, cancel = context.WithCancel(ctx)
		}
		ds, fresh, err := env.LS.Diagnostics(wctx, p.Abs)
		cancel()
		if err != nil {
			if len(targets) == 1 {
				return nil, err
			}
			fmt.Fprintf(&sb, "%s: %v\n", showName(p.Rel), err)
			continue
		}
		for _, x := range ds {
			d.Diagnostics = append(d.Diagnostics, toLSPDiag(env, x))
		}
		if len(targets) > 1 {
			sb.WriteString(p.Rel + ": ")
		}
		if !fresh {
			sb.WriteString("(no fresh diagnostics in time; showing the last published) ")
		}
		sb.WriteString(renderDiagnostics(env, ds))
	}
	return &Result{Text: sb.String(), Details: d}, nil
}

func lspWorkspaceDiagnostics(ctx context.Context, env *Env, a *lspArgs) (*Result, error) {
	// Open one file per server (its diagnostics come once the project is
	// loaded), then let the servers publish the rest of the workspace.
	files, err := lspHandledFiles(ctx, env, "**/*", 1000)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, usage("no file here is handled by a language server; run status to see the configured servers")
	}
	opened := map[string]bool{}
	for _, p := range files {
		name, err := env.LS.ServerFor(ctx, p.Abs)
		if err != nil || opened[name] {
			continue
		}
		opened[name] = true
		if _, _, err := env.LS.Diagnostics(ctx, p.Abs); err != nil {
			return nil, err
		}
	}
	env.LS.Settle(ctx, lspSettle)
	all := env.LS.Cached()
	paths := make([]string, 0, len(all))
	for p := range all {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	d := &lspDetails{Action: a.Action}
	var ds []langserver.Diagnostic
	for _, p := range paths {
		if rp, err := env.WS.Resolve(p); err != nil || strings.HasPrefix(rp.Rel, "..") {
			continue
		}
		ds = append(ds, all[p]...)
	}
	for _, x := range ds {
		d.Diagnostics = append(d.Diagnostics, toLSPDiag(env, x))
	}
	return &Result{Text: "Workspace diagnostics (what the servers published): " + renderDiagnostics(env, ds), Details: d}, nil
}

// lspHandledFiles lists the files matching glob that a server handles.
func lspHandledFiles(ctx context.Context, env *Env, glob string, limit int) ([]workspace.Path, error) {
	res, err := runInner(ctx, env, findTool{}, map[string]any{"paths": glob, "limit": limit})
	if err != nil {
		return nil, err
	}
	var out []workspace.Path
	if fd, _ := res.Details.(*findDetails); fd != nil {
		for _, f := range fd.Files {
			if p, err := env.WS.Resolve(f); err == nil && env.LS.Handles(p.Abs) {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// renderDiagnostics renders diagnostics as "OK" or a summary and one
// row per diagnostic (path:line:col severity [source code] message).
func renderDiagnostics(env *Env, ds []langserver.Diagnostic) string {
	if len(ds) == 0 {
		return "OK\n"
	}
	count := map[string]int{}
	for _, x := range ds {
		count[x.Severity]++
	}
	var parts []string
	for _, s := range []string{"error", "warning", "info", "hint"} {
		if n := count[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s%s", n, s, plural(n)))
		}
	}
	var sb strings.Builder
	sb.WriteString(strings.Join(parts, ", ") + ":\n")
	for i, x := range ds {
		if i == lspDiagnosticsLimit {
			fmt.Fprintf(&sb, "... %d more\n", len(ds)-i)
			break
		}
		sb.WriteString(diagRow(toLSPDiag(env, x)))
	}
	return sb.String()
}

func diagRow(x lspDiagnostic) string {
	src := x.Source
	if x.Code != "" {
		src = strings.TrimSpace(src + " " + x.Code)
	}
	if src != "" {
		src = "[" + src + "] "
	}
	return fmt.Sprintf("%s:%d:%d %s %s%s\n", x.Path, x.Line, x.Col, x.Severity, src, firstLineOf(x.Message))
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
