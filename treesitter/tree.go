package treesitter

import (
	"container/list"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/hashls/hashls/treesitter/internal/reparser"
)

// ErrUnsupported is returned for a path whose language has no grammar.
var ErrUnsupported = errors.New("treesitter: no grammar for this file type")

// tree is an immutable copy of a parse: the named nodes in preorder. It is
// safe to share between goroutines (unlike *sitter.Tree, which only one
// goroutine at a time may touch). A pruned tree (pruneLines > 0) lacks the
// descendants of nodes spanning fewer than pruneLines rows; it is enough for
// summaries whose spans all have at least that many lines.
type tree struct {
	lang       *Language
	nodes      []node
	pruneLines int // 0: complete

	mu        sync.Mutex
	summaries map[SummaryOptions][]Segment // derived results, computed once per options
}

func (t *tree) kind(i uint32) string { return t.lang.kind(t.nodes[i].Symbol) }

func (t *tree) is(i uint32, class uint8) bool { return t.lang.is(t.nodes[i].Symbol, class) }

func (t *tree) fieldOf(i uint32) string { return t.lang.field(t.nodes[i].Field) }

// children calls f for each named child of i, in order.
func (t *tree) children(i uint32, f func(c uint32) bool) {
	end := t.nodes[i].End
	for j := i + 1; j < end; j = t.nodes[j].End {
		if !f(j) {
			return
		}
	}
}

func (t *tree) childList(i uint32) []uint32 {
	var out []uint32
	t.children(i, func(c uint32) bool { out = append(out, c); return true })
	return out
}

func (t *tree) hasError() bool {
	return len(t.nodes) > 0 && t.nodes[0].Flags&flagError != 0
}

// lastRow is the row of the node's last content byte (a trailing newline is
// not counted).
func (t *tree) lastRow(i uint32) int {
	n := &t.nodes[i]
	if n.EndCol == 0 && n.EndRow > n.StartRow {
		return int(n.EndRow) - 1
	}
	return int(n.EndRow)
}

// entry is one cached parse. The C tree stays (guarded by mu, never used by
// two goroutines at once) from the first parse until the full tree has been
// copied out of it, so a summary followed by a block op parses once.
type entry struct {
	lang  *Language
	text  []byte     // the parsed bytes (owned; never modified)
	cache *treeCache // nil for uncached entries

	mu     sync.Mutex
	ctree  *sitter.Tree
	closed bool      // evicted: ctree is closed and must not be kept
	doc    *document // the open document whose tree ctree was reparsed from, if any
	owner  *document // the open document whose text this is, for entries it owns (see entryOf)

	skel atomic.Pointer[tree] // pruned tree for summaries
	full atomic.Pointer[tree] // complete tree
}

func (e *entry) closeTree() {
	if e.ctree != nil {
		e.ctree.Close()
		e.ctree = nil
	}
}

// parseC parses e.text: incrementally when an open document (see
// OpenDocument) holds a tree of an earlier version of the same text,
// otherwise from scratch. Call with e.mu held.
func (e *entry) parseC(ctx context.Context) (*sitter.Tree, error) {
	if e.cache != nil {
		if d := e.docOf(); d != nil {
			if st, ok, err := d.reparse(ctx, &e.cache.docs, e.text); ok {
				if err == nil {
					e.doc = d
				}
				return st, err
			}
		}
	}
	return parseWith(ctx, e.lang, nil, e.text)
}

// docOf returns the open document whose current text is e.text, or nil.
func (e *entry) docOf() *document {
	if e.owner != nil {
		return e.owner
	}
	return e.cache.docs.find(e.lang, e.text)
}

// parseWith parses text with a pooled parser, reusing old (a tree of an
// earlier text, edited to match text's coordinates) when it is not nil:
// then with a parser of the patched runtime (reparser), on the Go bytes.
//
// The binding's ParseCtx sets the parser's cancellation flag from a
// goroutine when its context is done, and nothing clears that flag: a parser
// whose context was cancelled, even just after a successful parse, fails
// every later parse ("operation limit was hit"). So ParseCtx gets a context
// that only parseWatched's own watcher can cancel, and a parser whose
// context may have been cancelled, or that failed, never goes back to the
// pool; nor does a reparser.
func parseWith(ctx context.Context, lang *Language, old *sitter.Tree, text []byte) (*sitter.Tree, error) {
	lang.init()
	var st *sitter.Tree
	var cancelled bool
	var err error
	if rp := lang.reparser(old); rp != nil {
		st, cancelled, err = reparse(ctx, rp, old, text)
		putBack(lang.reparsers, rp, !cancelled && err == nil && st != nil)
	} else {
		var p *sitter.Parser
		select {
		case p = <-lang.parsers:
		default:
			p = sitter.NewParser()
			p.SetLanguage(lang.lang)
		}
		st, cancelled, err = parseWatched(ctx, p, old, text)
		putBack(lang.parsers, p, !cancelled && err == nil && st != nil)
	}
	if err == nil && st == nil {
		err = errors.New("tree-sitter returned no tree")
	}
	if err != nil {
		return nil, fmt.Errorf("treesitter: parsing %s failed (retry, or read the file plainly): %w", lang.Name, err)
	}
	return st, nil
}

