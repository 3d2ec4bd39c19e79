package treesitter

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// incrSnippets are what random edits insert: delimiters, line breaks,
// keywords of the tested languages, a multi-byte character.
var incrSnippets = []string{
	"", "\n", "\n\n", "{", "}", "(", ")", "[", "]", "x", "y1", " ", "\t", "    ", "\"", "'", "`",
	"/*", "*/", "//", "#", ":", ";", ",", ".", "=", "é",
	"func f() {\n\treturn\n}\n", "if x {\n", "type T struct {\n\tA int\n}\n",
	"def g(a):\n    pass\n", "class A:\n    x = 1\n", "    return 1\n",
	"function h() {\n  return 1;\n}\n", "class B {\n  m(): void {}\n}\n", "interface I { a: string }\n",
}

// incrEdit is one replacement: bytes [start, end) of the text by text.
type incrEdit struct {
	start, end int
	text       string
}

func applyIncrEdit(text []byte, e incrEdit) []byte {
	out := make([]byte, 0, len(text)-(e.end-e.start)+len(e.text))
	out = append(out, text[:e.start]...)
	out = append(out, e.text...)
	return append(out, text[e.end:]...)
}

// randomEdit picks a replacement in text from r: mostly small ones, some
// pastes of a piece of the text itself.
func randomEdit(r *rand.Rand, text []byte) incrEdit {
	start := r.IntN(len(text) + 1)
	end := start + min(r.IntN(12), len(text)-start)
	if r.IntN(10) == 0 {
		end = start + min(r.IntN(200), len(text)-start)
	}
	ins := incrSnippets[r.IntN(len(incrSnippets))]
	if r.IntN(6) == 0 && len(text) > 0 {
		a := r.IntN(len(text))
		ins = string(text[a : a+min(r.IntN(80), len(text)-a)])
	}
	return incrEdit{start, end, ins}
}

// validEdit picks a replacement in text from r that keeps a valid
// generated source valid (mostly): a letter of a word changed, a comment
// line or a blank line inserted at the start of a line.
func validEdit(r *rand.Rand, text []byte, path string) incrEdit {
	switch r.IntN(3) {
	case 0:
		// The second letter of a local name (no keyword can result).
		words := [][]byte{[]byte("parts"), []byte("count"), []byte("items"), []byte("raw")}
		w := words[r.IntN(len(words))]
		if n := bytes.Count(text, w); n > 0 {
			k, i := r.IntN(n), 0
			for ; k >= 0; k-- {
				i += bytes.Index(text[i:], w) + 1
			}
			return incrEdit{i, i + 1, string(rune('a' + r.IntN(26)))}
		}
	case 1:
		comment := "// note\n"
		if LanguageFor(path).Name == "python" {
			comment = "# note\n"
		}
		at := lineStart(r, text)
		return incrEdit{at, at, comment}
	}
	at := lineStart(r, text)
	return incrEdit{at, at, "\n"}
}

// lineStart returns the offset of a random line start of text.
func lineStart(r *rand.Rand, text []byte) int {
	for range 100 {
		i := r.IntN(len(text) + 1)
		if i == 0 || text[i-1] == '\n' {
			return i
		}
	}
	return 0
}

