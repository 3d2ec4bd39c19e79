package treesitter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	sitter "github.com/smacker/go-tree-sitter"
)

// Limits on open documents: how many are followed, and how many C trees
// (about 60 bytes per byte of text) they keep between reparses.
const (
	maxDocs           = 256
	maxDocTrees       = 16
	maxDocTreesWeight = 2 << 20 // bytes of text
	maxPendingEdits   = 1024
)

// docSet is the open documents, by key. Lock order: an entry's mu, then
// docSet.mu or a document's mu, never both at once (find reads texts
// through an atomic pointer; keep frees other documents' trees after
// releasing docSet.mu).
type docSet struct {
	mu    sync.Mutex
	docs  map[string]*document
	trees []*document // documents holding a tree, least recently reparsed first

	// Documents opened on a cached text, waiting for prime (see
	// OpenDocument) in the order opened, and whether a goroutine primes
	// them: one at a time, and only open documents wait.
	primeQ  []primeJob
	priming bool
	primeWG sync.WaitGroup // that goroutine (tests wait for it)

	reparses atomic.Int64 // parses that reused a tree (for tests)
}

// primeJob is a document to prime and its text when opened.
type primeJob struct {
	d    *document
	text []byte
}

// Test hooks, nil outside tests: primeHook is called by prime with the
// context of its parse, once the document is marked parsing and before
// the parse; waitHook by a reparse about to wait for another.
var (
	primeHook func(ctx context.Context)
	waitHook  func()
)

// document is one open document: its current text and, when it has one, a
// C tree of an earlier version edited (ts_tree_edit) to the current text's
// coordinates, ready to be the old tree of the next parse. The tree is
// never handed out: a parse gives its caller a copy (ts_tree_copy), so no C
// tree is used by two goroutines.
type document struct {
	lang *Language
	cur  atomic.Pointer[[]byte] // the current text, for find

	// done when the document is shut: prime's parse stops, and reparses
	// waiting for another parse stop waiting.
	ctx    context.Context
	cancel context.CancelFunc

	dropped bool // guarded by docSet.mu: no longer followed (closed or replaced)

	mu      sync.Mutex
	text    []byte        // the current text (the caller's slice, never modified)
	tree    *sitter.Tree  // nil, or the edited tree of an earlier text
	parsing bool          // a reparse runs without mu: edits meanwhile go to pending
	parsed  chan struct{} // closed when that reparse ends (panics included)
	pending []textEdit
	lost    bool // an edit during that reparse could not be followed
	closed  bool

	// The last complete tree built from one of the document's parses and
	// the document symbols of the last call, each with the C tree it came
	// from: the next build or call copies what the new tree shares with it.
	flat    *tree
	flatSrc reuseSource
	symTops []symTop    // by slot: in the tree order of symWalk's last walk's tops
	symSrc  reuseSource // that walk's tree (only src is set)
	symWalk *walkBufs   // nil while a call uses it

	// The cache entry of the current text while d keeps a tree (see
	// entryOf), or nil.
	ent *entry
}

// reuseSource is the C tree a result was built from, kept (a copy) so that
// the ids of its top-level subtrees stay unique: shared subtrees are
// immutable, and none is freed while a tree holds it.
type reuseSource struct {
	src  *sitter.Tree
	tops []top // the root's named children, sorted by id
}

// borrowLocked returns r with a copy of its tree, which keeps r's ids
// alive while they are used without d.mu, and a function that closes that
// copy.
func (r *reuseSource) borrowLocked() (reuseSource, func()) {
	if r.src == nil {
		return reuseSource{}, func() {}
	}
	b := *r
	b.src = r.src.Copy()
	return b, b.src.Close
}

func (r *reuseSource) close() {
	if r.src != nil {
		r.src.Close()
	}
	*r = reuseSource{}
}

// keepsLocked reports whether d keeps results for a text of n bytes: it
// is open and holds a tree within the limits.
func (d *document) keepsLocked(n int) bool {
	return !d.closed && n <= maxDocTreesWeight && (d.tree != nil || d.parsing)
}

