// The C side of package treesitter: everything that reads tree-sitter's
// trees directly (flat.h declares it). The walks behind the Go trees:
// hl_flatten, the complete tree's named nodes (flatten.go), and
// hl_skeleton, the walk behind incremental document symbols, both writing
// named nodes through hl_put_subtree; hl_errors, the syntax errors
// (syntax.go); and the few tree calls the Go side makes (hl_tree_*).
//
// They read tree-sitter's subtrees through the runtime's own headers in
// internal/reparser/runtime (the version the binding compiles, checked by
// that package's TestCopyIsPinned), and call the binding's runtime.
// hl_skeleton lists the root's visible children as ts_tree_cursor does,
// descending into hidden nodes (a repetition is a balanced tree of hidden
// nodes) and skipping those that have no visible descendants.
#include <stdlib.h>
#include <string.h>
#include "flat.h"
#include "internal/reparser/runtime/language.h"
#include "internal/reparser/runtime/tree.h"

// hl_push returns a new last element (of size sz) of a, or NULL when
// memory is short.
static void *hl_push(hl_arr *a, size_t sz) {
	if (a->n == a->cap) {
		uint32_t cap = a->cap ? a->cap * 2 : 256;
		void *p = realloc(a->p, (size_t)cap * sz);
		if (!p) return NULL;
		a->p = p; a->cap = cap;
	}
	return (char *)a->p + (size_t)(a->n++) * sz;
}

void hl_out_free(hl_out *o) {
	if (!o) return;
	free(o->flat.p); free(o->tops.p); free(o->skel.p);
	free(o->index.p); free(o->frames.p);
	free(o);
}

// The previous skeleton's entries by subtree id: open addressing, 1 +
// the entry's index (0: empty).
typedef struct { uint32_t *slot; uint32_t mask; } hl_index;

static uint32_t hl_hash(uintptr_t id) {
	uint64_t x = (uint64_t)id >> 3;
	x *= 0x9E3779B97F4A7C15ull;
	return (uint32_t)(x >> 32);
}

// hl_index_build indexes the n entries of prev in mem's memory (grown when
// short). Returns 0, or -1 when memory is short.
static int hl_index_build(hl_index *ix, const hl_skel *prev, uint32_t n, hl_arr *mem) {
	uint32_t size = 16;
	while (size < 2 * n) size *= 2;
	if (mem->cap < size) {
		free(mem->p);
		mem->p = NULL; mem->cap = 0;
		if (!(mem->p = malloc((size_t)size * sizeof(uint32_t)))) return -1;
		mem->cap = size;
	}
	memset(mem->p, 0, (size_t)size * sizeof(uint32_t));
	ix->slot = mem->p;
	ix->mask = size - 1;
	for (uint32_t i = 0; i < n; i++) {
		if (!prev[i].id) continue; // a leaf: never looked up
		uint32_t h = hl_hash(prev[i].id) & ix->mask;
		while (ix->slot[h]) h = (h + 1) & ix->mask;
		ix->slot[h] = i + 1;
	}
	return 0;
}

// hl_index_find returns the index of the entry of prev with id, or
// UINT32_MAX.
static uint32_t hl_index_find(const hl_index *ix, const hl_skel *prev, uintptr_t id) {
	if (!ix->slot) return UINT32_MAX;
	for (uint32_t h = hl_hash(id) & ix->mask; ix->slot[h]; h = (h + 1) & ix->mask) {
		if (prev[ix->slot[h] - 1].id == id) return ix->slot[h] - 1;
	}
	return UINT32_MAX;
}

// hl_open is a named node whose descendants hl_put_subtree is recording:
// its index and its depth under the subtree's top.
typedef struct { uint32_t index, depth; } hl_open;

