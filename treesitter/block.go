package treesitter

import (
	"bytes"
	"context"

	sitter "github.com/smacker/go-tree-sitter"
)

// pointLess reports (r1,c1) < (r2,c2).
func pointLess(r1, c1, r2, c2 uint32) bool {
	return r1 < r2 || (r1 == r2 && c1 < c2)
}

// namedDescendantAt returns the smallest named node containing the point
// (row, col), like ts_node_named_descendant_for_point_range with an empty
// range: at each level the first child with start ≤ p < end.
func (t *tree) namedDescendantAt(row, col uint32) uint32 {
	cur := uint32(0)
	for {
		next := noParent
		t.children(cur, func(c uint32) bool {
			n := &t.nodes[c]
			if !pointLess(row, col, n.EndRow, n.EndCol) {
				return true // ends at or before p
			}
			if pointLess(row, col, n.StartRow, n.StartCol) {
				return false // starts after p
			}
			next = c
			return false
		})
		if next == noParent {
			return cur
		}
		cur = next
	}
}

// lineAt returns the bytes of 1-based line (without its "\n") and whether
// the line exists.
func lineAt(text []byte, line int) ([]byte, bool) {
	for i := 1; i < line; i++ {
		j := bytes.IndexByte(text, '\n')
		if j < 0 {
			return nil, false
		}
		text = text[j+1:]
	}
	if j := bytes.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	return text, true
}

// firstContentColumn is the byte column of the first character other than
// space or tab, or -1.
func firstContentColumn(line []byte) int {
	for i, b := range line {
		if b != ' ' && b != '\t' {
			return i
		}
	}
	return -1
}

// blockRange implements block resolution (spec §7, with hashls's rule that a
// block never climbs into a delimiter-less body container).
func blockRange(ctx context.Context, path string, text []byte, line int) (int, int, bool) {
	lang := LanguageFor(path)
	if lang == nil {
		return 0, 0, false
	}
	row, col, ok := blockStart(text, line)
	if !ok {
		return 0, 0, false
	}
	e := defaultCache.entry(lang, text)
	if e.full.Load() == nil && !lang.trim {
		// Cold: resolve on the C tree instead of copying every node out of
		// it, so a block op costs about one parse.
		s, l, ok, err := e.blockC(ctx, row, col)
		if err == nil {
			return s, l, ok
		}
	}
	t, err := e.get(ctx, 0)
	if err != nil {
		return 0, 0, false
	}
	i, ok := t.blockAt(row, col)
	if !ok {
		return 0, 0, false
	}
	return int(t.nodes[i].StartRow) + 1, t.lastRow(i) + 1, true
}

// blockStart returns the point where a block beginning on 1-based line
// would start (its first character other than space or tab), or false for
// a line that is missing, blank or a lone "\r".
func blockStart(text []byte, line int) (row, col uint32, ok bool) {
	if line < 1 || len(text) == 0 {
		return 0, 0, false
	}
	l, ok := lineAt(text, line)
	if !ok {
		return 0, 0, false
	}
	c := firstContentColumn(l)
	if c < 0 || l[c] == '\r' && c == len(l)-1 {
		return 0, 0, false
	}
	return uint32(line - 1), uint32(c), true
}

// blockC resolves the block at (row, col) on the entry's C tree, parsing it
// if the entry holds none, and keeps the tree for later block ops and for
// building the full tree. Languages whose nodes need trimming (lang.trim)
// must use the flattened tree instead.
func (e *entry) blockC(ctx context.Context, row, col uint32) (start, last int, ok bool, err error) {
	kept := false
	defer e.retainIfKept(&kept) // after the unlock below
	e.mu.Lock()
	defer e.mu.Unlock()
	if t := e.full.Load(); t != nil {
		i, ok := t.blockAt(row, col)
		if !ok {
			return 0, 0, false, nil
		}
		return int(t.nodes[i].StartRow) + 1, t.lastRow(i) + 1, true, nil
	}
	st := e.ctree
	if st == nil {
		if st, err = e.parseC(ctx); err != nil {
			return 0, 0, false, err
		}
		if e.closed {
			defer st.Close()
		} else {
			e.ctree, kept = st, true
		}
	}
	start, last, ok = blockAtC(e.lang, st, row, col)
	return start, last, ok, nil
}

// blockAtC is (*tree).blockAt over a C tree: the same rules, asked of
// tree-sitter directly. It returns the 1-based span.
func blockAtC(lang *Language, st *sitter.Tree, row, col uint32) (start, last int, ok bool) {
	root := st.RootNode()
	if root == nil {
		return 0, 0, false
	}
	p := sitter.Point{Row: row, Column: col}
	n := root.NamedDescendantForPointRange(p, p)
	if n == nil || n.Equal(root) || n.StartPoint().Row != row {
		return 0, 0, false
	}
	for {
		par := n.Parent()
		if par == nil || par.Equal(root) || par.StartPoint().Row != row || lang.is(uint16(par.Symbol()), classContainer) {
			break
		}
		n = par
	}
	if n.HasError() || n.Type() == "ERROR" {
		return 0, 0, false
	}
	if par := n.Parent(); lang.is(uint16(n.Symbol()), classCloser) && par != nil && par.StartPoint().Row < row {
		return 0, 0, false
	}
	s, e := n.StartPoint(), n.EndPoint()
	end := e.Row
	if e.Column == 0 && e.Row > s.Row {
		end--
	}
	return int(s.Row) + 1, int(end) + 1, true
}

// blockAt returns the node of the block beginning at (row, col).
func (t *tree) blockAt(row, col uint32) (uint32, bool) {
	i := t.namedDescendantAt(row, col)
	if i == 0 || t.nodes[i].StartRow != row {
		return 0, false
	}
	for {
		p := t.nodes[i].Parent
		if p == noParent || p == 0 || t.nodes[p].StartRow != row || t.is(p, classContainer) {
			break
		}
		i = p
	}
	if t.nodes[i].Flags&flagError != 0 || t.kind(i) == "ERROR" {
		return 0, false
	}
	// A named closing delimiter (HCL's `}`, HTML's `</p>`) is a closing line.
	if p := t.nodes[i].Parent; t.is(i, classCloser) && p != noParent && t.nodes[p].StartRow < row {
		return 0, false
	}
	return i, true
}