// symTop is the symbols of one top-level subtree as they were when it
// started at at: where the subtree has moved since, a result gets moved
// copies and the symTop stays as it is. They are shared with the results
// handed out where it has not moved (callers only read them).
type symTop struct {
	id   uintptr // the top's subtree id
	at   Range
	syms []Symbol
}

// OpenDocument starts following the open document key (any stable name,
// such as the editor's URI) whose file name is path and whose text is text.
// Parses of exactly its current text (by any entry point: DocumentSymbols,
// BlockRange, Summarize, ...) are then incremental, reusing the tree of the
// previous parse edited by EditDocument. The text is kept, not copied: the
// caller must not modify it. Opening a key again replaces the document;
// documents of unsupported languages are not followed. At most 256 documents
// are followed (the least recently opened is dropped) and at most 16 trees,
// 2 MB of text, are kept between parses.
//
// When the content cache already holds text (an agent tool or an earlier
// open parsed it), requests are answered from there and would leave the
// document without a tree, so that the first change would parse whole:
// the document is then parsed in the background instead (prime), one
// document at a time, in the order opened. A document closed or changed
// before its turn is skipped, closing it stops its parse, and its tree is
// kept only where it fits within the limits beside the trees of the
// documents being edited, which it never frees.
func OpenDocument(key, path string, text []byte) {
	ds := &defaultCache.docs
	d := ds.open(key, LanguageFor(path), text)
	if d != nil && len(text) <= maxDocTreesWeight && defaultCache.holds(d.lang, text) {
		ds.queuePrime(d, text)
	}
}

// queuePrime has d primed on text after the documents already waiting,
// starting the goroutine that primes them if none runs.
func (ds *docSet) queuePrime(d *document, text []byte) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if d.dropped {
		return
	}
	ds.primeQ = append(ds.primeQ, primeJob{d: d, text: text})
	if !ds.priming {
		ds.priming = true
		ds.primeWG.Go(ds.primeAll)
	}
}

// primeAll primes the waiting documents, one at a time, until none waits.
func (ds *docSet) primeAll() {
	for {
		ds.mu.Lock()
		if len(ds.primeQ) == 0 {
			ds.primeQ, ds.priming = nil, false
			ds.mu.Unlock()
			return
		}
		j := ds.primeQ[0]
		ds.primeQ[0] = primeJob{}
		ds.primeQ = ds.primeQ[1:]
		ds.mu.Unlock()
		j.d.prime(ds, j.text)
	}
}

// prime gives d what a first request through it would have left: a tree
// of text, its text when opened, parsed whole, and (where docSymbols
// would compute them so) its document symbols, which editors ask after
// every change, so that the first change costs what any other does.
// Nothing happens when d has closed, moved on, or got a tree otherwise, or
// when its tree would not fit within the limits; closing d cancels the
// parse.
func (d *document) prime(ds *docSet, text []byte) {
	if !ds.fits(d, len(text)) {
		return
	}
	d.mu.Lock()
	if d.closed || d.parsing || d.tree != nil || !sameText(d.text, text) {
		d.mu.Unlock()
		return
	}
	st, ok, err := d.parseLocked(d.ctx, ds, text, true)
	if !ok || err != nil {
		return
	}
	defer st.Close()
	if d.lang.trim { // docSymbols builds the complete tree instead
		return
	}
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	if !closed {
		d.symbols(st, text) // kept by d for the next call; errors are that call's to report
	}
}

// fits reports whether a tree of n bytes of text held by d would fit
// within the limits beside the trees the other documents hold.
func (ds *docSet) fits(d *document, n int) bool {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	return ds.fitsLocked(d, n)
}

func (ds *docSet) fitsLocked(d *document, n int) bool {
	trees, weight := 1, n
	for _, t := range ds.trees {
		if t != d {
			trees++
			weight += len(*t.cur.Load())
		}
	}
	return trees <= maxDocTrees && weight <= maxDocTreesWeight
}

