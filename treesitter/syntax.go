package treesitter

/*
#include <stdint.h>
#include <stdbool.h>

// Declarations copied from tree-sitter's api.h (see flatten.go); the names
// differ from flatten.go's so the two preambles never clash.
typedef struct TSTree TSTree;
typedef struct { uint32_t row; uint32_t column; } hsPoint;
typedef struct { uint32_t context[4]; const void *id; const TSTree *tree; } hsNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } hsCursor;

extern hsNode ts_tree_root_node(const TSTree *self);
extern uint16_t ts_node_symbol(hsNode self);
extern hsPoint ts_node_start_point(hsNode self);
extern hsPoint ts_node_end_point(hsNode self);
extern bool ts_node_is_missing(hsNode self);
extern bool ts_node_has_error(hsNode self);
extern hsCursor ts_tree_cursor_new(hsNode node);
extern void ts_tree_cursor_delete(hsCursor *self);
extern hsNode ts_tree_cursor_current_node(const hsCursor *self);
extern bool ts_tree_cursor_goto_first_child(hsCursor *self);
extern bool ts_tree_cursor_goto_next_sibling(hsCursor *self);
extern bool ts_tree_cursor_goto_parent(hsCursor *self);

typedef struct { uint32_t start_row, end_row; } hs_span;

// hs_errors writes the row spans of the ERROR and MISSING nodes of tree
// (named or not) into out, at most max of them, and returns how many it
// found (which may exceed max). It only descends into subtrees that
// contain an error.
static uint32_t hs_errors(const TSTree *tree, hs_span *out, uint32_t max) {
	hsNode root = ts_tree_root_node(tree);
	if (!ts_node_has_error(root)) return 0;
	hsCursor c = ts_tree_cursor_new(root);
	uint32_t n = 0;
	for (;;) {
		hsNode nd = ts_tree_cursor_current_node(&c);
		bool descend = false;
		if (ts_node_is_missing(nd)) {
			if (n < max) { uint32_t r = ts_node_start_point(nd).row; out[n].start_row = r; out[n].end_row = r; }
			n++;
		} else if (ts_node_symbol(nd) == (uint16_t)0xFFFF) {
			if (n < max) {
				hsPoint s = ts_node_start_point(nd), e = ts_node_end_point(nd);
				uint32_t end = e.row;
				if (e.column == 0 && e.row > s.row) end--;
				out[n].start_row = s.row; out[n].end_row = end;
			}
			n++;
		} else {
			descend = ts_node_has_error(nd);
		}
		if (descend && ts_tree_cursor_goto_first_child(&c)) continue;
		for (;;) {
			if (ts_tree_cursor_goto_next_sibling(&c)) break;
			if (!ts_tree_cursor_goto_parent(&c)) goto done;
		}
	}
done:
	ts_tree_cursor_delete(&c);
	return n;
}
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
	defer func() {
		if kept && e.cache != nil {
			e.cache.retain(e)
		}
	}()
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

// errorSpans runs hs_errors over a C tree.
func errorSpans(st *sitter.Tree) []Span {
	if st == nil || st.BaseTree == nil {
		return nil
	}
	ptr := *(*unsafe.Pointer)(unsafe.Pointer(st.BaseTree)) // see flatten
	if ptr == nil {
		return nil
	}
	buf := make([]C.hs_span, maxSyntaxErrors)
	n := int(C.hs_errors((*C.TSTree)(ptr), &buf[0], C.uint32_t(len(buf))))
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
