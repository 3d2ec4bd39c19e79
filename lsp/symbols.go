package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hashls/hashls/treesitter"
)

// This file serves the tree-sitter features: document symbols, folding
// ranges and selection ranges. They parse the buffer on demand (the
// treesitter package caches parse trees by content), so there is no warm-up.
// A language without a grammar yields empty results, not errors.

// DocumentSymbol returns the outline of an open document.
func (s *server) DocumentSymbol(ctx context.Context, params *protocol.DocumentSymbolParams) (protocol.DocumentSymbolResult, error) {
	sn, err := s.snapshotOf(params.TextDocument.URI)
	if err != nil {
		return nil, invalidParams(err)
	}
	out := protocol.DocumentSymbolSlice{}
	if !treesitter.Supported(sn.name) {
		return out, nil
	}
	syms, err := treesitter.DocumentSymbols(ctx, sn.name, sn.text)
	if err != nil {
		return nil, requestFailed(ctx, "documentSymbol", err)
	}
	for _, sym := range syms {
		out = append(out, convertSymbol(sn.m, sym))
	}
	return out, nil
}

func convertSymbol(m *mapper, sym treesitter.Symbol) protocol.DocumentSymbol {
	ds := protocol.DocumentSymbol{
		Name:           sym.Name,
		Kind:           symbolKind(sym.Kind),
		Range:          m.rangeOf(sym.Range.Start, sym.Range.End),
		SelectionRange: m.rangeOf(sym.Selection.Start, sym.Selection.End),
	}
	if ds.Name == "" {
		ds.Name = "(anonymous)" // clients reject empty names
	}
	if sym.Detail != "" {
		d := sym.Detail
		ds.Detail = &d
	}
	// selectionRange must lie inside range.
	if sym.Selection.Start < sym.Range.Start || sym.Selection.End > sym.Range.End {
		ds.SelectionRange = protocol.Range{Start: ds.Range.Start, End: ds.Range.Start}
	}
	for _, c := range sym.Children {
		ds.Children = append(ds.Children, convertSymbol(m, c))
	}
	return ds
}

var symbolKinds = map[string]protocol.SymbolKind{
	"file": protocol.SymbolKindFile, "module": protocol.SymbolKindModule,
	"namespace": protocol.SymbolKindNamespace, "package": protocol.SymbolKindPackage,
	"class": protocol.SymbolKindClass, "method": protocol.SymbolKindMethod,
	"property": protocol.SymbolKindProperty, "field": protocol.SymbolKindField,
	"constructor": protocol.SymbolKindConstructor, "enum": protocol.SymbolKindEnum,
	"interface": protocol.SymbolKindInterface, "function": protocol.SymbolKindFunction,
	"variable": protocol.SymbolKindVariable, "constant": protocol.SymbolKindConstant,
	"string": protocol.SymbolKindString, "key": protocol.SymbolKindKey,
	"object": protocol.SymbolKindObject, "array": protocol.SymbolKindArray,
	"enummember": protocol.SymbolKindEnumMember, "enum_member": protocol.SymbolKindEnumMember,
	"struct": protocol.SymbolKindStruct, "event": protocol.SymbolKindEvent,
	"operator": protocol.SymbolKindOperator, "type": protocol.SymbolKindClass, // a named type (alias or definition), as gopls shows them
	"typeparameter": protocol.SymbolKindTypeParameter, "type_parameter": protocol.SymbolKindTypeParameter,
	"trait": protocol.SymbolKindInterface, "impl": protocol.SymbolKindClass,
	"heading": protocol.SymbolKindString, "section": protocol.SymbolKindString,
}

func symbolKind(k string) protocol.SymbolKind {
	if v, ok := symbolKinds[k]; ok {
		return v
	}
	return protocol.SymbolKindVariable
}

// FoldingRanges returns the foldable line spans of an open document.
func (s *server) FoldingRanges(ctx context.Context, params *protocol.FoldingRangeParams) ([]protocol.FoldingRange, error) {
	sn, err := s.snapshotOf(params.TextDocument.URI)
	if err != nil {
		return nil, invalidParams(err)
	}
	out := []protocol.FoldingRange{}
	if !treesitter.Supported(sn.name) {
		return out, nil
	}
	frs, err := treesitter.FoldingRanges(ctx, sn.name, sn.text)
	if err != nil {
		return nil, requestFailed(ctx, "foldingRange", err)
	}
	last := sn.m.lineCount() - 1
	for _, fr := range frs {
		if fr.StartRow < 0 || fr.EndRow <= fr.StartRow || fr.EndRow > last {
			continue
		}
		r := protocol.FoldingRange{StartLine: uint32(fr.StartRow), EndLine: uint32(fr.EndRow)}
		switch fr.Kind {
		case "comment":
			r.Kind = protocol.FoldingRangeKindComment
		case "imports":
			r.Kind = protocol.FoldingRangeKindImports
		case "region":
			r.Kind = protocol.FoldingRangeKindRegion
		}
		out = append(out, r)
	}
	return out, nil
}

// SelectionRange returns, for each position, the chain of enclosing syntax
// nodes (innermost first, linked through parent).
func (s *server) SelectionRange(ctx context.Context, params *protocol.SelectionRangeParams) ([]protocol.SelectionRange, error) {
	sn, err := s.snapshotOf(params.TextDocument.URI)
	if err != nil {
		return nil, invalidParams(err)
	}
	offsets := make([]int, len(params.Positions))
	for i, p := range params.Positions {
		offsets[i] = sn.m.offset(p)
	}
	var chains [][]treesitter.Range
	if treesitter.Supported(sn.name) {
		chains, err = treesitter.SelectionRanges(ctx, sn.name, sn.text, offsets)
		if err != nil {
			return nil, requestFailed(ctx, "selectionRange", err)
		}
	}
	out := make([]protocol.SelectionRange, len(offsets))
	for i, off := range offsets {
		var chain []treesitter.Range
		if i < len(chains) {
			chain = chains[i]
		}
		// Build outermost-first so that each parent pointer is ready.
		var parent *protocol.SelectionRange
		var prev *treesitter.Range
		for j := len(chain) - 1; j >= 0; j-- {
			r := chain[j]
			if prev != nil && (r.Start < prev.Start || r.End > prev.End || r.Start == prev.Start && r.End == prev.End) {
				continue // parents must strictly contain children
			}
			sr := &protocol.SelectionRange{Range: sn.m.rangeOf(r.Start, r.End), Parent: parent}
			parent = sr
			prev = &chain[j]
		}
		if parent == nil {
			parent = &protocol.SelectionRange{Range: sn.m.rangeOf(off, off)}
		}
		out[i] = *parent
	}
	return out, nil
}

func invalidParams(err error) error {
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
}

func requestFailed(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return protocol.ErrRequestCancelled
	}
	return jsonrpc2.Errorf(jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed), "%s: %v", what, fmt.Sprint(err))
}