typedef struct {
	const TSTree *tree;
	hl_out *o;
	uint32_t nslot;
	// hl_put_subtree's: its cursor (reset for each subtree) and its stack
	// of open named nodes, until hl_walk_end.
	TSTreeCursor cursor;
	bool has_cursor;
	hl_arr open;
} hl_walk;

static void hl_walk_end(hl_walk *w) {
	if (w->has_cursor) ts_tree_cursor_delete(&w->cursor);
	free(w->open.p);
}

#define FLAT(w) ((hl_flat *)(w)->o->flat.p)
#define SKEL(w) ((hl_skel *)(w)->o->skel.p)

// hl_put records the named node nd in w's nodes under parent, with field,
// and returns its index (UINT32_MAX when memory is short).
static uint32_t hl_put(hl_walk *w, TSNode nd, uint32_t parent, uint16_t field) {
	hl_flat *f = hl_push(&w->o->flat, sizeof(hl_flat));
	if (!f) return UINT32_MAX;
	f->start_byte = ts_node_start_byte(nd);
	f->end_byte = ts_node_end_byte(nd);
	TSPoint sp = ts_node_start_point(nd), ep = ts_node_end_point(nd);
	f->start_row = sp.row; f->start_col = sp.column;
	f->end_row = ep.row; f->end_col = ep.column;
	f->parent = parent;
	f->end = 0;
	f->symbol = ts_node_symbol(nd);
	f->field = field;
	uint32_t fl = 0;
	if (ts_node_is_missing(nd)) fl |= HL_MISSING;
	if (ts_node_has_error(nd)) fl |= HL_HAS_ERROR;
	if (ts_node_is_extra(nd)) fl |= HL_EXTRA;
	f->flags = fl;
	return w->o->flat.n - 1;
}

// hl_spans_fewer reports whether nd spans fewer than rows rows (never
// when rows is 0).
static bool hl_spans_fewer(TSNode nd, uint32_t rows) {
	return rows > 0 && ts_node_end_point(nd).row - ts_node_start_point(nd).row + 1 < rows;
}

// hl_put_subtree records top's named nodes in preorder (top itself first,
// if named, with field), each with the index just past its subtree (end)
// and its nearest named ancestor as its parent (parent for those with none
// inside top). With prune > 0 the descendants of nodes spanning fewer than
// prune rows are left out. Returns 0, or -1 when memory is short.
static int hl_put_subtree(hl_walk *w, TSNode top, uint32_t parent, uint16_t field, uint32_t prune) {
	// The cursor starts at top without its alias: a cursor gives its
	// starting node's alias to every extra below it (tree_cursor.c's
	// root_alias_symbol), so an aliased top would rename the comments
	// inside it. top itself is read as given.
	TSNode plain = top;
	plain.context[3] = 0; // ts_node_new's alias
	if (w->has_cursor) {
		ts_tree_cursor_reset(&w->cursor, plain);
	} else {
		w->cursor = ts_tree_cursor_new(plain);
		w->has_cursor = true;
	}
	TSTreeCursor *c = &w->cursor;
	hl_arr *open = &w->open;
	open->n = 0;
	uint32_t depth = 0;
	for (;;) {
		TSNode nd = depth == 0 ? top : ts_tree_cursor_current_node(c);
		if (ts_node_is_named(nd)) {
			while (open->n > 0 && ((hl_open *)open->p)[open->n-1].depth >= depth) {
				FLAT(w)[((hl_open *)open->p)[--open->n].index].end = w->o->flat.n;
			}
			uint32_t up = open->n > 0 ? ((hl_open *)open->p)[open->n-1].index : parent;
			uint32_t i = hl_put(w, nd, up, depth == 0 ? field : ts_tree_cursor_current_field_id(c));
			hl_open *o = i == UINT32_MAX ? NULL : hl_push(open, sizeof(hl_open));
			if (!o) return -1;
			o->index = i; o->depth = depth;
		}
		if (!hl_spans_fewer(nd, prune) && ts_tree_cursor_goto_first_child(c)) { depth++; continue; }
		for (;;) {
			if (depth == 0) goto done;
			if (ts_tree_cursor_goto_next_sibling(c)) break;
			if (!ts_tree_cursor_goto_parent(c)) goto done;
			depth--;
		}
	}
done:
	while (open->n > 0) FLAT(w)[((hl_open *)open->p)[--open->n].index].end = w->o->flat.n;
	return 0;
}

