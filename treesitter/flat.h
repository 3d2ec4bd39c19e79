// The C side of package treesitter (trees.c) and the types it shares with
// the Go side. Trees are passed as void * (a TSTree *).
#ifndef HASHLS_FLAT_H
#define HASHLS_FLAT_H

#include <stdbool.h>
#include <stdint.h>

// hl_flat is one named node of a walk, laid out like the Go node type.
typedef struct {
	uint32_t start_byte, end_byte;
	uint32_t start_row, start_col, end_row, end_col;
	uint32_t parent, end;
	uint16_t symbol, field;
	uint32_t flags;
} hl_flat;

enum { HL_MISSING = 1, HL_HAS_ERROR = 2, HL_EXTRA = 4, HL_REUSED = 8 };

// hl_top is a named child of the root with a subtree id: its index in the
// flattened nodes, its position among the tops in tree order (slot), and,
// when its subtree is reused, 1 + where the previous walk had it (prev; 0
// otherwise): its position in the reuse table for hl_flatten, its slot
// for hl_skeleton.
typedef struct { uintptr_t id; uint32_t index; uint32_t slot; uint32_t prev; uint32_t pad; } hl_top;

// hl_skel is one entry of a skeleton (see hl_skeleton): a hidden node the
// walk descended into (kind HL_SKEL_HIDDEN: end is the index past the
// entries of its descendants; flags HL_SKEL_NOREUSE when nodes under it
// have no entry, so it cannot be placed from its entries), a named top
// (HL_SKEL_TOP: end is its own index + 1, slot its position among the
// tops) or a named inline leaf among the root's children, such as a short
// comment (HL_SKEL_LEAF: no id), with its subtree id, the
// alias it was seen under, where it starts and ends (content, without the
// padding before it), its padding, and (flags) whether it is an extra (and
// for a top, missing or holding an error).
typedef struct {
	uintptr_t id;
	uint32_t start_byte, start_row, start_col;
	uint32_t end_byte, end_row, end_col;
	uint32_t pad_byte, pad_row, pad_col;
	uint32_t end, slot;
	uint16_t kind, alias, symbol, flags;
	uint32_t unused;
} hl_skel;

enum { HL_SKEL_HIDDEN = 1, HL_SKEL_TOP = 2, HL_SKEL_LEAF = 3 };
enum { HL_SKEL_NOREUSE = 0x100 };

// hl_arr is a growable array of n elements in C memory.
typedef struct { void *p; uint32_t n, cap; } hl_arr;

// hl_out is what the walks write: the flattened nodes, the tops and (for
// hl_skeleton) the skeleton, and hl_skeleton's scratch memory (the previous skeleton's index
// by subtree id, the walk's stack). Its arrays are kept from call to call
// (their memory is reused, not allocated again) until hl_out_free: besides
// saving the work, a walk then makes no large allocation, which in glibc
// first merges every small chunk freed since the last one (after a whole
// tree was freed: a millisecond, measured).
typedef struct {
	hl_arr flat, tops, skel;
	hl_arr index, frames;
	uint32_t reused_tops, reused_runs; // placed from the last walk (for tests)
} hl_out;

// hl_flatten writes tree's named nodes in preorder into out's flat, each
// with the index of its nearest named ancestor (parent) and the index just
// past its subtree (end). With prune > 0, the descendants of nodes
// spanning fewer than prune rows are left out (summaries never look inside
// them). It lists the root's named children that have a subtree id in
// out's tops (id, index, slot); a child whose id is in reuse (sorted,
// nreuse) is written flagged HL_REUSED, its descendants left out (the
// caller copies them from the tree the ids came from), and its prev is 1 +
// the id's position in reuse. Returns 0, or -1 when memory is short.
int hl_flatten(const void *tree, uint32_t prune, const uintptr_t *reuse, uint32_t nreuse, hl_out *out);
int hl_skeleton(const void *tree, const hl_skel *prev, uint32_t nprev, hl_out *out);

// hl_span is an inclusive span of 0-based rows.
typedef struct { uint32_t start_row, end_row; } hl_span;

// hl_errors writes the row spans of the ERROR and MISSING nodes of tree
// (named or not) into out, at most max of them, and returns how many it
// found (which may exceed max). It only descends into subtrees that
// contain an error; an ERROR node's span ends on the row of its last
// content byte.
uint32_t hl_errors(const void *tree, hl_span *out, uint32_t max);

bool hl_tree_has_error(const void *tree);
// hl_tree_edit is ts_tree_edit with the edit's fields as arguments.
void hl_tree_edit(void *tree, uint32_t start_byte, uint32_t old_end_byte, uint32_t new_end_byte,
	uint32_t start_row, uint32_t start_col, uint32_t old_end_row, uint32_t old_end_col,
	uint32_t new_end_row, uint32_t new_end_col);
void hl_tree_delete(void *tree);
void hl_out_free(hl_out *o);

#endif