// putBack returns p to pool when its parse went well (ok), else (or when
// the pool is full) closes it.
func putBack[P interface{ Close() }](pool chan P, p P, ok bool) {
	if ok {
		select {
		case pool <- p:
			return
		default:
		}
	}
	p.Close()
}

// reparser returns a pooled (or new) parser of the patched runtime for a
// reparse from old, or nil when old is nil or that runtime cannot take
// the language (TestReparserTakesEveryLanguage): the binding's parser
// then reparses.
func (l *Language) reparser(old *sitter.Tree) *reparser.Parser {
	if old == nil || cTree(old) == nil {
		return nil
	}
	select {
	case rp := <-l.reparsers:
		return rp
	default:
		return reparser.New(cLanguage(l.lang))
	}
}

// reparse reparses text from old with rp (on the Go bytes: the binding's
// ParseCtx would copy them into C memory first, which costs as much as the
// reparse of a one-letter change), watching ctx as parseWatched does: when
// ctx is done during the parse rp is cancelled, and cancelled reports it
// (rp must then be closed).
func reparse(ctx context.Context, rp *reparser.Parser, old *sitter.Tree, text []byte) (st *sitter.Tree, cancelled bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, true, err
	}
	var fired chan bool
	var done chan struct{}
	if ctx.Done() != nil {
		done, fired = make(chan struct{}), make(chan bool, 1)
		go func() {
			select {
			case <-ctx.Done():
				rp.Cancel()
				fired <- true
			case <-done:
				fired <- false
			}
		}()
	}
	nt := rp.Reparse(cTree(old), text)
	if done != nil {
		close(done)
		cancelled = <-fired
	}
	if nt == nil {
		if cancelled {
			return nil, true, ctx.Err()
		}
		return nil, cancelled, errors.New("tree-sitter returned no tree")
	}
	return adoptTree(old, nt), cancelled, nil
}

// parseWatched runs p.ParseCtx under a private context that is cancelled
// only while the parse runs and only if ctx is done; cancelled reports
// whether that happened (the parser's flag may then be set).
func parseWatched(ctx context.Context, p *sitter.Parser, old *sitter.Tree, text []byte) (st *sitter.Tree, cancelled bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, true, err
	}
	if ctx.Done() == nil {
		st, err = p.ParseCtx(context.Background(), old, text)
		return st, false, err
	}
	pctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	fired := make(chan bool, 1)
	go func() {
		select {
		case <-ctx.Done():
			stop()
			fired <- true
		case <-done:
			fired <- false
		}
	}()
	st, err = p.ParseCtx(pctx, old, text)
	close(done)
	// Unless the watcher fired, pctx is never cancelled now, so the
	// binding's goroutine cannot set the flag any more. pctx's parent is
	// Background: leaving it uncancelled holds no resources.
	cancelled = <-fired
	return st, cancelled, err
}

func (e *entry) build(st *sitter.Tree, pruneLines int) (*tree, error) {
	nodes, err := flatten(st, pruneLines)
	if err != nil {
		return nil, err
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("treesitter: %s parse produced an empty tree; read the file plainly", e.lang.Name)
	}
	if e.lang.trim {
		trimNodes(nodes, e.text)
	}
	return &tree{lang: e.lang, nodes: nodes, pruneLines: pruneLines}, nil
}

// get returns the full tree (minLines 0) or any tree good enough for
// summaries whose spans have at least minLines lines, parsing at most once
// per entry (a skeleton pruned for fewer lines serves too).
func (e *entry) get(ctx context.Context, minLines int) (*tree, error) {
	if t := e.usable(minLines); t != nil {
		return t, nil
	}
	t, kept, err := e.getLocked(ctx, minLines)
	if kept && e.cache != nil {
		e.cache.retain(e)
	}
	return t, err
}

// usable returns a tree already built that serves minLines, or nil.
func (e *entry) usable(minLines int) *tree {
	if t := e.full.Load(); t != nil {
		return t
	}
	if minLines > 0 {
		if t := e.skel.Load(); t != nil && t.pruneLines <= minLines {
			return t
		}
	}
	return nil
}

