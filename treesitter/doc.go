// Package treesitter knows source languages: the registry by file name,
// parsing through pooled tree-sitter parsers with a content-keyed tree cache,
// block resolution ("the node that begins on line N"), structural summaries,
// document symbols, folding ranges and selection ranges. It knows nothing of
// tools, paths on disk or LSP; positions are byte offsets and 0-based rows.
//
// Entry points: LanguageFor, (*Resolver).BlockRange, Summarize,
// DocumentSymbols, FoldingRanges, SelectionRanges.
package treesitter
