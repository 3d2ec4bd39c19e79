// Package reparser is the parser the treesitter package reparses open
// documents with: tree-sitter's parser from a copy of the runtime that
// github.com/smacker/go-tree-sitter compiles (runtime/, the same version,
// checked by TestCopyIsPinned), with one change (parser.c.patch) and every
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