// checkLikeFresh checks that every tree-sitter result over text (block ops
// on every line, document symbols, folding ranges, and the syntax tree
// itself) equals what a fresh, whole parse gives. blocksFirst decides
// whether a block op or the symbols cause the (incremental) parse.
func checkLikeFresh(t *testing.T, path string, text []byte, blocksFirst bool) {
	t.Helper()
	ctx := context.Background()
	lang := LanguageFor(path)
	fresh, err := parseFresh(ctx, lang, text)
	if err != nil {
		t.Fatal(err)
	}
	lines := countLines(text) + 1
	blocks := func() []string {
		var out []string
		for l := 1; l <= lines; l++ {
			s, e, ok := DefaultResolver.BlockRange(path, string(text), l)
			out = append(out, fmt.Sprint(s, e, ok))
		}
		return out
	}
	var gotBlocks []string
	if blocksFirst {
		gotBlocks = blocks()
	}
	syms, err := DocumentSymbols(ctx, path, text)
	if err != nil {
		t.Fatal(err)
	}
	folds, err := FoldingRanges(ctx, path, text)
	if err != nil {
		t.Fatal(err)
	}
	if !blocksFirst {
		gotBlocks = blocks()
	}
	var wantBlocks []string
	for l := 1; l <= lines; l++ {
		s, e, ok := freshBlock(fresh, text, l)
		wantBlocks = append(wantBlocks, fmt.Sprint(s, e, ok))
	}
	if !reflect.DeepEqual(gotBlocks, wantBlocks) {
		t.Fatalf("%s: block ops differ from a fresh parse of %q:\n got %v\nwant %v", path, text, gotBlocks, wantBlocks)
	}
	if want := documentSymbols(fresh, text); !reflect.DeepEqual(syms, want) {
		t.Fatalf("%s: symbols differ from a fresh parse of %q:\n got %+v\nwant %+v", path, text, syms, want)
	}
	if want := foldingRanges(fresh, text); !reflect.DeepEqual(folds, want) {
		t.Fatalf("%s: folding ranges differ from a fresh parse of %q:\n got %+v\nwant %+v", path, text, folds, want)
	}
	if full := defaultCache.entry(lang, text).full.Load(); full != nil && !reflect.DeepEqual(full.nodes, fresh.nodes) {
		t.Fatalf("%s: the syntax tree differs from a fresh parse of %q", path, text)
	}
}

// freshBlock is blockRange over a given tree.
func freshBlock(t *tree, text []byte, line int) (int, int, bool) {
	row, col, ok := blockStart(text, line)
	if !ok {
		return 0, 0, false
	}
	i, ok := t.blockAt(row, col)
	if !ok {
		return 0, 0, false
	}
	return int(t.nodes[i].StartRow) + 1, t.lastRow(i) + 1, true
}

// runIncremental opens text as a document, applies edits in groups (each
// group is one didChange: its edits, then a check against a fresh parse),
// and closes it.
func runIncremental(t *testing.T, path string, text []byte, groups [][]incrEdit, seed uint64) {
	t.Helper()
	key := fmt.Sprintf("test://%s/%d", path, seed)
	defaultCache.purge() // no tree from another history of the same texts
	OpenDocument(key, path, text)
	defer CloseDocument(key)
	checkLikeFresh(t, path, text, seed%2 == 0)
	first := text
	for gi, g := range groups {
		for _, e := range g {
			next := applyIncrEdit(text, e)
			EditDocument(key, e.start, e.end, next)
			text = next
		}
		checkLikeFresh(t, path, text, (seed+uint64(gi))%2 == 1)
	}
	if len(groups) > 0 {
		// A text the document no longer holds is parsed on its own.
		checkLikeFresh(t, path, first, seed%2 == 1)
	}
}

// TestIncrementalLikeFresh: after random edit sequences, block ops,
// document symbols, folding ranges and the tree itself are those of a
// fresh parse; when the edits keep the text valid, the parses did reuse
// the document's tree (a text with syntax errors is parsed whole).
func TestIncrementalLikeFresh(t *testing.T) {
	sources := map[string]int{"go": 120, "python": 120, "typescript": 120}
	rounds := 12
	if testing.Short() {
		rounds = 4
	}
	for _, l := range benchLangs {
		path, base := genSource(l, sources[l])
		for seed := uint64(1); seed <= uint64(rounds); seed++ {
			r := rand.New(rand.NewPCG(seed, 16))
			text := base
			var groups [][]incrEdit
			valid := seed%2 == 1 // else random edits, which soon leave syntax errors
			for range 15 {
				var g []incrEdit
				for range 1 + r.IntN(3) {
					e := randomEdit(r, text)
					if valid {
						e = validEdit(r, text, path)
					}
					text = applyIncrEdit(text, e)
					g = append(g, e)
				}
				groups = append(groups, g)
			}
			before := defaultCache.docs.reparses.Load()
			runIncremental(t, path, base, groups, seed)
			if n := defaultCache.docs.reparses.Load() - before; valid && n < int64(len(groups))/4 {
				t.Errorf("%s seed %d: %d of %d parses reused the document's tree", path, seed, n, len(groups))
			}
		}
	}
}