// hl_node_id identifies the subtree under a node: the address of its heap
// data (TSNode.id is the address of the Subtree slot in its parent; an
// inline leaf has no heap data, and no identity: 0). Shared subtrees are
// immutable, so while a tree holding one is alive, its address names the
// same subtree text and shape.
static uintptr_t hl_node_id(TSNode nd) {
	const Subtree *s = nd.id;
	if (!s || s->data.is_inline) return 0;
	return (uintptr_t)s->ptr;
}

// hl_reused returns 1 + the position of id in reuse (sorted, nreuse), or 0.
static uint32_t hl_reused(const uintptr_t *reuse, uint32_t nreuse, uintptr_t id) {
	uint32_t lo = 0, hi = nreuse;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (reuse[mid] < id) lo = mid + 1; else hi = mid;
	}
	return lo < nreuse && reuse[lo] == id ? lo + 1 : 0;
}

int hl_flatten(const void *tree_, uint32_t prune, const uintptr_t *reuse, uint32_t nreuse, hl_out *o) {
	const TSTree *tree = tree_;
	o->flat.n = o->tops.n = o->skel.n = 0;
	hl_walk w = {.tree = tree, .o = o};
	TSNode root = ts_tree_root_node(tree);
	uint32_t parent = UINT32_MAX;
	if (ts_node_is_named(root) && (parent = hl_put(&w, root, UINT32_MAX, 0)) == UINT32_MAX) goto fail;
	if (!hl_spans_fewer(root, prune)) {
		TSTreeCursor c = ts_tree_cursor_new(root);
		bool more = ts_tree_cursor_goto_first_child(&c);
		for (; more; more = ts_tree_cursor_goto_next_sibling(&c)) {
			TSNode nd = ts_tree_cursor_current_node(&c);
			uint16_t field = ts_tree_cursor_current_field_id(&c);
			uintptr_t id = ts_node_is_named(nd) ? hl_node_id(nd) : 0;
			if (id) {
				hl_top *t = hl_push(&o->tops, sizeof(hl_top));
				if (!t) break;
				t->id = id; t->index = o->flat.n; t->slot = o->tops.n - 1; t->pad = 0;
				t->prev = nreuse > 0 ? hl_reused(reuse, nreuse, id) : 0;
				if (t->prev) {
					uint32_t i = hl_put(&w, nd, parent, field);
					if (i == UINT32_MAX) break;
					FLAT(&w)[i].flags |= HL_REUSED;
					FLAT(&w)[i].end = o->flat.n;
					continue;
				}
			}
			if (hl_put_subtree(&w, nd, parent, field, prune) != 0) break;
		}
		ts_tree_cursor_delete(&c);
		if (more) goto fail; // stopped by a failed allocation
	}
	if (parent != UINT32_MAX) FLAT(&w)[parent].end = o->flat.n;
	hl_walk_end(&w);
	return 0;
fail:
	hl_walk_end(&w);
	o->flat.n = o->tops.n = 0;
	return -1;
}

// hl_move moves a point on or after from's start to the same place after
// to: rows shift, and so do columns on from's first row.
static void hl_move(uint32_t *row, uint32_t *col, const hl_skel *from, Length to) {
	if (*row == from->start_row) {
		*col = *col - from->start_col + to.extent.column;
		*row = to.extent.row;
	} else {
		*row = *row - from->start_row + to.extent.row;
	}
}

