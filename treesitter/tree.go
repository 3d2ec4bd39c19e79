package treesitter

import (
	"container/list"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sort"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// ErrUnsupported is returned for a path whose language has no grammar.
var ErrUnsupported = errors.New("treesitter: no grammar for this file type")

// tree is an immutable copy of a parse: the named nodes in preorder. It is
// safe to share between goroutines (unlike *sitter.Tree, which is closed as
// soon as it has been copied).
type tree struct {
	lang  *Language
	nodes []node

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

// parse returns the syntax tree of text, from the cache when the same
// content was parsed before.
func parse(ctx context.Context, lang *Language, text []byte) (*tree, error) {
	if lang == nil {
		return nil, ErrUnsupported
	}
	key := cacheKey{lang: lang.Name, sum: sha256.Sum256(text)}
	if t := defaultCache.get(key); t != nil {
		return t, nil
	}
	t, err := parseFresh(ctx, lang, text)
	if err != nil {
		return nil, err
	}
	defaultCache.put(key, t)
	return t, nil
}

// parseFresh parses text without the cache. One parser per goroutine (from
// the language's pool); the C tree is closed before returning.
func parseFresh(ctx context.Context, lang *Language, text []byte) (*tree, error) {
	lang.init()
	p, _ := lang.pool.Get().(*sitter.Parser)
	if p == nil {
		p = sitter.NewParser()
		p.SetLanguage(lang.lang)
	}
	st, err := p.ParseCtx(ctx, nil, text)
	if err != nil || st == nil {
		// A cancelled parser would resume the old parse next time.
		p.Reset()
		lang.pool.Put(p)
		if err == nil {
			err = errors.New("tree-sitter returned no tree")
		}
		return nil, fmt.Errorf("treesitter: parsing %s failed (retry, or read the file plainly): %w", lang.Name, err)
	}
	lang.pool.Put(p)
	nodes, err := flatten(st)
	st.Close()
	if err != nil {
		return nil, err
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("treesitter: %s parse produced an empty tree; read the file plainly", lang.Name)
	}
	if lang.trim {
		trimNodes(nodes, text)
	}
	return &tree{lang: lang, nodes: nodes}, nil
}

type cacheKey struct {
	lang string
	sum  [32]byte
}

// treeCache is a bounded LRU of immutable trees keyed by content hash.
type treeCache struct {
	mu       sync.Mutex
	ll       *list.List
	m        map[cacheKey]*list.Element
	nodes    int // total nodes held
	maxNodes int
	maxTrees int
}

type cacheEntry struct {
	key cacheKey
	t   *tree
}

// About 44 bytes per node: 3M nodes ≈ 130 MB at most.
var defaultCache = newTreeCache(64, 3_000_000)

func newTreeCache(maxTrees, maxNodes int) *treeCache {
	return &treeCache{ll: list.New(), m: map[cacheKey]*list.Element{}, maxNodes: maxNodes, maxTrees: maxTrees}
}

func (c *treeCache) get(k cacheKey) *tree {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[k]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*cacheEntry).t
	}
	return nil
}

func (c *treeCache) put(k cacheKey, t *tree) {
	if len(t.nodes) > c.maxNodes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[k]; ok {
		c.ll.MoveToFront(e)
		return
	}
	c.m[k] = c.ll.PushFront(&cacheEntry{key: k, t: t})
	c.nodes += len(t.nodes)
	for c.ll.Len() > c.maxTrees || c.nodes > c.maxNodes {
		e := c.ll.Back()
		ent := e.Value.(*cacheEntry)
		c.ll.Remove(e)
		delete(c.m, ent.key)
		c.nodes -= len(ent.t.nodes)
	}
}

func (c *treeCache) purge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ll.Init()
	c.m = map[cacheKey]*list.Element{}
	c.nodes = 0
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