// TestEditDocumentRefusesBadOffsets: offsets that do not describe the
// change drop the tree (the next parse is whole and still right) instead
// of corrupting it.
func TestEditDocumentRefusesBadOffsets(t *testing.T) {
	path, text := "bad.go", []byte("package p\n\nfunc a() {}\n\nfunc b() {}\n")
	OpenDocument("test://bad", path, text)
	defer CloseDocument("test://bad")
	checkLikeFresh(t, path, text, true)
	next := []byte("package p\n\nfunc a() {}\n\nfunc bb() {}\n")
	for _, c := range [][2]int{{-1, 3}, {5, 2}, {0, 1000}, {0, 0}, {30, 30}} {
		EditDocument("test://bad", c[0], c[1], next)
		checkLikeFresh(t, path, next, false)
		text, next = next, text
	}
	EditDocument("test://unknown", 0, 0, next) // ignored
}

// TestDocumentLimits: closed documents free their trees; trees kept stay
// within the limits however many documents are open.
func TestDocumentLimits(t *testing.T) {
	ds := &defaultCache.docs
	for i := range maxDocTrees + 5 {
		key := fmt.Sprintf("test://lim/%d", i)
		text := []byte(fmt.Sprintf("package p\n\nfunc f%d() {}\n", i))
		OpenDocument(key, "lim.go", text)
		if _, err := DocumentSymbols(context.Background(), "lim.go", text); err != nil {
			t.Fatal(err)
		}
	}
	ds.mu.Lock()
	n := len(ds.trees)
	ds.mu.Unlock()
	if n > maxDocTrees {
		t.Errorf("%d trees kept, limit %d", n, maxDocTrees)
	}
	for i := range maxDocTrees + 5 {
		CloseDocument(fmt.Sprintf("test://lim/%d", i))
	}
	ds.mu.Lock()
	n, docs := len(ds.trees), len(ds.docs)
	ds.mu.Unlock()
	if n != 0 || docs != 0 {
		t.Errorf("after closing all: %d trees, %d documents", n, docs)
	}
}

// incrPaths are the languages FuzzIncremental edits. Not Lua: its fresh
// parses of some invalid texts differ from one parse to the next (")(\""
// alternates between two trees even with a new parser each time), so
// there is no one fresh result to compare with.
var incrPaths = []string{"f.go", "f.py", "f.ts", "f.rb", "f.yaml"}

// FuzzIncremental: after any edits, the results over an open document's
// incrementally reparsed tree are those of a fresh parse. ops is read in
// fours: a start offset (two bytes), a deletion length, and a snippet to
// insert whose high bit ends the didChange (a check follows).
func FuzzIncremental(f *testing.F) {
	f.Add("package p\n\nfunc a() {\n\tif x {\n\t}\n}\n", []byte{12, 0, 0, 9, 30, 0, 2, 0x80 | 1}, uint8(0))
	f.Add("def f():\n    '''doc'''\n    return 1\n", []byte{9, 0, 4, 0x80 | 30, 0, 0, 0, 1}, uint8(1))
	f.Add("class A {\n  m() { return (\n    1); }\n}\n", []byte{20, 0, 3, 0x80 | 3, 1, 0, 0, 0x80 | 2}, uint8(2))
	f.Fuzz(func(t *testing.T, text string, ops []byte, which uint8) {
		if len(text) > 4096 || len(ops) > 64 {
			return
		}
		path := incrPaths[int(which)%len(incrPaths)]
		cur := []byte(text)
		var groups [][]incrEdit
		var g []incrEdit
		for i := 0; i+4 <= len(ops); i += 4 {
			start := (int(ops[i]) | int(ops[i+1])<<8) % (len(cur) + 1)
			end := start + min(int(ops[i+2])%16, len(cur)-start)
			e := incrEdit{start, end, incrSnippets[int(ops[i+3]&0x7f)%len(incrSnippets)]}
			cur = applyIncrEdit(cur, e)
			g = append(g, e)
			if ops[i+3]&0x80 != 0 || i+8 > len(ops) {
				groups = append(groups, g)
				g = nil
			}
		}
		runIncremental(t, path, []byte(text), groups, uint64(which))
	})
}

