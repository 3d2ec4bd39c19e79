package treesitter

/*
#include <stdlib.h>
#include "flat.h"
*/
import "C"

import (
	"errors"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

var errNoSkeleton = errors.New("treesitter: the tree's root is not a named node")

// walkBufs is the C memory of a document's symbols walks (hl_out): last
// holds the last walk's nodes, tops and skeleton, next is where the next
// walk writes. The memory is kept from walk to walk: a walk of 10,000
// lines writes a few hundred KB, and fresh memory costs page faults.
type walkBufs struct{ last, next *C.hl_out }

func newWalkBufs() *walkBufs {
	return &walkBufs{
		last: (*C.hl_out)(C.calloc(1, C.sizeof_hl_out)),
		next: (*C.hl_out)(C.calloc(1, C.sizeof_hl_out)),
	}
}

func (b *walkBufs) free() {
	if b != nil {
		C.hl_out_free(b.last)
		C.hl_out_free(b.next)
		b.last, b.next = nil, nil
	}
}

// reused returns how many tops the last walk placed from the walk before
// (alone or in runs) and how many runs of them it placed whole (tests).
func (b *walkBufs) reused() (tops, runs int) {
	return int(b.last.reused_tops), int(b.last.reused_runs)
}

// flattenSkeleton is the walk behind incremental document symbols
// (trees.c): the root and its tops as flattenMarked gives them, but
// reading only what changed since the last walk of b, when reuse is set:
// that walk's tree must still be alive (the caller keeps a copy), so no
// subtree id in its skeleton can name a new subtree. A top or hidden node
// of st that is a subtree that skeleton lists is not read again: a reused
// top is one node flagged flagReused, at its new position, its tops
// entry's prev 1 + its slot in that walk; a reused hidden node's tops are
// all such nodes, their positions moved from the last walk's. Other tops
// are flattened whole, as flattenMarked does (except that a top's own
// field is 0: symbols never ask it). The nodes and tops are b's C memory,
// valid until b's next walk: callers copy what they keep. On success b's
// walks are swapped (this walk becomes the last). errNoSkeleton: st's
// root is not named.
func flattenSkeleton(st *sitter.Tree, b *walkBufs, reuse bool) ([]node, []top, error) {
	ptr := cTree(st)
	if ptr == nil || b.last == nil || b.next == nil {
		return nil, nil, errFlatten
	}
	var prev *C.hl_skel
	var nprev C.uint32_t
	if reuse && b.last.skel.n > 0 {
		prev, nprev = (*C.hl_skel)(b.last.skel.p), b.last.skel.n
	}
	switch C.hl_skeleton(ptr, prev, nprev, b.next) {
	case 0:
	case -2:
		return nil, nil, errNoSkeleton
	default:
		return nil, nil, errFlatten
	}
	b.last, b.next = b.next, b.last
	o := b.last
	nodes := unsafe.Slice((*node)(o.flat.p), int(o.flat.n))
	tops := unsafe.Slice((*top)(o.tops.p), int(o.tops.n))
	return nodes, tops, nil
}
