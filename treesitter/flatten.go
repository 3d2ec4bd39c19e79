package treesitter

/*
#include <stdint.h>
#include <stdlib.h>
#include <stdbool.h>

// Declarations copied from tree-sitter's api.h (the runtime is compiled and
// linked by github.com/smacker/go-tree-sitter).
typedef struct TSTree TSTree;
typedef struct { uint32_t row; uint32_t column; } hlPoint;
typedef struct { uint32_t context[4]; const void *id; const TSTree *tree; } hlNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } hlCursor;

extern hlNode ts_tree_root_node(const TSTree *self);
extern uint16_t ts_node_symbol(hlNode self);
extern uint32_t ts_node_start_byte(hlNode self);
extern uint32_t ts_node_end_byte(hlNode self);
extern hlPoint ts_node_start_point(hlNode self);
extern hlPoint ts_node_end_point(hlNode self);
extern bool ts_node_is_named(hlNode self);
extern bool ts_node_is_missing(hlNode self);
extern bool ts_node_is_extra(hlNode self);
extern bool ts_node_has_error(hlNode self);
extern hlCursor ts_tree_cursor_new(hlNode node);
extern void ts_tree_cursor_delete(hlCursor *self);
extern hlNode ts_tree_cursor_current_node(const hlCursor *self);
extern uint16_t ts_tree_cursor_current_field_id(const hlCursor *self);
extern bool ts_tree_cursor_goto_first_child(hlCursor *self);
extern bool ts_tree_cursor_goto_next_sibling(hlCursor *self);
extern bool ts_tree_cursor_goto_parent(hlCursor *self);

typedef struct {
	uint32_t start_byte, end_byte;
	uint32_t start_row, start_col, end_row, end_col;
	uint32_t parent, end;
	uint16_t symbol, field;
	uint32_t flags;
} hl_flat;

enum { HL_MISSING = 1, HL_HAS_ERROR = 2, HL_EXTRA = 4 };

// hl_flatten walks the tree and writes its named nodes in preorder into a
// malloc'ed array (*out, *count). Each node records the index of its nearest
// named ancestor (parent) and the index just past its subtree (end). With
// prune > 0, the descendants of nodes spanning fewer than prune rows are
// skipped (summaries never look inside them). Returns 0 on success, -1 when out of memory.
static int hl_flatten(const TSTree *tree, int prune, hl_flat **out, uint32_t *count) {
	uint32_t cap = 1024, n = 0;
	hl_flat *buf = malloc(cap * sizeof(hl_flat));
	uint32_t scap = 64, sp = 0;
	uint32_t *sidx = malloc(scap * sizeof(uint32_t));
	uint32_t *sdep = malloc(scap * sizeof(uint32_t));
	if (!buf || !sidx || !sdep) { free(buf); free(sidx); free(sdep); return -1; }
	hlNode root = ts_tree_root_node(tree);
	hlCursor c = ts_tree_cursor_new(root);
	uint32_t depth = 0;
	for (;;) {
		hlNode nd = ts_tree_cursor_current_node(&c);
		if (ts_node_is_named(nd)) {
			while (sp > 0 && sdep[sp-1] >= depth) { sp--; buf[sidx[sp]].end = n; }
			if (n == cap) {
				cap *= 2;
				hl_flat *nb = realloc(buf, cap * sizeof(hl_flat));
				if (!nb) goto oom;
				buf = nb;
			}
			hl_flat *f = &buf[n];
			f->start_byte = ts_node_start_byte(nd);
			f->end_byte = ts_node_end_byte(nd);
			hlPoint sp0 = ts_node_start_point(nd), ep = ts_node_end_point(nd);
			f->start_row = sp0.row; f->start_col = sp0.column;
			f->end_row = ep.row; f->end_col = ep.column;
			f->parent = sp > 0 ? sidx[sp-1] : UINT32_MAX;
			f->end = 0;
			f->symbol = ts_node_symbol(nd);
			f->field = ts_tree_cursor_current_field_id(&c);
			uint32_t fl = 0;
			if (ts_node_is_missing(nd)) fl |= HL_MISSING;
			if (ts_node_has_error(nd)) fl |= HL_HAS_ERROR;
			if (ts_node_is_extra(nd)) fl |= HL_EXTRA;
			f->flags = fl;
			if (sp == scap) {
				scap *= 2;
				uint32_t *a = realloc(sidx, scap * sizeof(uint32_t));
				if (!a) goto oom;
				sidx = a;
				uint32_t *b = realloc(sdep, scap * sizeof(uint32_t));
				if (!b) goto oom;
				sdep = b;
			}
			sidx[sp] = n; sdep[sp] = depth; sp++;
			n++;
		}
		if (prune > 0) {
			if (ts_node_end_point(nd).row - ts_node_start_point(nd).row + 1 < (uint32_t)prune) goto next;
		}
		if (ts_tree_cursor_goto_first_child(&c)) { depth++; continue; }
	next:
		for (;;) {
			if (ts_tree_cursor_goto_next_sibling(&c)) break;
			if (!ts_tree_cursor_goto_parent(&c)) goto done;
			depth--;
		}
	}
done:
	while (sp > 0) { sp--; buf[sidx[sp]].end = n; }
	ts_tree_cursor_delete(&c);
	free(sidx); free(sdep);
	*out = buf; *count = n;
	return 0;
oom:
	ts_tree_cursor_delete(&c);
	free(buf); free(sidx); free(sdep);
	return -1;
}
*/
import "C"

import (
	"errors"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// node is one named syntax node, laid out exactly like hl_flat.
type node struct {
	StartByte, EndByte uint32
	StartRow, StartCol uint32
	EndRow, EndCol     uint32
	Parent, End        uint32 // nearest named ancestor (noParent at the root); index past the subtree
	Symbol, Field      uint16
	Flags              uint32
}

const (
	noParent    = ^uint32(0)
	flagMissing = 1
	flagError   = 2 // the subtree contains a syntax error
	flagExtra   = 4
)

var errFlatten = errors.New("treesitter: out of memory while reading the syntax tree; retry with a smaller file")

// flatten copies the named nodes of t into Go memory. With pruneLines > 0
// only the skeleton is copied: nodes spanning at least pruneLines rows and
// their direct children. It does not close t.
func flatten(t *sitter.Tree, pruneLines int) ([]node, error) {
	if t == nil || t.BaseTree == nil {
		return nil, errFlatten
	}
	// BaseTree's first field is the *C.TSTree (go-tree-sitter keeps it
	// unexported); read it without calling back into the binding.
	ptr := *(*unsafe.Pointer)(unsafe.Pointer(t.BaseTree))
	if ptr == nil {
		return nil, errFlatten
	}
	var out *C.hl_flat
	var count C.uint32_t
	if C.hl_flatten((*C.TSTree)(ptr), C.int(pruneLines), &out, &count) != 0 {
		return nil, errFlatten
	}
	defer C.free(unsafe.Pointer(out))
	if count == 0 {
		return nil, nil
	}
	src := unsafe.Slice((*node)(unsafe.Pointer(out)), int(count))
	nodes := make([]node, len(src))
	copy(nodes, src)
	return nodes, nil
}

// The Go and C layouts must agree; this fails to compile otherwise.
var _ = [1]struct{}{}[unsafe.Sizeof(node{})-C.sizeof_hl_flat]
var _ = [1]struct{}{}[C.sizeof_hl_flat-unsafe.Sizeof(node{})]