// EditDocument records one change of the document key: bytes [start,
// oldEnd) of its previous text were replaced, giving text (kept, not
// copied). A change whose offsets do not describe the two texts is not an
// error: the document's tree is dropped and its next parse is whole.
// Unknown keys are ignored.
func EditDocument(key string, start, oldEnd int, text []byte) {
	defaultCache.docs.edit(key, start, oldEnd, text)
}

// CloseDocument stops following the document key and frees its tree.
func CloseDocument(key string) {
	defaultCache.docs.close(key)
}

// open follows a new document and returns it (nil for a language that is
// not supported).
func (ds *docSet) open(key string, lang *Language, text []byte) *document {
	var drop []*document
	var d *document
	ds.mu.Lock()
	if old, ok := ds.docs[key]; ok {
		drop = append(drop, old)
		delete(ds.docs, key)
	}
	if lang != nil {
		if ds.docs == nil {
			ds.docs = map[string]*document{}
		}
		d = &document{lang: lang, text: text}
		d.ctx, d.cancel = context.WithCancel(context.Background())
		d.cur.Store(&text)
		for len(ds.docs) >= maxDocs {
			for k, v := range ds.docs { // any one: editors rarely open this many
				drop = append(drop, v)
				delete(ds.docs, k)
				break
			}
		}
		ds.docs[key] = d
	}
	ds.dropLocked(drop)
	ds.mu.Unlock()
	for _, old := range drop {
		old.shut()
	}
	return d
}

func (ds *docSet) close(key string) {
	ds.mu.Lock()
	d, ok := ds.docs[key]
	if ok {
		delete(ds.docs, key)
		ds.dropLocked([]*document{d})
	}
	ds.mu.Unlock()
	if ok {
		d.shut()
	}
}

// dropLocked stops following docs, removed from docs: they leave the
// list of kept trees and the documents waiting for prime, and keep (which
// a reparse may call after the caller shuts them) ignores them.
func (ds *docSet) dropLocked(docs []*document) {
	if len(docs) == 0 {
		return
	}
	for _, d := range docs {
		d.dropped = true
	}
	ds.forgetLocked(docs)
	ds.primeQ = slices.DeleteFunc(ds.primeQ, func(j primeJob) bool { return j.d.dropped })
}

// forgetLocked removes docs from the list of kept trees.
func (ds *docSet) forgetLocked(docs []*document) {
	if len(docs) == 0 {
		return
	}
	kept := ds.trees[:0]
	for _, t := range ds.trees {
		drop := false
		for _, d := range docs {
			drop = drop || t == d
		}
		if !drop {
			kept = append(kept, t)
		}
	}
	clear(ds.trees[len(kept):])
	ds.trees = kept
}

// shut frees d's tree; a reparse still running frees its own. It
// cancels prime's parse and wakes the reparses waiting for another (which
// then find d closed).
func (d *document) shut() {
	d.mu.Lock()
	d.closed = true
	d.dropTreeLocked()
	d.mu.Unlock()
	d.cancel()
}

func (d *document) dropTreeLocked() {
	if d.tree != nil {
		d.tree.Close()
		d.tree = nil
	}
	d.dropFlatLocked()
	if d.parsing {
		d.lost = true
	}
	d.pending = nil
	d.ent = nil
}

func (ds *docSet) lookup(key string) *document {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	return ds.docs[key]
}

// find returns an open document of lang whose current text is text, or nil.
func (ds *docSet) find(lang *Language, text []byte) *document {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	for _, d := range ds.docs {
		if d.lang == lang {
			if sameText(*d.cur.Load(), text) {
				return d
			}
		}
	}
	return nil
}

