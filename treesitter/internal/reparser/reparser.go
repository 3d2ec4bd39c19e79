// Package reparser is the parser the treesitter package reparses open
// documents with: tree-sitter's parser from a copy of the runtime that
// github.com/smacker/go-tree-sitter compiles (runtime/, the same version,
// checked by TestCopyIsPinned), with one change (upstream.patch) and every
// external C symbol renamed (rename.h) so both runtimes link into one
// binary. Its entry point is New; Parser.Reparse takes and returns
// *TSTree pointers, which the other runtime reads, edits and frees: the
// structures are the same version's, and both allocate with malloc.
//
// The change: when the subtree the parser could reuse at its position was
// lexed after a different external-scanner state, tree-sitter skips it
// whole; this copy descends into it instead, as it already does for a
// subtree with changes, so its children are candidates in turn (each still
// checked against the scanner state at its own start). Python needs it: a
// change just before the first statement of a block falls in the
// lookahead of the zero-width INDENT before it, so the old INDENT is not
// the new one, and every later statement (each preceded by zero-width
// NEWLINE and DEDENT tokens inside the skipped subtree) failed the same
// check: the reparse reused nothing after the change and cost a whole
// parse. Reuse stays as safe as upstream's: a subtree is only reused when it
// passes every check upstream makes.
//
// upstream.patch is the change as a diff of upstream's lib/src/parser.c,
// with its description and figures, ready to offer upstream: it applies to
// tree-sitter 0.25.0 (the newest runtime the Go module proxy serves) as it
// does to this copy, and is still needed there. TestBlockStartReuse is its
// regression test.
//
// sync.sh refreshes the copy when go.mod moves to another version of the
// binding; gen_rename.sh regenerates rename.h.
package reparser

/*
#include <stdlib.h>
#include "rename.h"
#include "runtime/api.h"

static TSTree *hashls_reparse(TSParser *p, const TSTree *old, const char *text, uint32_t n) {
	return ts_parser_parse_string(p, old, text, n);
}

// For tests: an insertion of n bytes at byte at, row and column (a change
// within one line).
static void hashls_insert(TSTree *t, uint32_t at, uint32_t n, uint32_t row, uint32_t col) {
	TSInputEdit e = {at, at, at + n, {row, col}, {row, col}, {row, col + n}};
	ts_tree_edit(t, &e);
}

// For tests: the ids (subtree addresses) of t's nodes that start at or
// after byte from, in preorder; at most cap are stored, all are counted.
static size_t hashls_node_ids(const TSTree *t, uint32_t from, uintptr_t *out, size_t cap) {
	TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(t));
	size_t n = 0;
	for (;;) {
		TSNode node = ts_tree_cursor_current_node(&c);
		if (ts_node_start_byte(node) >= from) {
			if (n < cap) out[n] = (uintptr_t)node.id;
			n++;
		}
		if (ts_tree_cursor_goto_first_child(&c)) continue;
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (!ts_tree_cursor_goto_parent(&c)) {
				ts_tree_cursor_delete(&c);
				return n;
			}
		}
	}
}
*/
import "C"

import (
	"math"
	"sync/atomic"
	"unsafe"
)

// Parser is one parser of this runtime for one language. Reparse must not
// be called by two goroutines at once; Cancel may be called from any.
type Parser struct {
	c    *C.TSParser
	flag *C.size_t // C memory: the parser reads it during every parse
}

// New returns a parser for lang, a *TSLanguage (the pointer a grammar
// package's sitter.Language holds), or nil when this runtime cannot use
// lang (its ABI version is out of the runtime's range) or memory is short.
func New(lang unsafe.Pointer) *Parser {
	if lang == nil {
		return nil
	}
	c := C.ts_parser_new()
	if c == nil {
		return nil
	}
	if !C.ts_parser_set_language(c, (*C.TSLanguage)(lang)) {
		C.ts_parser_delete(c)
		return nil
	}
	flag := (*C.size_t)(C.calloc(1, C.size_t(unsafe.Sizeof(C.size_t(0)))))
	if flag == nil {
		C.ts_parser_delete(c)
		return nil
	}
	C.ts_parser_set_cancellation_flag(c, flag)
	return &Parser{c: c, flag: flag}
}

// Reparse parses text, reusing old: a *TSTree of an earlier text, edited
// (ts_tree_edit) to text's coordinates, which Reparse reads and neither
// keeps nor frees. text is not kept either. It returns the new *TSTree,
// which the caller owns, or nil when the parse was cancelled (Cancel; the
// parser must then be closed, not reused) or text is over 4 GiB.
func (p *Parser) Reparse(old unsafe.Pointer, text []byte) unsafe.Pointer {
	if uint64(len(text)) > math.MaxUint32 {
		return nil // tree-sitter's lengths are 32-bit
	}
	var ptr *C.char
	if len(text) > 0 {
		ptr = (*C.char)(unsafe.Pointer(&text[0]))
	}
	return unsafe.Pointer(C.hashls_reparse(p.c, (*C.TSTree)(old), ptr, C.uint32_t(len(text))))
}

// Cancel stops a Reparse running in another goroutine, or the next one.
func (p *Parser) Cancel() {
	atomic.StoreUintptr((*uintptr)(unsafe.Pointer(p.flag)), 1)
}

// Close frees the parser. It must not be running.
func (p *Parser) Close() {
	if p.c != nil {
		C.ts_parser_delete(p.c)
		C.free(unsafe.Pointer(p.flag))
		p.c, p.flag = nil, nil
	}
}

var _ = [1]struct{}{}[unsafe.Sizeof(C.size_t(0))-unsafe.Sizeof(uintptr(0))] // Cancel stores a uintptr

// freeTree frees a *TSTree of this runtime (for tests: the treesitter
// package frees trees through the binding).
func freeTree(t unsafe.Pointer) { C.ts_tree_delete((*C.TSTree)(t)) }

// insertEdit tells tree t that n bytes were inserted at byte at, which is
// on row row at column col (for tests; the treesitter package edits trees
// through the binding).
func insertEdit(t unsafe.Pointer, at, n, row, col uint32) {
	C.hashls_insert((*C.TSTree)(t), C.uint32_t(at), C.uint32_t(n), C.uint32_t(row), C.uint32_t(col))
}

// nodeIDs returns the ids (subtree addresses) of tree t's nodes that start
// at or after byte from, in preorder (for tests): a node a reparse reused
// has the same id in the old tree and the new one.
func nodeIDs(t unsafe.Pointer, from uint32) []uintptr {
	n := C.hashls_node_ids((*C.TSTree)(t), C.uint32_t(from), nil, 0)
	if n == 0 {
		return nil
	}
	ids := make([]C.uintptr_t, n)
	C.hashls_node_ids((*C.TSTree)(t), C.uint32_t(from), &ids[0], n)
	out := make([]uintptr, n)
	for i, id := range ids {
		out[i] = uintptr(id)
	}
	return out
}