// TestDocumentConcurrency: one goroutine edits an open document (as the
// language server does, in order) while others ask for results on the
// texts it produced; every result equals a fresh parse's. Run with -race.
func TestDocumentConcurrency(t *testing.T) {
	path, text := genSource("go", 300)
	const key = "test://concurrent.go"
	OpenDocument(key, path, text)
	defer CloseDocument(key)
	texts := make(chan []byte, 64)
	done := make(chan struct{})
	errs := make(chan error, 4)
	for range 3 {
		go func() {
			for text := range texts {
				ctx := context.Background()
				fresh, err := parseFresh(ctx, LanguageFor(path), text)
				if err != nil {
					errs <- err
					return
				}
				syms, err := DocumentSymbols(ctx, path, text)
				if err != nil {
					errs <- err
					return
				}
				if want := documentSymbols(fresh, text); !reflect.DeepEqual(syms, want) {
					errs <- fmt.Errorf("symbols differ from a fresh parse")
					return
				}
				line := 1 + len(text)%countLines(text)
				s, e, ok := DefaultResolver.BlockRange(path, string(text), line)
				if ws, we, wok := freshBlock(fresh, text, line); s != ws || e != we || ok != wok {
					errs <- fmt.Errorf("block at %d: %d-%d %v, want %d-%d %v", line, s, e, ok, ws, we, wok)
					return
				}
				if _, err := FoldingRanges(ctx, path, text); err != nil {
					errs <- err
					return
				}
			}
			done <- struct{}{}
		}()
	}
	r := rand.New(rand.NewPCG(7, 16))
	for range 60 {
		e := validEdit(r, text, path)
		if r.IntN(5) == 0 {
			e = randomEdit(r, text)
		}
		text = applyIncrEdit(text, e)
		EditDocument(key, e.start, e.end, text)
		texts <- text
	}
	close(texts)
	for range 3 {
		select {
		case err := <-errs:
			t.Fatal(err)
		case <-done:
		}
	}
}

// TestOpenDocumentOwnsItsEntries: once an open document keeps a tree, the
// parses of its current texts are cached in entries it owns (no hash, no
// copy of the text), not in the content-keyed cache; they give a fresh
// parse's results (TestIncrementalLikeFresh) and a text no longer current
// is parsed on its own.
func TestOpenDocumentOwnsItsEntries(t *testing.T) {
	defaultCache.purge()
	path, text := genSource("go", 200)
	const key = "test://owns.go"
	OpenDocument(key, path, text)
	defer CloseDocument(key)
	ctx := context.Background()
	if _, err := DocumentSymbols(ctx, path, text); err != nil { // whole parse: the document keeps its tree
		t.Fatal(err)
	}
	before := defaultCache.len()
	r := rand.New(rand.NewPCG(3, 16))
	var olds [][]byte
	for range 5 {
		e := validEdit(r, text, path)
		next := applyIncrEdit(text, e)
		EditDocument(key, e.start, e.end, next)
		olds = append(olds, text)
		text = next
		checkLikeFresh(t, path, text, r.IntN(2) == 0)
		if e := defaultCache.entry(LanguageFor(path), text); e.owner == nil || &e.text[0] != &text[0] {
			t.Fatal("the current text's entry is not the document's own")
		}
	}
	if n := defaultCache.len(); n != before {
		t.Errorf("the content-keyed cache went from %d to %d entries for an open document's texts", before, n)
	}
	for _, old := range olds {
		if e := defaultCache.entry(LanguageFor(path), old); e.owner != nil {
			t.Fatal("an old text got the document's entry")
		}
		checkLikeFresh(t, path, old, false)
	}
}

