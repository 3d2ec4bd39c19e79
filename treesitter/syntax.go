package treesitter

/*
#include "flat.h"
*/
import "C"

import (
	"context"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// Span is an inclusive span of 0-based rows.
type Span struct{ StartRow, EndRow int }

// maxSyntaxErrors bounds the spans SyntaxErrors returns.
const maxSyntaxErrors = 256

// SyntaxErrors returns the row spans of the ERROR and MISSING nodes of text
// parsed as path's language, one per node (an ERROR node's inner errors are
// not counted again), at most 256. ok is false when path's language has no
// grammar or the parse failed.
func SyntaxErrors(ctx context.Context, path string, text []byte) (spans []Span, ok bool) {
	lang := LanguageFor(path)
	if lang == nil {
		return nil, false
	}
	e := defaultCache.entry(lang, text)
	if t := e.full.Load(); t != nil && !t.hasError() {
		return nil, true
	}
	if t := e.skel.Load(); t != nil && !t.hasError() {
		return nil, true
	}
	spans, err := e.errorsC(ctx)
	if err != nil {
		return nil, false
	}
	return spans, true
}

// errorsC walks the entry's C tree (parsing it if the entry holds none, and
// keeping it for later block ops and trees) for its syntax errors.
func (e *entry) errorsC(ctx context.Context) (spans []Span, err error) {
	kept := false
	defer e.retainIfKept(&kept) // after the unlock below
	e.mu.Lock()
	defer e.mu.Unlock()
	st := e.ctree
	if st == nil {
		if st, err = e.parseC(ctx); err != nil {
			return nil, err
		}
		if e.closed {
			defer st.Close()
		} else {
			e.ctree, kept = st, true
		}
	}
	return errorSpans(st), nil
}

// errorSpans runs hl_errors over a C tree.
func errorSpans(st *sitter.Tree) []Span {
	if st == nil || st.BaseTree == nil {
		return nil
	}
	ptr := *(*unsafe.Pointer)(unsafe.Pointer(st.BaseTree)) // see flatten
	if ptr == nil {
		return nil
	}
	buf := make([]C.hl_span, maxSyntaxErrors)
	n := int(C.hl_errors(ptr, &buf[0], C.uint32_t(len(buf))))
	out := make([]Span, 0, min(n, len(buf)))
	for i := 0; i < n && i < len(buf); i++ {
		out = append(out, Span{StartRow: int(buf[i].start_row), EndRow: int(buf[i].end_row)})
	}
	return out
}

// SyntaxErrors satisfies the edit engine's parse proof (edit.SyntaxChecker
// through package agent): the spans as 1-based lines.
func (r *Resolver) SyntaxErrors(path, text string) (lines [][2]int, ok bool) {
	spans, ok := SyntaxErrors(context.Background(), path, []byte(text))
	if !ok {
		return nil, false
	}
	lines = make([][2]int, len(spans))
	for i, s := range spans {
		lines[i] = [2]int{s.StartRow + 1, s.EndRow + 1}
	}
	return lines, true
}