// hl_moved returns e moved from from's start to to (e is from or one of
// the entries of its block).
static hl_skel hl_moved(hl_skel e, const hl_skel *from, Length to) {
	e.start_byte = e.start_byte - from->start_byte + to.bytes;
	e.end_byte = e.end_byte - from->start_byte + to.bytes;
	hl_move(&e.start_row, &e.start_col, from, to);
	hl_move(&e.end_row, &e.end_col, from, to);
	return e;
}

// hl_put_entry records the node of entry e (moved already) as a child of
// the root with flags, and pushes e (its end set) to the skeleton. Returns
// 0, or -1 when memory is short.
static int hl_put_entry(hl_walk *w, hl_skel e, uint32_t flags) {
	hl_flat *f = hl_push(&w->o->flat, sizeof(hl_flat));
	hl_skel *s = f ? hl_push(&w->o->skel, sizeof(hl_skel)) : NULL;
	if (!s) return -1;
	f->start_byte = e.start_byte; f->end_byte = e.end_byte;
	f->start_row = e.start_row; f->start_col = e.start_col;
	f->end_row = e.end_row; f->end_col = e.end_col;
	f->parent = 0;
	f->end = w->o->flat.n;
	f->symbol = e.symbol;
	f->field = 0;
	f->flags = flags;
	e.end = w->o->skel.n;
	*s = e;
	return 0;
}

// hl_top_reused records a reused top: its node (flagged HL_REUSED, its
// descendants left out), its tops entry and its skeleton entry e (moved
// already), whose slot becomes the new one.
static int hl_top_reused(hl_walk *w, hl_skel e, uint32_t prev_slot) {
	hl_top *t = hl_push(&w->o->tops, sizeof(hl_top));
	if (!t) return -1;
	t->id = e.id; t->index = w->o->flat.n; t->slot = w->nslot; t->prev = prev_slot + 1; t->pad = 0;
	e.slot = w->nslot++;
	return hl_put_entry(w, e, e.flags | HL_REUSED);
}

// hl_leaf records a named inline leaf of a run placed whole: its node and
// its skeleton entry e (moved already).
static int hl_leaf(hl_walk *w, hl_skel e) {
	return hl_put_entry(w, e, e.flags);
}

