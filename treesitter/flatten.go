package treesitter

/*
#include <stdlib.h>
#include "flat.h"
*/
import "C"

import (
	"cmp"
	"errors"
	"slices"
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
	ptr := cTree(t)
	if ptr == nil {
		return nil, errFlatten
	}
	nodes, _, err := flattenC(ptr, pruneLines, nil)
	return nodes, err
}

// flattenC runs hl_flatten and copies what it wrote into Go memory.
func flattenC(ptr unsafe.Pointer, pruneLines int, reuse []uintptr) ([]node, []top, error) {
	var ids *C.uintptr_t
	if len(reuse) > 0 {
		// Go memory holding no Go pointers, read by C during the call
		// only (cgo's rules allow that; a C.malloc'ed copy cost more than
		// the walk that reads it).
		ids = (*C.uintptr_t)(unsafe.Pointer(&reuse[0]))
	}
	o := (*C.hl_out)(C.calloc(1, C.sizeof_hl_out))
	if o == nil {
		return nil, nil, errFlatten
	}
	defer C.hl_out_free(o)
	if C.hl_flatten(ptr, C.uint32_t(max(pruneLines, 0)), ids, C.uint32_t(len(reuse)), o) != 0 {
		return nil, nil, errFlatten
	}
	if o.flat.n == 0 {
		return nil, nil, nil
	}
	nodes := slices.Clone(unsafe.Slice((*node)(o.flat.p), int(o.flat.n)))
	var tops []top
	if o.tops.n > 0 {
		tops = slices.Clone(unsafe.Slice((*top)(o.tops.p), int(o.tops.n)))
	}
	return nodes, tops, nil
}

// top is a named child of the root with its subtree id (see hl_node_id
// in trees.c), laid out like hl_top: its index in the flattened nodes,
// its position among the root's tops in tree order (slot: it stays with
// the top when tops are sorted by id), and, when the subtree is reused
// (flagReused), 1 + the position of its id in the previous tree's tops
// sorted by id (prev; 0 otherwise).
type top struct {
	id    uintptr
	index uint32
	slot  uint32
	prev  uint32
	_     uint32
}

const flagReused = 8 // hl_flatten: the subtree is to be copied from the previous tree

// flattenReusing is flatten (unpruned) that copies, from prev, the
// subtrees of the root's children that st shares with the C tree prev was
// flattened from (prevTops, sorted by id, lists that tree's top-level
// subtree ids; the caller keeps it alive so no id can be reused by a new
// subtree). It also returns st's own tops, sorted by id, for the next call.
// The copies are moved to their new position: byte offsets and rows shift,
// and columns on the subtree's first row. prev must be untrimmed.
func flattenReusing(st *sitter.Tree, prev *tree, prevTops []top) ([]node, []top, error) {
	src, tops, err := flattenMarked(st, prevTops)
	if err != nil || len(src) == 0 {
		return nil, nil, err
	}
	reused := 0
	for _, n := range src {
		if n.Flags&flagReused != 0 {
			reused++
		}
	}
	if reused == 0 {
		sortTops(tops, prevTops)
		return src, tops, nil
	}
	// Where each C node lands in the output, with the reused subtrees
	// spliced in.
	at := make([]uint32, len(src)+1)
	blocks := make([]uint32, len(src)) // old index of a reused node's subtree
	j := 0                             // tops are in tree order, as src
	total := uint32(0)
	for k := range src {
		at[k] = total
		if src[k].Flags&flagReused == 0 {
			total++
			continue
		}
		for j < len(tops) && tops[j].index < uint32(k) {
			j++
		}
		i, ok := reusedTop(tops, j, uint32(k), prevTops)
		if !ok || int(i) >= len(prev.nodes) || prev.nodes[i].Symbol != src[k].Symbol {
			return nil, nil, errors.New("treesitter: reused subtree not found")
		}
		blocks[k] = i
		total += prev.nodes[i].End - i
	}
	at[len(src)] = total
	nodes := make([]node, total)
	for k, n := range src {
		j := at[k]
		if n.Flags&flagReused == 0 {
			if n.Parent != noParent {
				n.Parent = at[n.Parent]
			}
			n.End = at[n.End]
			nodes[j] = n
			continue
		}
		i := blocks[k]
		r := prev.nodes[i]
		block := prev.nodes[i:r.End]
		db, dr, dc := n.StartByte-r.StartByte, n.StartRow-r.StartRow, n.StartCol-r.StartCol
		dst := nodes[j : j+uint32(len(block))]
		for m, o := range block {
			if o.StartRow == r.StartRow {
				o.StartCol += dc
			}
			if o.EndRow == r.StartRow {
				o.EndCol += dc
			}
			o.StartByte += db
			o.EndByte += db
			o.StartRow += dr
			o.EndRow += dr
			o.Parent = o.Parent - i + j
			o.End = o.End - i + j
			if m == 0 {
				o.Parent = at[n.Parent]
				o.Field = n.Field
			}
			dst[m] = o
		}
	}
	for i, t := range tops {
		tops[i].index = at[t.index]
	}
	sortTops(tops, prevTops)
	return nodes, tops, nil
}