// openKept opens text as the document key (closed when the test ends) and
// returns its symbols once the document keeps a tree: the first call
// parses whole, the second's symbols are those the next change reuses.
func openKept(t *testing.T, key, path string, text []byte) []Symbol {
	t.Helper()
	defaultCache.purge()
	OpenDocument(key, path, text)
	t.Cleanup(func() { CloseDocument(key) })
	ctx := context.Background()
	DocumentSymbols(ctx, path, text)
	syms, err := DocumentSymbols(ctx, path, text)
	if err != nil {
		t.Fatal(err)
	}
	return syms
}

// TestPythonBlockStartReuses: a letter typed before the first token of a
// block's first statement reparses by reusing the rest of the file (the
// patched runtime, see package reparser): the symbols of the last class
// are the previous call's, and the results equal a fresh parse's.
func TestPythonBlockStartReuses(t *testing.T) {
	ctx := context.Background()
	path, text := genSource("python", 600)
	const key = "test://blockstart.py"
	before := openKept(t, key, path, text)
	if len(before) < 3 {
		t.Fatalf("%d symbols", len(before))
	}
	at := bytes.Index(text, []byte("parts = ")) // the first statement of label's body
	if at < 0 {
		t.Fatal("no block start in the generated source")
	}
	next := append(append(append([]byte{}, text[:at]...), 'x'), text[at:]...)
	EditDocument(key, at, at, next)
	after, err := DocumentSymbols(ctx, path, next)
	if err != nil {
		t.Fatal(err)
	}
	last := len(after) - 1
	if len(after) != len(before) || len(after[last].Children) == 0 {
		t.Fatalf("%d symbols, then %d", len(before), len(after))
	}
	// Moved (the class starts one byte later), so copied, but from the
	// previous call's symbols: the name is the same string, not one made
	// again from the text.
	if after[last].Name != before[last].Name || unsafe.StringData(after[last].Name) != unsafe.StringData(before[last].Name) {
		t.Error("the last class's symbols were not reused: the reparse after a change at a block's start reused nothing")
	}
	checkLikeFresh(t, path, next, false)
}

// TestSymbolsReuseUnchangedTops: after a change, the symbols of the
// top-level declarations before it are the previous call's (the same
// memory), those after it are moved copies equal to a fresh parse's, and
// those of the changed declaration are new.
func TestSymbolsReuseUnchangedTops(t *testing.T) {
	ctx := context.Background()
	path, text := genSource("go", 400)
	const key = "test://reuse.go"
	before := openKept(t, key, path, text)
	for round := range 3 {
		// Type a letter into the middle type's first field name.
		mid := before[len(before)/2]
		if len(mid.Children) == 0 {
			t.Fatalf("round %d: the middle symbol %q has no fields", round, mid.Name)
		}
		at := mid.Children[0].Selection.Start
		next := append(append(append([]byte{}, text[:at]...), 'x'), text[at:]...)
		EditDocument(key, at, at, next)
		text = next
		after, err := DocumentSymbols(ctx, path, text)
		if err != nil {
			t.Fatal(err)
		}
		if len(after) != len(before) {
			t.Fatalf("round %d: %d symbols, then %d", round, len(before), len(after))
		}
		first := 0
		for first < len(before) && len(before[first].Children) == 0 {
			first++
		}
		if first == len(before) || &after[first].Children[0] != &before[first].Children[0] {
			t.Errorf("round %d: the symbols of the first declaration were not reused", round)
		}
		k := len(before) / 2
		if &after[k].Children[0] == &before[k].Children[0] || after[k].Children[0].Name != "x"+before[k].Children[0].Name {
			t.Errorf("round %d: the changed declaration's field is %q (was %q)", round, after[k].Children[0].Name, before[k].Children[0].Name)
		}
		last := len(after) - 1
		for last > k && len(after[last].Children) == 0 {
			last--
		}
		if last > k && after[last].Range.Start != before[last].Range.Start+1 {
			t.Errorf("round %d: the last declaration starts at %d, was %d (one byte was typed before it)", round, after[last].Range.Start, before[last].Range.Start)
		}
		// Moved, so copied, but from the previous call's symbols: the
		// same string, not one made again from the text.
		if last > k && unsafe.StringData(after[last].Children[0].Name) != unsafe.StringData(before[last].Children[0].Name) {
			t.Errorf("round %d: the symbols of the last declaration were made again, not moved", round)
		}
		fresh, err := parseFresh(ctx, LanguageFor(path), text)
		if err != nil {
			t.Fatal(err)
		}
		if want := documentSymbols(fresh, text); !reflect.DeepEqual(after, want) {
			t.Fatalf("round %d: symbols differ from a fresh parse", round)
		}
		before = after
	}
}