int hl_skeleton(const void *tree_, const hl_skel *prev, uint32_t nprev, hl_out *o) {
	const TSTree *tree = tree_;
	o->flat.n = o->tops.n = o->skel.n = 0;
	o->reused_tops = o->reused_runs = 0;
	hl_walk w = {.tree = tree, .o = o};
	hl_index ix = {NULL, 0};
	typedef struct {
		Subtree parent;
		const TSSymbol *alias_seq;
		uint32_t child, structural;
		Length pos;
		uint32_t skel; // the hidden node's skeleton entry; UINT32_MAX for the root
	} frame;
	hl_arr *frames = &o->frames;
	frames->n = 0;
	int rc = -1;
	if (nprev > 0 && hl_index_build(&ix, prev, nprev, &o->index) != 0) goto fail;

	TSNode root = ts_tree_root_node(tree);
	if (!ts_node_is_named(root) || tree->root.data.is_inline) { rc = -2; goto fail; }
	if (hl_put(&w, root, UINT32_MAX, 0) == UINT32_MAX) goto fail;
	if (ts_subtree_child_count(tree->root) > 0) {
		frame *f = hl_push(frames, sizeof(frame));
		if (!f) goto fail;
		f->parent = tree->root;
		f->alias_seq = ts_language_alias_sequence(tree->language, tree->root.ptr->production_id);
		f->child = 0; f->structural = 0;
		f->pos = (Length){ts_node_start_byte(root), ts_node_start_point(root)};
		f->skel = UINT32_MAX;
	}
	while (frames->n > 0) {
		frame *f = (frame *)frames->p + (frames->n - 1);
		uint32_t nchild = ts_subtree_child_count(f->parent);
		if (f->child == nchild) {
			if (f->skel != UINT32_MAX) {
				hl_skel *h = &SKEL(&w)[f->skel];
				h->end = o->skel.n;
				h->end_byte = f->pos.bytes; h->end_row = f->pos.extent.row; h->end_col = f->pos.extent.column;
			}
			frames->n--;
			continue;
		}
		const Subtree *child = &ts_subtree_children(f->parent)[f->child];
		bool first = f->child == 0; // starts where its parent does: no padding to add
		f->child++;
		// A subtree the last walk listed (kept alive, so unchanged): its
		// entry says all the walk needs, and its memory, which the last
		// whole parse may have evicted, is not read.
		uint32_t k = UINT32_MAX;
		if (!child->data.is_inline) {
			k = hl_index_find(&ix, prev, (uintptr_t)child->ptr);
			if (k != UINT32_MAX && (!(prev[k].end > k && prev[k].end <= nprev) || (prev[k].flags & HL_SKEL_NOREUSE))) k = UINT32_MAX;
		}
		bool extra = k != UINT32_MAX ? (prev[k].flags & HL_EXTRA) != 0 : ts_subtree_extra(*child);
		TSSymbol alias = 0;
		if (!extra) {
			if (f->alias_seq) alias = f->alias_seq[f->structural];
			f->structural++;
		}
		if (k != UINT32_MAX && prev[k].alias == alias) {
			const hl_skel *from = &prev[k];
			Length start = f->pos;
			if (!first) start = length_add(start, (Length){from->pad_byte, {from->pad_row, from->pad_col}});
			hl_skel e = hl_moved(*from, from, start);
			f->pos = (Length){e.end_byte, {e.end_row, e.end_col}};
			if (from->kind == HL_SKEL_TOP) {
				if (hl_top_reused(&w, e, from->slot) != 0) goto fail;
				o->reused_tops++;
				continue;
			}
			// A hidden node: its block of entries, moved.
			o->reused_runs++;
			uint32_t base = o->skel.n;
			for (uint32_t j = k; j < from->end; j++) {
				hl_skel m = hl_moved(prev[j], from, start);
				if (m.kind == HL_SKEL_TOP) {
					if (hl_top_reused(&w, m, prev[j].slot) != 0) goto fail;
					o->reused_tops++;
				} else if (m.kind == HL_SKEL_LEAF) {
					if (hl_leaf(&w, m) != 0) goto fail;
				} else {
					hl_skel *s = hl_push(&o->skel, sizeof(hl_skel));
					if (!s) goto fail;
					m.end = m.end - k + base;
					*s = m;
				}
			}
			continue;
		}
		Length pad = ts_subtree_padding(*child);
		Length start = first ? f->pos : length_add(f->pos, pad);
		f->pos = length_add(start, ts_subtree_size(*child));
		bool visible = ts_subtree_visible(*child) || alias != 0;
		uint16_t xflag = extra ? HL_EXTRA : 0;
		if (visible) {
			uintptr_t id = child->data.is_inline ? 0 : (uintptr_t)child->ptr;
			bool named = alias ? ts_language_symbol_metadata(tree->language, alias).named : ts_subtree_named(*child);
			TSNode nd = ts_node_new(tree, child, start, alias);
			uint32_t at = o->flat.n;
			if (hl_put_subtree(&w, nd, 0, 0, 0) != 0) goto fail;
			if (!named || !id || o->flat.n == at) {
				if (named && !id && o->flat.n == at + 1) {
					// A named inline leaf: an entry, so that a run holding
					// it can be placed whole.
					hl_flat *n0 = &FLAT(&w)[at];
					hl_skel *s = hl_push(&o->skel, sizeof(hl_skel));
					if (!s) goto fail;
					*s = (hl_skel){0, n0->start_byte, n0->start_row, n0->start_col, n0->end_byte, n0->end_row, n0->end_col,
						pad.bytes, pad.extent.row, pad.extent.column,
						o->skel.n, 0, HL_SKEL_LEAF, alias, n0->symbol, (uint16_t)n0->flags, 0};
				} else if (o->flat.n > at) {
					// Named nodes under an anonymous one: the runs holding
					// them are read again next time.
					for (uint32_t q = 0; q < frames->n; q++) {
						uint32_t si = ((frame *)frames->p)[q].skel;
						if (si != UINT32_MAX) SKEL(&w)[si].flags |= HL_SKEL_NOREUSE;
					}
				}
				continue;
			}
			{
				hl_flat *n0 = &FLAT(&w)[at];
				hl_top *t = hl_push(&o->tops, sizeof(hl_top));
				hl_skel *s = t ? hl_push(&o->skel, sizeof(hl_skel)) : NULL;
				if (!s) goto fail;
				t->id = id; t->index = at; t->slot = w.nslot; t->prev = 0; t->pad = 0;
				*s = (hl_skel){id, n0->start_byte, n0->start_row, n0->start_col, n0->end_byte, n0->end_row, n0->end_col,
					pad.bytes, pad.extent.row, pad.extent.column,
					o->skel.n, w.nslot, HL_SKEL_TOP, alias, n0->symbol, (uint16_t)n0->flags, 0};
				w.nslot++;
			}
			continue;
		}
		if (ts_subtree_visible_child_count(*child) == 0) continue;
		hl_skel *s = hl_push(&o->skel, sizeof(hl_skel));
		if (!s) goto fail;
		*s = (hl_skel){(uintptr_t)child->ptr, start.bytes, start.extent.row, start.extent.column, 0, 0, 0,
			pad.bytes, pad.extent.row, pad.extent.column, 0, 0, HL_SKEL_HIDDEN, 0, 0, xflag, 0};
		uint32_t si = o->skel.n - 1;
		frame *nf = hl_push(frames, sizeof(frame)); // may move the frames: f is not used again
		if (!nf) goto fail;
		nf->parent = *child; // a node with children is never inline
		nf->alias_seq = ts_language_alias_sequence(tree->language, child->ptr->production_id);
		nf->child = 0; nf->structural = 0;
		nf->pos = start;
		nf->skel = si;
	}
	FLAT(&w)[0].end = o->flat.n;
	hl_walk_end(&w);
	return 0;
fail:
	hl_walk_end(&w);
	o->flat.n = o->tops.n = o->skel.n = 0;
	return rc;
}

