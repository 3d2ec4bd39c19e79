// Package treesitter knows source languages: the registry by file name,
// parsing through pooled tree-sitter parsers with a content-keyed tree cache,
// block resolution ("the node that begins on line N"), structural summaries,
// document symbols, folding ranges and selection ranges. It knows nothing of
// tools, paths on disk or LSP; positions are byte offsets and 0-based rows.
//
// Entry points: LanguageFor, Supported, DefaultResolver / (*Resolver).BlockRange
// (which satisfies edit.BlockResolver), SyntaxErrors / (*Resolver).SyntaxErrors
// (the edit engine's parse proof: ERROR and MISSING nodes, named or not,
// walked on the C tree), Summarize, DocumentSymbols, FoldingRanges,
// SelectionRanges. In Markdown a heading resolves to its whole section.
//
// Use of the C library: a parser serves one goroutine at a time (idle ones
// wait in a small per-language free list); a parse is copied into an
// immutable Go tree of named nodes and the C tree is closed, so results can
// be shared freely. The cache (bounded LRU keyed by sha256 of the content)
// may keep a C tree between a summary (which copies only a pruned skeleton)
// and the first block op on the same text; it is then guarded by the cache
// entry's mutex and closed on eviction. Parses take a context and can be
// cancelled. There is no incremental reparsing.
package treesitter