// flattenMarked is flatten (unpruned) that lists the root's named
// children by subtree id (tops, in tree order) and skips the descendants of
// those whose id is in prevTops (sorted by id): they are marked flagReused.
func flattenMarked(st *sitter.Tree, prevTops []top) ([]node, []top, error) {
	ptr := cTree(st)
	if ptr == nil {
		return nil, nil, errFlatten
	}
	var ids []uintptr
	if len(prevTops) > 0 {
		ids = make([]uintptr, len(prevTops))
		for i, t := range prevTops {
			ids[i] = t.id
		}
	}
	return flattenC(ptr, 0, ids)
}

// sortTops sorts tops, listed in tree order by flattenMarked against
// prevTops (sorted by id), by id. The reused ones come in the order of their
// ids in prevTops, so only the others are sorted, and the two lists merged.
func sortTops(tops, prevTops []top) {
	if len(prevTops) == 0 {
		slices.SortFunc(tops, func(a, b top) int { return cmp.Compare(a.id, b.id) })
		return
	}
	at := make([]int32, len(prevTops)) // 1 + the position in tops of the top reusing prevTops[k]
	var fresh []top
	for j, t := range tops {
		if p := int(t.prev); p > 0 && p <= len(prevTops) && prevTops[p-1].id == t.id && at[p-1] == 0 {
			at[p-1] = int32(j) + 1
		} else {
			fresh = append(fresh, t)
		}
	}
	slices.SortFunc(fresh, func(a, b top) int { return cmp.Compare(a.id, b.id) })
	out := make([]top, 0, len(tops))
	f := 0
	for _, j := range at {
		if j == 0 {
			continue
		}
		t := tops[j-1]
		for f < len(fresh) && fresh[f].id < t.id {
			out = append(out, fresh[f])
			f++
		}
		out = append(out, t)
	}
	out = append(out, fresh[f:]...)
	copy(tops, out)
}

// reusedTop returns, for the top at tops[j] when it is the node at index
// k and reused, the node index of its subtree in the previous tree, whose
// tops (sorted by id) are prevTops.
func reusedTop(tops []top, j int, k uint32, prevTops []top) (uint32, bool) {
	if j >= len(tops) || tops[j].index != k {
		return 0, false
	}
	p := tops[j].prev
	if p == 0 || int(p) > len(prevTops) || prevTops[p-1].id != tops[j].id {
		return 0, false
	}
	return prevTops[p-1].index, true
}

// cTree returns t's *TSTree, or nil. BaseTree's first field is the
// *C.TSTree (go-tree-sitter keeps it unexported); it is read without calling
// back into the binding.
func cTree(t *sitter.Tree) unsafe.Pointer {
	if t == nil || t.BaseTree == nil {
		return nil
	}
	return *(*unsafe.Pointer)(unsafe.Pointer(t.BaseTree))
}

// cLanguage returns l's *TSLanguage, the binding's Language's only field
// (the size check below fails to compile if that changes).
func cLanguage(l *sitter.Language) unsafe.Pointer {
	if l == nil {
		return nil
	}
	return *(*unsafe.Pointer)(unsafe.Pointer(l))
}

var _ = [1]struct{}{}[unsafe.Sizeof(sitter.Language{})-unsafe.Sizeof(unsafe.Pointer(nil))]

// adoptTree wraps nt, a *TSTree the caller owns, in a *sitter.Tree made by
// copying old (whose C tree is swapped for nt), which then owns it: the
// binding has no exported constructor for a tree it did not parse.
func adoptTree(old *sitter.Tree, nt unsafe.Pointer) *sitter.Tree {
	st := old.Copy()
	base := (*unsafe.Pointer)(unsafe.Pointer(st.BaseTree))
	C.hl_tree_delete(*base)
	*base = nt
	return st
}

// hasError reports whether t contains a syntax error (or cannot be read).
func hasError(t *sitter.Tree) bool {
	ptr := cTree(t)
	return ptr == nil || bool(C.hl_tree_has_error(ptr))
}

// textEdit is one replacement in a tree's text, as ts_tree_edit takes it.
type textEdit struct {
	start, oldEnd, newEnd       uint32
	startPt, oldEndPt, newEndPt Point
}

// editTree applies e to t with ts_tree_edit. The binding's (*Tree).Edit
// cannot be used: it passes the old end point as the new one, which
// leaves every reused node after a changed line count on the wrong row.
func editTree(t *sitter.Tree, e textEdit) {
	ptr := cTree(t)
	if ptr == nil {
		return
	}
	C.hl_tree_edit(ptr, C.uint32_t(e.start), C.uint32_t(e.oldEnd), C.uint32_t(e.newEnd),
		C.uint32_t(e.startPt.Row), C.uint32_t(e.startPt.Column),
		C.uint32_t(e.oldEndPt.Row), C.uint32_t(e.oldEndPt.Column),
		C.uint32_t(e.newEndPt.Row), C.uint32_t(e.newEndPt.Column))
}

// The Go and C layouts must agree; this fails to compile otherwise.
var _ = [1]struct{}{}[unsafe.Sizeof(node{})-C.sizeof_hl_flat]
var _ = [1]struct{}{}[C.sizeof_hl_flat-unsafe.Sizeof(node{})]
var _ = [1]struct{}{}[unsafe.Sizeof(top{})-C.sizeof_hl_top]
var _ = [1]struct{}{}[C.sizeof_hl_top-unsafe.Sizeof(top{})]