// getLocked does the work of get under e.mu; kept reports that e now holds
// a C tree.
func (e *entry) getLocked(ctx context.Context, minLines int) (*tree, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if t := e.usable(minLines); t != nil {
		return t, false, nil
	}
	st := e.ctree
	if st == nil {
		var err error
		if st, err = e.parseC(ctx); err != nil {
			return nil, false, err
		}
	}
	var t *tree
	var err error
	if minLines == 0 && e.doc != nil {
		t, err = e.doc.build(e, st)
	} else {
		t, err = e.build(st, minLines)
	}
	switch {
	case err != nil:
		st.Close()
		e.ctree = nil
		return nil, false, err
	case minLines > 0 && !e.closed:
		e.ctree = st // keep it for the full tree and for block ops
		e.skel.Store(t)
		return t, true, nil
	case minLines > 0:
		st.Close()
		e.skel.Store(t)
	default:
		st.Close()
		e.ctree = nil
		e.full.Store(t)
	}
	return t, false, nil
}

// retainIfKept tells e's cache that e keeps a C tree (retain: the oldest
// kept trees beyond the limits are closed) when *kept is set. Callers defer
// it before locking e.mu, so it runs after the unlock.
func (e *entry) retainIfKept(kept *bool) {
	if *kept && e.cache != nil {
		e.cache.retain(e)
	}
}

// docSymbols computes the document symbols of an open document's text
// without building its complete tree (see (*document).symbols); ok is false
// when e is not such a text or its complete tree exists already.
func (e *entry) docSymbols(ctx context.Context) (syms []Symbol, ok bool, err error) {
	if e.cache == nil || e.lang.trim || e.full.Load() != nil {
		return nil, false, nil
	}
	kept := false
	defer e.retainIfKept(&kept) // after the unlock below
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.full.Load() != nil {
		return nil, false, nil
	}
	st := e.ctree
	if st == nil {
		d := e.docOf()
		if d == nil {
			return nil, false, nil
		}
		var reparsed bool
		st, reparsed, err = d.reparse(ctx, &e.cache.docs, e.text)
		if !reparsed {
			return nil, false, nil
		}
		if err != nil {
			return nil, true, err
		}
		e.doc = d
		if e.closed {
			defer st.Close()
		} else {
			e.ctree, kept = st, true // for a block op or the complete tree next
		}
	}
	if e.doc == nil {
		return nil, false, nil
	}
	syms, err = e.doc.symbols(st, e.text)
	return syms, true, err
}

// parse returns the complete syntax tree of text, from the cache when the
// same content was parsed before.
func parse(ctx context.Context, lang *Language, text []byte) (*tree, error) {
	if lang == nil {
		return nil, ErrUnsupported
	}
	return defaultCache.entry(lang, text).get(ctx, 0)
}

// parseSkeleton returns a tree good enough for summaries whose spans have at
// least minLines (≥ 1) lines: possibly pruned below that.
func parseSkeleton(ctx context.Context, lang *Language, text []byte, minLines int) (*tree, error) {
	if lang == nil {
		return nil, ErrUnsupported
	}
	return defaultCache.entry(lang, text).get(ctx, max(minLines, 1))
}

// parseFresh parses text without the cache.
func parseFresh(ctx context.Context, lang *Language, text []byte) (*tree, error) {
	e := &entry{lang: lang, text: text, closed: true}
	return e.get(ctx, 0)
}

type cacheKey struct {
	lang string
	sum  [32]byte
}

// treeCache is a bounded LRU of parses keyed by content hash, weighed by
// text size (C trees and node copies both grow with it).
type treeCache struct {
	mu        sync.Mutex
	ll        *list.List
	m         map[cacheKey]*list.Element
	weight    int // total text bytes held
	maxWeight int
	maxTrees  int

	// Entries holding a C tree, oldest first. C trees cost about 60 bytes
	// per byte of text, so only a few are kept.
	retained       []*entry
	retainedWeight int

	docs docSet // open documents, whose trees are reparsed incrementally
}

// Limits on retained C trees: 8 trees or 1 MB of text.
const (
	maxRetainedTrees  = 8
	maxRetainedWeight = 1 << 20
)

