package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hashls/hashls/treesitter"
)

// Code action kinds offered at the cursor.
const (
	kindDeleteBlock protocol.CodeActionKind = "refactor.hashls.deleteBlock"
	kindSelectBlock protocol.CodeActionKind = "refactor.hashls.selectBlock"
	kindCopyAnchor  protocol.CodeActionKind = "refactor.hashls.copyBlockAnchor"
	kindOutline     protocol.CodeActionKind = "source.hashls.outline"
)

// blockArgs is the argument of hashls.selectBlock and hashls.copyBlockAnchor.
type blockArgs struct {
	URI  uri.URI `json:"uri"`
	Line int     `json:"line"` // 1-based first line of the block
}

// CodeAction offers, for the block at the cursor: delete it, select it, copy
// its hashline anchor; and for the file: outline it.
func (s *server) CodeAction(ctx context.Context, params *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	if r := params.Range; posAfter(r.Start, r.End) {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "codeAction range starts at %d:%d, after its end %d:%d", r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)
	}
	sn, err := s.snapshotOf(params.TextDocument.URI)
	if err != nil {
		return nil, invalidParams(err)
	}
	s.mu.Lock()
	caps := s.caps
	s.mu.Unlock()
	only := params.Context.Only
	out := []protocol.CommandOrCodeAction{}
	add := func(kind protocol.CodeActionKind, title string, cmd *protocol.Command, edit *protocol.WorkspaceEdit) {
		if !kindWanted(kind, only) {
			return
		}
		if !caps.codeActionLiterals {
			if cmd != nil {
				out = append(out, cmd)
			}
			return
		}
		k := kind
		ca := &protocol.CodeAction{Title: title, Kind: &k, Edit: edit}
		if cmd != nil {
			ca.Command = *cmd
		}
		out = append(out, ca)
	}

	line := int(params.Range.Start.Line) + 1
	if start, end, ok := s.blockAt(ctx, sn, line); ok {
		span := fmt.Sprintf("lines %d–%d", start, end)
		arg, _ := json.Marshal(blockArgs{URI: sn.uri, Line: start})
		// The block goes with its doc comment, as its summary shows them.
		from := treesitter.DocCommentStart(ctx, sn.name, engineText(sn.text), start)
		if edit := deleteLinesEdit(sn, from, end, caps); edit != nil {
			add(kindDeleteBlock, fmt.Sprintf("Delete block (lines %d–%d)", from, end), nil, edit)
		}
		add(kindSelectBlock, "Select block ("+span+")",
			&protocol.Command{Title: "Select block (" + span + ")", Command: cmdSelectBlock, Arguments: []protocol.LSPAny{arg}}, nil)
		if sn.hasPath {
			add(kindCopyAnchor, "Copy block anchor (replace block "+fmt.Sprint(start)+")",
				&protocol.Command{Title: "Copy block anchor", Command: cmdCopyAnchor, Arguments: []protocol.LSPAny{arg}}, nil)
		}
	}
	if sn.hasPath {
		arg, _ := json.Marshal(map[string]uri.URI{"uri": sn.uri})
		add(kindOutline, "Outline this file",
			&protocol.Command{Title: "Outline this file", Command: cmdOutline, Arguments: []protocol.LSPAny{arg}}, nil)
	}
	return out, nil
}

func kindWanted(kind protocol.CodeActionKind, only []protocol.CodeActionKind) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if kind == o || strings.HasPrefix(string(kind), string(o)+".") {
			return true
		}
	}
	return false
}