uint32_t hl_errors(const void *tree_, hl_span *out, uint32_t max) {
	const TSTree *tree = tree_;
	TSNode root = ts_tree_root_node(tree);
	if (!ts_node_has_error(root)) return 0;
	TSTreeCursor c = ts_tree_cursor_new(root);
	uint32_t n = 0;
	for (;;) {
		TSNode nd = ts_tree_cursor_current_node(&c);
		bool descend = false;
		if (ts_node_is_missing(nd)) {
			if (n < max) { uint32_t r = ts_node_start_point(nd).row; out[n].start_row = r; out[n].end_row = r; }
			n++;
		} else if (ts_node_symbol(nd) == ts_builtin_sym_error) {
			if (n < max) {
				TSPoint s = ts_node_start_point(nd), e = ts_node_end_point(nd);
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

bool hl_tree_has_error(const void *tree) {
	return ts_node_has_error(ts_tree_root_node(tree));
}

void hl_tree_edit(void *tree, uint32_t sb, uint32_t ob, uint32_t nb,
		uint32_t sr, uint32_t sc, uint32_t or_, uint32_t oc, uint32_t nr, uint32_t nc) {
	TSInputEdit e = {sb, ob, nb, {sr, sc}, {or_, oc}, {nr, nc}};
	ts_tree_edit(tree, &e);
}

void hl_tree_delete(void *tree) {
	ts_tree_delete(tree);
}
