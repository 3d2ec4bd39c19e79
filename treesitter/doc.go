// Package treesitter knows source languages: the registry by file name,
// parsing through pooled tree-sitter parsers with a content-keyed tree cache,
// incremental reparsing of open documents, block resolution ("the node that
// begins on line N"), structural summaries, document symbols, folding ranges
// and selection ranges. It knows nothing of tools, paths on disk or LSP;
// positions are byte offsets and 0-based rows.
//
// Entry points: LanguageFor, Supported, DefaultResolver / (*Resolver).BlockRange
// (which satisfies edit.BlockResolver), SyntaxErrors / (*Resolver).SyntaxErrors
// (the edit engine's parse proof: ERROR and MISSING nodes, named or not,
// walked on the C tree), Summarize, DocumentSymbols, FoldingRanges,
// SelectionRanges; OpenDocument, EditDocument and CloseDocument for open
// documents. In Markdown a heading resolves to its whole section.
//
// Use of the C library: the C that reads trees is in trees.c (declared in
// flat.h), written against the runtime's own headers (the pinned copy in
// internal/reparser); a parser serves one goroutine at a time (idle ones
// wait in a small per-language free list); a parse is copied into an
// immutable Go tree of named nodes and the C tree is closed, so results can
// be shared freely. The cache (bounded LRU keyed by sha256 of the content)
// may keep a C tree between a summary (which copies only a pruned skeleton)
// and the first block op on the same text; it is then guarded by the cache
// entry's mutex and closed on eviction. Parses take a context and can be
// cancelled. Linking the package turns glibc's fastbins off for the
// process, before main, on its only thread (malloc.go: a freed tree's
// nodes are merged as they are freed, not all at once by the next
// keystroke's allocation).
//
// Incremental parsing (docs.go): an open document (OpenDocument, keyed by
// the caller, e.g. an editor's URI) keeps the C tree of its last parse.
// EditDocument applies each change to it with ts_tree_edit (byte offsets
// from the caller, checked against the two texts; rows and columns derived
// here from the bytes, "\n" only, as tree-sitter counts them), and the next
// parse of exactly the document's current text, by any entry point,
// reparses with that tree. While a document keeps a tree, the cache entry
// of its current text is the document's own (found by comparing texts, not
// hashed into the content cache, and sharing the document's text instead of
// copying it). A document opened on a text the content cache already holds
// is answered from there, and gets its tree and symbols from a whole parse
// in the background (prime: one document at a time, cancelled by
// CloseDocument, its tree kept only where it fits within the limits without
// freeing another's); a reparse requested meanwhile waits for it, unless
// its context ends or the document closes. The complete Go tree and the
// document symbols are then
// built reusing the previous build's copies of the top-level subtrees the
// new tree shares with it (identified by the address of their shared,
// immutable C subtree, kept alive by a copy of the tree they came from),
// moved to their new position. For the symbols the walk itself
// (trees.c) skips what it saw last time: a declaration, or a whole run
// of them under a hidden repetition node, that the new tree shares with
// the last walk's is placed from that walk's record of it, without reading
// its C memory (which the last whole parse may have evicted), so a change
// reads only the nodes the reparse made. A reparse whose tree has a
// syntax error is redone whole: error
// recovery depends on the subtrees the parser reuses, so such a tree may
// differ from a whole parse's. Results equal those of a whole parse
// (TestIncrementalLikeFresh, FuzzIncremental). Reparses run on a copy of
// tree-sitter's runtime with one change (package reparser): upstream's
// reparse of Python reused nothing after a change to the first token of a
// block's first statement, and cost a whole parse
// (TestPythonBlockStartReuses).
//
// Why two runtimes: one (the patched copy, behind a small cgo layer, with
// each grammar from a module that compiles only the grammar) needs all 32
// grammars as such modules, and the Go module proxy serves them for 22
// only (checked 2026-11-27, exact versions, since it lists none). It has
// nothing usable for cue (eonpatapon's repository has no Go binding),
// dockerfile (v0.2.0 has none; later commits only a nested module that
// cannot reach the sources), elm (v5 tags on a path without /v5; the
// +incompatible zip is refused), groovy (murtaza64's only Go module is
// nested and declares another path), protobuf (mitchellh's has no Go
// binding), sql (v0.3.11's module lacks the generated parser.c) and swift
// (go.mod declares another path and an invalid requirement; tags lack the
// v), and only a different grammar of the same name for kotlin, lua and
// svelte (tree-sitter-grammars' rewrites, without node kinds this package
// uses). So the binding's runtime and grammars stay; the README's
// "One tree-sitter runtime?" has the module-by-module record.
//
// Pitfalls of the smacker/go-tree-sitter binding this package works around:
//   - ParseCtx sets the parser's cancellation flag from a goroutine and
//     never clears it: a parser whose context may have been cancelled is
//     closed, never pooled (parseWatched).
//   - (*Tree).Edit passes the old end point as the new end point; edits call
//     ts_tree_edit directly (editTree).
//   - ParseCtx copies the whole text into freshly malloc'ed C memory for
//     each parse, which costs as much as reparsing a one-letter change in a
//     large file: reparses (reparser's) parse the Go bytes in place, and
//     their C tree is given to the binding by swapping it into a copy of
//     the old tree's wrapper (adoptTree).
//   - A *sitter.Tree is not safe for concurrent use, and its Node wrappers
//     are cached per tree: a document's tree is used under its mutex only
//     and callers get a ts_tree_copy of each parse, never the tree itself.
//   - Trees are freed by finalizers only if nobody closes them: every tree
//     here is closed explicitly (evictions, CloseDocument, replaced trees).
//   - Lua's grammar parses some invalid texts differently from one parse to
//     the next, so no test can compare its trees with a fresh parse.
//
// Limits: at most 256 open documents, at most 16 of them (2 MB of text)
// keep trees between parses, least recently reparsed dropped first;
// CloseDocument frees a document's trees.
package treesitter