// retain records that e keeps a C tree and closes the oldest kept trees
// beyond the limits (their entries re-parse if they ever need a full tree).
func (c *treeCache) retain(e *entry) {
	c.mu.Lock()
	kept := c.retained[:0]
	c.retainedWeight = 0
	for _, r := range c.retained {
		if r != e {
			kept = append(kept, r)
			c.retainedWeight += len(r.text)
		}
	}
	c.retained = append(kept, e)
	c.retainedWeight += len(e.text)
	var victims []*entry
	for len(c.retained) > 1 && (len(c.retained) > maxRetainedTrees || c.retainedWeight > maxRetainedWeight) {
		v := c.retained[0]
		c.retained = c.retained[1:]
		c.retainedWeight -= len(v.text)
		victims = append(victims, v)
	}
	c.mu.Unlock()
	for _, v := range victims {
		v.mu.Lock()
		v.closeTree()
		v.mu.Unlock()
	}
}

type cacheEntry struct {
	key cacheKey
	e   *entry
}

// 64 files or 4 MB of text (measured: about 30 bytes of trees per byte of
// text, so ~120 MB at most).
var defaultCache = newTreeCache(64, 4<<20)

func newTreeCache(maxTrees, maxWeight int) *treeCache {
	return &treeCache{ll: list.New(), m: map[cacheKey]*list.Element{}, maxWeight: maxWeight, maxTrees: maxTrees}
}

// entry returns the cache entry for text: the open document's own when
// text is the current text of one that keeps a tree (docSet.entryOf),
// else the content-keyed one, created (evicting old ones) as needed.
// Texts larger than the budget get an uncached entry.
func (c *treeCache) entry(lang *Language, text []byte) *entry {
	if e := c.docs.entryOf(c, lang, text); e != nil {
		return e
	}
	if len(text) > c.maxWeight {
		return &entry{lang: lang, text: text, closed: true}
	}
	k := keyOf(lang, text)
	c.mu.Lock()
	if el, ok := c.m[k]; ok {
		c.ll.MoveToFront(el)
		c.mu.Unlock()
		return el.Value.(*cacheEntry).e
	}
	// Own a copy: the caller may reuse its buffer, and a later full parse
	// (or trimming) reads e.text again.
	e := &entry{lang: lang, text: append([]byte(nil), text...), cache: c}
	c.m[k] = c.ll.PushFront(&cacheEntry{key: k, e: e})
	c.weight += len(text)
	var evicted []*entry
	for c.ll.Len() > 1 && (c.ll.Len() > c.maxTrees || c.weight > c.maxWeight) {
		el := c.ll.Back()
		ce := el.Value.(*cacheEntry)
		c.ll.Remove(el)
		delete(c.m, ce.key)
		c.weight -= len(ce.e.text)
		evicted = append(evicted, ce.e)
	}
	c.mu.Unlock()
	for _, old := range evicted {
		old.mu.Lock() // waits for a goroutine still using its C tree
		old.closed = true
		old.closeTree()
		old.mu.Unlock()
	}
	return e
}

func keyOf(lang *Language, text []byte) cacheKey {
	return cacheKey{lang: lang.Name, sum: sha256.Sum256(text)}
}

// holds reports whether c has an entry for text.
func (c *treeCache) holds(lang *Language, text []byte) bool {
	k := keyOf(lang, text)
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.m[k]
	return ok
}

func (c *treeCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}

func (c *treeCache) purge() {
	c.mu.Lock()
	var all []*entry
	for el := c.ll.Front(); el != nil; el = el.Next() {
		all = append(all, el.Value.(*cacheEntry).e)
	}
	c.ll.Init()
	c.m = map[cacheKey]*list.Element{}
	c.weight = 0
	c.retained, c.retainedWeight = nil, 0
	c.mu.Unlock()
	all = append(all, c.docs.dropEntries()...)
	for _, e := range all {
		e.mu.Lock()
		e.closed = true
		e.closeTree()
		e.mu.Unlock()
	}
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v'
}

// trimNodes moves each node's boundaries off leading and trailing
// whitespace (nodes that are all whitespace keep theirs).
func trimNodes(nodes []node, text []byte) {
	var starts []int // byte offset of each row
	pointAt := func(off uint32) (uint32, uint32) {
		if starts == nil {
			starts = []int{0}
			for i, b := range text {
				if b == '\n' {
					starts = append(starts, i+1)
				}
			}
		}
		r := sort.SearchInts(starts, int(off)+1) - 1
		return uint32(r), off - uint32(starts[r])
	}
	for i := range nodes {
		n := &nodes[i]
		s, e := n.StartByte, n.EndByte
		if int(e) > len(text) || s >= e {
			continue
		}
		for s < e && isSpace(text[s]) {
			s++
		}
		for e > s && isSpace(text[e-1]) {
			e--
		}
		if s == e {
			continue
		}
		if s != n.StartByte {
			n.StartByte = s
			n.StartRow, n.StartCol = pointAt(s)
		}
		if e != n.EndByte {
			n.EndByte = e
			n.EndRow, n.EndCol = pointAt(e)
		}
	}
}