// TestSortTops: sortTops gives tops sorted by id, whatever mix of reused
// tops (in their previous order, with prev set) and new ones it gets, bad
// prev values included.
func TestSortTops(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for round := range 200 {
		var prevTops []top
		for range r.IntN(50) {
			prevTops = append(prevTops, top{id: uintptr(r.Uint64N(1000)*2 + 2)})
		}
		slices.SortFunc(prevTops, func(a, b top) int { return cmp.Compare(a.id, b.id) })
		prevTops = slices.CompactFunc(prevTops, func(a, b top) bool { return a.id == b.id })
		var tops []top
		for k, p := range prevTops { // the reused ones, then in some tree order
			if r.IntN(4) > 0 {
				tops = append(tops, top{id: p.id, prev: uint32(k) + 1})
			}
		}
		r.Shuffle(len(tops), func(i, j int) { tops[i], tops[j] = tops[j], tops[i] })
		for range r.IntN(5) {
			at := r.IntN(len(tops) + 1)
			nt := top{id: uintptr(r.Uint64N(1000)*2 + 1)} // odd: new
			if r.IntN(5) == 0 && len(prevTops) > 0 {
				nt.prev = uint32(r.IntN(len(prevTops)) + 1) // a wrong prev
			}
			tops = slices.Insert(tops, at, nt)
		}
		want := slices.Clone(tops)
		slices.SortStableFunc(want, func(a, b top) int { return cmp.Compare(a.id, b.id) })
		sortTops(tops, prevTops)
		if !slices.EqualFunc(tops, want, func(a, b top) bool { return a.id == b.id }) {
			t.Fatalf("round %d: got %v, want %v", round, tops, want)
		}
	}
}

// TestSymbolsWalkLikeFresh: the symbols walk (trees.c), which takes
// the positions of declarations and of whole runs of them it has seen
// before from its last walk, gives a fresh parse's symbols in large
// documents (deep repetitions) after valid edits that move rows, and in a
// document of several declarations a line, where a change moves the next
// ones along their row; and lines removed whole.
func TestSymbolsWalkLikeFresh(t *testing.T) {
	ctx := context.Background()
	rounds := 20
	if testing.Short() {
		rounds = 6
	}
	check := func(path string, text []byte, edits func(r *rand.Rand, text []byte) incrEdit) {
		t.Helper()
		key := "test://walk/" + path
		openKept(t, key, path, text)
		r := rand.New(rand.NewPCG(11, uint64(len(text))))
		for round := range rounds {
			for range 1 + r.IntN(3) {
				e := edits(r, text)
				next := applyIncrEdit(text, e)
				EditDocument(key, e.start, e.end, next)
				text = next
			}
			got, err := DocumentSymbols(ctx, path, text)
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := parseFresh(ctx, LanguageFor(path), text)
			if err != nil {
				t.Fatal(err)
			}
			if want := documentSymbols(fresh, text); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s round %d: symbols differ from a fresh parse", path, round)
			}
		}
	}
	for _, l := range benchLangs {
		path, text := genSource(l, 1500)
		check(path, text, func(r *rand.Rand, text []byte) incrEdit { return validEdit(r, text, path) })
	}
	var b strings.Builder
	b.WriteString("package p\n\n")
	for i := range 300 {
		fmt.Fprintf(&b, "type A%d int; type B%d struct{ x int }; var c%d = %d\n", i, i, i, i)
	}
	check("row.go", []byte(b.String()), func(r *rand.Rand, text []byte) incrEdit {
		at := lineStart(r, text)
		switch r.IntN(3) {
		case 0: // a letter in the line's first name: its other declarations move along the row
			if i := bytes.Index(text[at:], []byte("type A")); i >= 0 {
				return incrEdit{at + i + 6, at + i + 6, "z"}
			}
		case 1: // the line removed
			if end := bytes.IndexByte(text[at:], '\n'); at > 11 && end >= 0 {
				return incrEdit{at, at + end + 1, ""}
			}
		}
		return incrEdit{at, at, "\n"}
	})
}