// entryOf returns the cache entry of text when it is the current text of
// an open document of lang that keeps a tree: the document's own entry,
// which shares the document's text (never modified) instead of copying it
// and is found by comparing texts instead of hashing them. Otherwise nil:
// the caller uses the content-keyed cache, as it does while a document's
// first tree is being parsed (by prime) when that cache holds the text.
func (ds *docSet) entryOf(c *treeCache, lang *Language, text []byte) *entry {
	d := ds.find(lang, text)
	if d == nil {
		return nil
	}
	d.mu.Lock()
	first := d.tree == nil && d.parsing
	d.mu.Unlock()
	if first && c.holds(lang, text) {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !sameText(d.text, text) || !d.keepsLocked(len(text)) {
		return nil
	}
	if d.ent == nil {
		d.ent = &entry{lang: lang, text: d.text, cache: c, owner: d}
	}
	return d.ent
}

// dropEntries forgets the documents' entries and returns them (for purge,
// which closes them).
func (ds *docSet) dropEntries() []*entry {
	ds.mu.Lock()
	docs := make([]*document, 0, len(ds.docs))
	for _, d := range ds.docs {
		docs = append(docs, d)
	}
	ds.mu.Unlock()
	var out []*entry
	for _, d := range docs {
		d.mu.Lock()
		if d.ent != nil {
			out = append(out, d.ent)
			d.ent = nil
		}
		d.mu.Unlock()
	}
	return out
}

// sameText reports whether a and b hold the same bytes, without reading
// them when they are the same slice.
func sameText(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return bytes.Equal(a, b)
}

func (ds *docSet) edit(key string, start, oldEnd int, text []byte) {
	d := ds.lookup(key)
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	e, ok := describeEdit(d.text, start, oldEnd, text)
	switch {
	case !ok:
		d.dropTreeLocked()
	case d.parsing && len(d.pending) >= maxPendingEdits:
		d.lost = true
		d.pending = nil
	case d.parsing:
		d.pending = append(d.pending, e)
	case d.tree != nil:
		editTree(d.tree, e)
	}
	d.ent = nil // its text is no longer current
	d.text = text
	d.cur.Store(&text)
}

// describeEdit checks that replacing old's [start, oldEnd) gives text and
// returns the edit with its points (rows count "\n" only, as tree-sitter's
// do; columns are bytes).
func describeEdit(old []byte, start, oldEnd int, text []byte) (textEdit, bool) {
	if start < 0 || start > oldEnd || oldEnd > len(old) {
		return textEdit{}, false
	}
	newEnd := len(text) - (len(old) - oldEnd)
	if newEnd < start || newEnd > len(text) || len(text) > 1<<31 || len(old) > 1<<31 ||
		!bytes.Equal(old[:start], text[:start]) || !bytes.Equal(old[oldEnd:], text[newEnd:]) {
		return textEdit{}, false
	}
	sp := pointAfter(Point{}, old[:start])
	return textEdit{
		start: uint32(start), oldEnd: uint32(oldEnd), newEnd: uint32(newEnd),
		startPt: sp, oldEndPt: pointAfter(sp, old[start:oldEnd]), newEndPt: pointAfter(sp, text[start:newEnd]),
	}, true
}

// pointAfter is the point reached from p by the bytes b.
func pointAfter(p Point, b []byte) Point {
	n := bytes.Count(b, []byte{'\n'})
	if n == 0 {
		return Point{Row: p.Row, Column: p.Column + len(b)}
	}
	return Point{Row: p.Row + n, Column: len(b) - bytes.LastIndexByte(b, '\n') - 1}
}

// reparse parses text, d's current text, reusing d's tree, keeps the
// result as d's tree and returns a copy of it for the caller to own. A
// reparse already running for another caller (such as prime's whole
// parse) is waited for, as long as ctx allows and d stays open: its tree,
// edited since, is then the one reused. ok is false when d cannot serve
// (closed, no longer at text, or ctx done while waiting): the caller
// parses on its own.
func (d *document) reparse(ctx context.Context, ds *docSet, text []byte) (st *sitter.Tree, ok bool, err error) {
	d.mu.Lock()
	for d.parsing && !d.closed {
		running := d.parsed
		d.mu.Unlock()
		if waitHook != nil {
			waitHook()
		}
		select {
		case <-running:
		case <-d.ctx.Done(): // shut: d.closed is set
		case <-ctx.Done():
			return nil, false, nil
		}
		d.mu.Lock()
	}
	if d.closed || !sameText(d.text, text) {
		d.mu.Unlock()
		return nil, false, nil
	}
	return d.parseLocked(ctx, ds, text, false)
}

// parseLocked is reparse once d may parse (open, at text, no parse
// running), called with d.mu held, which it releases. A tree prime parsed
// (primed) is kept by keepPrimed, never freeing another's.
func (d *document) parseLocked(ctx context.Context, ds *docSet, text []byte, primed bool) (st *sitter.Tree, ok bool, err error) {
	old := d.tree
	d.tree, d.parsing, d.lost, d.pending = nil, true, false, nil
	parsed := make(chan struct{})
	d.parsed = parsed
	d.mu.Unlock()
	running := true
	defer func() {
		if running { // the parse panicked: d keeps no tree, and nobody waits for ever
			d.mu.Lock()
			d.parsing, d.parsed, d.pending = false, nil, nil
			d.mu.Unlock()
		}
		close(parsed)
	}()

	if primed && primeHook != nil {
		primeHook(ctx)
	}
	st, err = parseWith(ctx, d.lang, old, text)
	if old != nil {
		old.Close()
		if err == nil && hasError(st) {
			// Error recovery depends on the subtrees the parser reuses:
			// the tree of an invalid text may differ from a whole parse's
			// (FuzzIncremental found such texts in Ruby), so it is parsed
			// whole.
			st.Close()
			st, err = parseWith(ctx, d.lang, nil, text)
		} else {
			ds.reparses.Add(1)
		}
	}

	d.mu.Lock()
	d.parsing, d.parsed, running = false, nil, false
	pending, lost := d.pending, d.lost || d.closed
	d.pending = nil
	if err != nil {
		d.mu.Unlock()
		return nil, true, err
	}
	cp := st.Copy()
	if lost || len(text) > maxDocTreesWeight {
		st.Close()
		d.mu.Unlock()
		return cp, true, nil
	}
	for _, e := range pending {
		editTree(st, e)
	}
	d.tree = st
	d.mu.Unlock()
	if primed {
		ds.keepPrimed(d, st)
	} else {
		ds.keep(d)
	}
	return cp, true, nil
}

// keep records that d holds a tree and frees the least recently reparsed
// trees beyond the limits. A document no longer followed is not recorded:
// shut frees its tree.
func (ds *docSet) keep(d *document) {
	ds.mu.Lock()
	if d.dropped { // closed after its reparse stored the tree
		ds.mu.Unlock()
		return
	}
	ds.forgetLocked([]*document{d})
	ds.trees = append(ds.trees, d)
	weight := 0
	for _, t := range ds.trees {
		weight += len(*t.cur.Load())
	}
	var victims []*document
	for len(ds.trees) > 1 && (len(ds.trees) > maxDocTrees || weight > maxDocTreesWeight) {
		v := ds.trees[0]
		ds.trees = ds.trees[1:]
		weight -= len(*v.cur.Load())
		victims = append(victims, v)
	}
	ds.mu.Unlock()
	for _, v := range victims {
		v.mu.Lock()
		if v.tree != nil {
			v.tree.Close()
			v.tree = nil
		}
		v.dropFlatLocked()
		v.ent = nil
		v.mu.Unlock()
	}
}

// keepPrimed records that d holds st, the tree prime parsed, as the least
// recently reparsed of the kept trees, if it fits within the limits beside
// them; if not, st is freed instead: prime frees no other document's tree.
// Nothing is done when d is no longer followed (shut frees st) or a reparse
// since has kept d's tree.
func (ds *docSet) keepPrimed(d *document, st *sitter.Tree) {
	ds.mu.Lock()
	if d.dropped || slices.Contains(ds.trees, d) {
		ds.mu.Unlock()
		return
	}
	fits := ds.fitsLocked(d, len(*d.cur.Load()))
	if fits {
		ds.trees = slices.Insert(ds.trees, 0, d)
	}
	ds.mu.Unlock()
	if !fits {
		d.mu.Lock()
		if d.tree == st {
			d.tree.Close()
			d.tree = nil
			d.dropFlatLocked()
			d.ent = nil
		}
		d.mu.Unlock()
	}
}

func (d *document) dropFlatLocked() {
	d.flat = nil
	d.flatSrc.close()
	d.symTops = nil
	d.symSrc.close()
	d.symWalk.free()
	d.symWalk = nil
}

// build is e.build(st, 0) for a tree st reparsed from d: the subtrees st
// shares with the tree of d's previous build are copied from that build
// instead of being read from C again, and st becomes the next build's
// source. Called with e.mu held.
func (d *document) build(e *entry, st *sitter.Tree) (*tree, error) {
	if d.lang.trim {
		return e.build(st, 0)
	}
	d.mu.Lock()
	prev := d.flat
	src, release := d.flatSrc.borrowLocked()
	tops := src.tops
	d.mu.Unlock()
	nodes, newTops, err := flattenReusing(st, prev, tops)
	release()
	if err != nil || len(nodes) == 0 {
		return e.build(st, 0)
	}
	t := &tree{lang: e.lang, nodes: nodes}
	d.mu.Lock()
	if d.keepsLocked(len(e.text)) {
		d.flatSrc.close()
		d.flat, d.flatSrc = t, reuseSource{src: st.Copy(), tops: newTops}
	}
	d.mu.Unlock()
	return t, nil
}

// symbols returns documentSymbols of text for st, a tree reparsed from d:
// the symbols of top-level subtrees st shares with the tree of d's
// previous call are that call's (moved, when the subtree moved), the
// others are computed from their subtree only (what a top-level node's
// symbols are depends on its subtree and its text alone, see symbolsOf).
// The walk (flattenSkeleton) writes into C memory the document keeps from
// call to call (symWalk), taken for the call: a concurrent call walks in
// new memory, without reuse, and of the two the first to finish keeps its
// walk. No other goroutine may use st meanwhile: callers hold the mu of
// the entry whose tree it is, or own it (prime).
func (d *document) symbols(st *sitter.Tree, text []byte) ([]Symbol, error) {
	d.mu.Lock()
	prev := d.symTops
	src, release := d.symSrc.borrowLocked()
	wb := d.symWalk
	d.symWalk = nil // this call's; a concurrent one walks with its own
	d.mu.Unlock()
	defer release()
	reuse := wb != nil && src.src != nil
	if wb == nil {
		wb = newWalkBufs()
	}
	out, cur, err := d.symbolsReusing(st, text, prev, wb, reuse)
	if errors.Is(err, errNotReused) {
		// Cannot happen while the skeleton and prev agree; whole, to be safe.
		symbolsRetried.Add(1)
		out, cur, err = d.symbolsReusing(st, text, nil, wb, false)
	}
	if err != nil {
		wb.free() // it may hold this walk, which prev does not describe
		if errors.Is(err, errNoSkeleton) {
			nodes, ferr := flatten(st, 0)
			if ferr != nil {
				return nil, ferr
			}
			return documentSymbols(&tree{lang: d.lang, nodes: nodes}, text), nil
		}
		return nil, err
	}
	d.mu.Lock()
	if d.keepsLocked(len(text)) && d.symWalk == nil {
		d.symSrc.close()
		d.symTops, d.symSrc, d.symWalk = cur, reuseSource{src: st.Copy()}, wb
		wb = nil
	}
	d.mu.Unlock()
	wb.free()
	return out, nil
}

var errNotReused = errors.New("treesitter: a reused subtree has no symbols of the previous call")

// symbolsRetried counts the calls that hit errNotReused (tests).
var symbolsRetried atomic.Int64

// symbolsReusing computes the symbols of st's text with a walk of wb
// (flattenSkeleton): with reuse, those of the top-level subtrees found in
// wb's last walk, of the previous call's tree, are that call's (prev, by
// slot). It also returns the symbols of each of st's tops (cur, by slot).
func (d *document) symbolsReusing(st *sitter.Tree, text []byte, prev []symTop, wb *walkBufs, reuse bool) (out []Symbol, cur []symTop, err error) {
	nodes, tops, err := flattenSkeleton(st, wb, reuse)
	if err != nil {
		return nil, nil, err
	}
	if len(nodes) == 0 {
		return nil, nil, fmt.Errorf("treesitter: %s parse produced an empty tree; read the file plainly", d.lang.Name)
	}
	t := &tree{lang: d.lang, nodes: nodes}
	// topAt returns the position in tops of the root's child c, or -1;
	// calls must come in tree order.
	j := 0
	topAt := func(c uint32) int {
		for j < len(tops) && tops[j].index < c {
			j++
		}
		if j < len(tops) && tops[j].index == c {
			return j
		}
		return -1
	}
	out = make([]Symbol, 0, len(tops))
	cur = make([]symTop, len(tops))
	var kids symbolChunks // the moved copies' children
	t.children(0, func(c uint32) bool {
		n := &t.nodes[c]
		at := Range{Start: int(n.StartByte), StartPoint: Point{int(n.StartRow), int(n.StartCol)}}
		k := topAt(c)
		if n.Flags&flagReused != 0 {
			p, ok := reusedSymbols(tops, k, prev)
			if !ok {
				err = errNotReused
				return false
			}
			if p.at == at {
				out = append(out, p.syms...)
			} else {
				out = moveSymbols(&kids, out, p.syms, p.at, at)
			}
			cur[k] = p
			return true
		}
		m := len(out)
		out = t.symbolsOf(c, text, "", 0, out)
		if k >= 0 {
			// A copy: a slice of out would keep all of out alive.
			var syms []Symbol
			if len(out) > m {
				syms = slices.Clone(out[m:])
			}
			cur[k] = symTop{id: tops[k].id, at: at, syms: syms}
		}
		return true
	})
	if err != nil {
		return nil, nil, err
	}
	return out, cur, nil
}

// reusedSymbols returns the previous call's symbols of tops[k], a reused
// top: prev[tops[k].prev-1], which must be the same subtree's.
func reusedSymbols(tops []top, k int, prev []symTop) (symTop, bool) {
	if k < 0 {
		return symTop{}, false
	}
	p := int(tops[k].prev)
	if p == 0 || p > len(prev) || prev[p-1].id != tops[k].id {
		return symTop{}, false
	}
	return prev[p-1], true
}

// moveSymbols appends to out copies of syms moved from the position of
// from's start to that of to's: byte offsets and rows shift, and so do
// the columns on from's row. The copies' children (moved too) are taken
// from kids.
func moveSymbols(kids *symbolChunks, out, syms []Symbol, from, to Range) []Symbol {
	for _, s := range syms {
		s.Range = moveRange(s.Range, from, to)
		s.Selection = moveRange(s.Selection, from, to)
		if len(s.Children) > 0 {
			s.Children = moveSymbols(kids, kids.take(len(s.Children)), s.Children, from, to)
		}
		out = append(out, s)
	}
	return out
}

// symbolChunks hands out room for symbols from arrays shared by many
// (one allocation for the children of many moved symbols, not one each).
type symbolChunks struct{ free []Symbol }

// take returns an empty slice with room for n symbols, which appending up
// to n keeps in place.
func (c *symbolChunks) take(n int) []Symbol {
	if len(c.free) < n {
		c.free = make([]Symbol, max(n, 1024))
	}
	s := c.free[:0:n]
	c.free = c.free[n:]
	return s
}

func moveRange(r, from, to Range) Range {
	move := func(p Point) Point {
		if p.Row == from.StartPoint.Row {
			p.Column += to.StartPoint.Column - from.StartPoint.Column
		}
		p.Row += to.StartPoint.Row - from.StartPoint.Row
		return p
	}
	d := to.Start - from.Start
	return Range{Start: r.Start + d, End: r.End + d, StartPoint: move(r.StartPoint), EndPoint: move(r.EndPoint)}
}