// blockAt finds the block at 1-based line: the block beginning on that line,
// else the innermost symbol around it whose block contains the line. It
// returns the block's inclusive 1-based lines as the hashline engine sees
// them (the same resolver answers `replace block N:`).
func (s *server) blockAt(ctx context.Context, sn *snapshot, line int) (start, end int, ok bool) {
	if !treesitter.Supported(sn.name) {
		return 0, 0, false
	}
	text := engineText(sn.text)
	if a, b, ok := s.resolver.BlockRangeCtx(ctx, sn.name, text, line); ok {
		return a, b, true
	}
	syms, err := treesitter.DocumentSymbols(ctx, sn.name, sn.text)
	if err != nil {
		return 0, 0, false
	}
	// Collect the symbols around the line, outermost first.
	var chain []treesitter.Symbol
	for level := syms; ; {
		found := false
		for _, sym := range level {
			if sym.Range.StartPoint.Row+1 <= line && line <= sym.Range.EndPoint.Row+1 {
				chain = append(chain, sym)
				level = sym.Children
				found = true
				break
			}
		}
		if !found {
			break
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		first := chain[i].Range.StartPoint.Row + 1
		if a, b, ok := s.resolver.BlockRangeCtx(ctx, sn.name, text, first); ok && a <= line && line <= b {
			return a, b, true
		}
	}
	return 0, 0, false
}

// engineText is text as the hashline engine sees it: BOM-free, LF line
// endings (line numbers are unchanged).
func engineText(text []byte) []byte {
	text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
	if bytes.IndexByte(text, '\r') < 0 {
		return text
	}
	return bytes.ReplaceAll(text, []byte("\r\n"), []byte("\n"))
}

// blockRange is the LSP range of 1-based lines [start, end], from the start
// of start to the end of end's content.
func blockRange(sn *snapshot, start, end int) protocol.Range {
	a := sn.m.lineStart(start - 1)
	b := sn.m.lineEnd(min(end-1, sn.m.lineCount()-1))
	return sn.m.rangeOf(a, b)
}

// deleteLinesEdit deletes 1-based lines [start, end] with their line break.
func deleteLinesEdit(sn *snapshot, start, end int, caps clientCaps) *protocol.WorkspaceEdit {
	if start < 1 || end < start || start > sn.m.lineCount() {
		return nil
	}
	a := sn.m.lineStart(start - 1)
	b := sn.m.lineStart(end) // start of the next line: includes the break
	if end >= sn.m.lineCount() || b == len(sn.text) && (b == 0 || sn.text[b-1] != '\n' && sn.text[b-1] != '\r') {
		// The block runs to the end of a file without a final line break:
		// take the break before it instead.
		b = len(sn.text)
		if start > 1 {
			a = sn.m.lineEnd(start - 2)
		}
	}
	params := buildApplyEdit(sn.uri, sn.version, []protocol.TextEdit{{Range: sn.m.rangeOf(a, b)}}, fmt.Sprintf("Delete block (lines %d–%d)", start, end), caps)
	return &params.Edit
}

// selectBlockCommand answers hashls.selectBlock {uri, line}: the range of the
// block beginning on (or enclosing) line, for the plugins to select.
func (s *server) selectBlockCommand(ctx context.Context, arg []byte) (protocol.LSPAny, error) {
	sn, start, end, err := s.blockFromArg(ctx, arg)
	if err != nil {
		return nil, err
	}
	return marshalAny(map[string]any{
		"uri": sn.uri, "range": blockRange(sn, start, end), "startLine": start, "endLine": end,
	})
}

// copyAnchorCommand answers hashls.copyBlockAnchor {uri, line}: the hashline
// anchor of the block, "¶path#TAG\nreplace block N:", with the tag minted
// (by the read tool) over the current buffer.
func (s *server) copyAnchorCommand(ctx context.Context, arg []byte, token protocol.ProgressToken) (protocol.LSPAny, error) {
	sn, start, end, err := s.blockFromArg(ctx, arg)
	if err != nil {
		return nil, err
	}
	if !sn.hasPath {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s is not a file inside the workspace; save it first", sn.uri)
	}
	tag, err := s.mintTag(ctx, sn, start, token)
	if err != nil {
		return nil, err
	}
	anchor := "¶" + sn.path.Rel + "#" + tag
	return marshalAny(map[string]any{
		"text":      anchor + "\nreplace block " + fmt.Sprint(start) + ":",
		"anchor":    anchor,
		"tag":       tag,
		"path":      sn.path.Rel,
		"startLine": start,
		"endLine":   end,
		"range":     blockRange(sn, start, end),
	})
}

// mintTag runs the read tool on one line of the document and returns the
// tag the result shows the file under.
func (s *server) mintTag(ctx context.Context, sn *snapshot, line int, token protocol.ProgressToken) (string, error) {
	args, _ := json.Marshal(map[string]string{"path": fmt.Sprintf("%s:%d-%d", sn.path.Rel, line, line)})
	res, err := s.callTool(ctx, "read", args, token)
	if err != nil {
		return "", err
	}
	for _, f := range res.Shown {
		if f.Path == sn.path.Rel {
			return f.Tag, nil
		}
	}
	return "", jsonrpc2.Errorf(jsonrpc2.InternalError, "the read tool returned no tag for %s", sn.path.Rel)
}

// outlineCommand answers hashls.outline {uri}: the read tool's structural
// summary of the file ({text, details}).
func (s *server) outlineCommand(ctx context.Context, arg []byte, token protocol.ProgressToken) (protocol.LSPAny, error) {
	var a struct {
		URI uri.URI `json:"uri"`
	}
	if err := json.Unmarshal(orEmpty(arg), &a); err != nil || a.URI == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s takes {\"uri\": <document uri>}", cmdOutline)
	}
	var rel string
	if sn, err := s.snapshotOf(a.URI); err == nil && sn.hasPath {
		rel = sn.path.Rel
	} else if p, ok := uriToPath(a.URI); ok {
		rel = p
	} else {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s is not a file; only files can be outlined", a.URI)
	}
	args, _ := json.Marshal(map[string]string{"path": rel})
	return s.runTool(ctx, "read", args, token)
}

// blockFromArg decodes {uri, line} and resolves the block there.
func (s *server) blockFromArg(ctx context.Context, arg []byte) (*snapshot, int, int, error) {
	var a blockArgs
	if err := json.Unmarshal(orEmpty(arg), &a); err != nil || a.URI == "" || a.Line < 1 {
		return nil, 0, 0, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "expected {\"uri\": <document uri>, \"line\": <1-based line>}")
	}
	sn, err := s.snapshotOf(a.URI)
	if err != nil {
		return nil, 0, 0, invalidParams(err)
	}
	start, end, ok := s.blockAt(ctx, sn, a.Line)
	if !ok {
		return nil, 0, 0, jsonrpc2.Errorf(jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed), "no block begins on or encloses line %d of %s", a.Line, sn.relName())
	}
	return sn, start, end, nil
}

func orEmpty(b []byte) []byte {
	if len(b) == 0 {
		return []byte("{}")
	}
	return b
}
