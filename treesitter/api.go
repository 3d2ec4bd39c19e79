package treesitter

import (
	"context"
)

// Point is a position: 0-based row and 0-based byte column within the row.
type Point struct {
	Row, Column int
}

// Range is a span of text: byte offsets [Start, End) plus the same as points.
type Range struct {
	Start, End           int
	StartPoint, EndPoint Point
}

// Symbol is a document symbol (outline entry).
type Symbol struct {
	Name      string
	Kind      string // "function", "method", "class", "struct", "interface", "type", "enum", "constant", "variable", "field", "module", "namespace", "property", "constructor", "key", ...
	Detail    string // e.g. the signature line, may be ""
	Range     Range  // the whole declaration
	Selection Range  // the name
	Children  []Symbol
}

// FoldingRange is a foldable span of rows (0-based, inclusive).
type FoldingRange struct {
	StartRow, EndRow int
	Kind             string // "comment", "imports" or "region"
}

// Supported reports whether path's language has a grammar.
func Supported(path string) bool { return LanguageFor(path) != nil }

// Resolver resolves blocks; it satisfies edit.BlockResolver. The zero value
// is ready to use and shares the package's parse cache.
type Resolver struct{}

// DefaultResolver is the resolver the tools use.
var DefaultResolver = &Resolver{}

// BlockRange returns the inclusive 1-based span of the block beginning on line.
func (r *Resolver) BlockRange(path, text string, line int) (start, end int, ok bool) {
	return blockRange(context.Background(), path, []byte(text), line)
}

// BlockRangeCtx is BlockRange with a context that cancels the parse.
func (r *Resolver) BlockRangeCtx(ctx context.Context, path string, text []byte, line int) (start, end int, ok bool) {
	return blockRange(ctx, path, text, line)
}

// DocumentSymbols returns the outline of text for path's language. The
// result may share memory with later results: do not modify it.
func DocumentSymbols(ctx context.Context, path string, text []byte) ([]Symbol, error) {
	if lang := LanguageFor(path); lang != nil {
		if syms, ok, err := defaultCache.entry(lang, text).docSymbols(ctx); ok {
			return syms, err
		}
	}
	t, err := parse(ctx, LanguageFor(path), text)
	if err != nil {
		return nil, err
	}
	return documentSymbols(t, text), nil
}

// FoldingRanges returns the foldable spans of text.
func FoldingRanges(ctx context.Context, path string, text []byte) ([]FoldingRange, error) {
	t, err := parse(ctx, LanguageFor(path), text)
	if err != nil {
		return nil, err
	}
	return foldingRanges(t, text), nil
}

// SelectionRanges returns, for each byte offset, the chain of enclosing
// syntax node ranges from innermost to outermost.
func SelectionRanges(ctx context.Context, path string, text []byte, offsets []int) ([][]Range, error) {
	t, err := parse(ctx, LanguageFor(path), text)
	if err != nil {
		return nil, err
	}
	out := make([][]Range, len(offsets))
	for i, off := range offsets {
		out[i] = selectionChain(t, off)
	}
	return out, nil
}