// rootChildren returns the root's named children of a flattened tree, in
// order, without their fields and the reuse flag.
func rootChildren(nodes []node) []node {
	var out []node
	for i := uint32(1); i < uint32(len(nodes)); i = nodes[i].End {
		n := nodes[i]
		n.Field, n.End, n.Flags = 0, 0, n.Flags&^flagReused
		out = append(out, n)
	}
	return out
}

// TestSkeletonWalkLikeCursor: after each reparse, the symbols walk
// (flattenSkeleton, reusing its last walk) lists the root's named children
// exactly as the cursor walk does (flattenMarked), comments and other
// leaves included, and it does place declarations, and whole runs of
// them, from its last walk.
func TestSkeletonWalkLikeCursor(t *testing.T) {
	ctx := context.Background()
	type source struct {
		path string
		text []byte
	}
	var sources []source
	for _, l := range benchLangs {
		path, text := genSource(l, 800)
		sources = append(sources, source{path, text})
	}
	// Short comments among the declarations are inline leaves (no subtree
	// id), which runs placed whole must keep.
	for _, f := range []struct{ path, head, line string }{
		{"leaves.go", "package p\n\n", "// c%d\nvar items%d = %d // c\n"},
		{"leaves.py", "", "# c%d\nitems%d = %d  # c\n"},
		{"leaves.ts", "", "// c%d\nlet items%d = %d; // c\n"},
	} {
		var b strings.Builder
		b.WriteString(f.head)
		for i := range 400 {
			fmt.Fprintf(&b, f.line, i, i, i)
		}
		sources = append(sources, source{f.path, []byte(b.String())})
	}
	for _, src := range sources {
		path, text := src.path, src.text
		lang := LanguageFor(path)
		st, err := parseWith(ctx, lang, nil, text)
		if err != nil {
			t.Fatal(err)
		}
		wb := newWalkBufs()
		if _, _, err := flattenSkeleton(st, wb, false); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(5, 5))
		reusedTops, runs := 0, 0
		for round := range 12 {
			e := validEdit(r, text, path)
			next := applyIncrEdit(text, e)
			te, ok := describeEdit(text, e.start, e.end, next)
			if !ok {
				t.Fatal("bad edit")
			}
			old := st.Copy()
			editTree(old, te)
			st2, err := parseWith(ctx, lang, old, next)
			old.Close()
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := flattenSkeleton(st2, wb, true) // st, the last walk's tree, is still open
			if err != nil {
				t.Fatal(err)
			}
			gotRoot := rootChildren(got)
			n, k := wb.reused()
			reusedTops, runs = reusedTops+n, runs+k
			want, _, err := flattenMarked(st2, nil)
			if err != nil {
				t.Fatal(err)
			}
			if w := rootChildren(want); !reflect.DeepEqual(gotRoot, w) {
				t.Fatalf("%s round %d: the walk's root children differ from the cursor's:\n got %d %+v\nwant %d %+v", path, round, len(gotRoot), gotRoot[:min(5, len(gotRoot))], len(w), w[:min(5, len(w))])
			}
			st.Close()
			st, text = st2, next
		}
		st.Close()
		wb.free()
		if reusedTops == 0 || runs == 0 {
			t.Errorf("%s: the walks placed %d declarations and %d runs from their last walk", path, reusedTops, runs)
		}
		t.Logf("%s: %d declarations and %d runs placed from the last walk in 12 changes", path, reusedTops, runs)
	}
	if n := symbolsRetried.Load(); n != 0 {
		t.Errorf("%d symbols calls found a reused declaration without symbols", n)
	}
}
