package lsp

import (
	"bytes"
	"slices"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/internal/lspmap"
)

// Review: the changes that did not come from this editor (an agent's call
// forwarded through the hub, a change another hashls process made) are
// marked in the files they changed, hunk by hunk, until the person keeps or
// undoes each one. This file is the model; review_server.go wires it to
// the documents, the tool runs and the wire.
//
// A fileReview holds a file's current text (an open document's, or the
// disk's for a closed file) and its unreviewed hunks. A hunk is a byte span
// [s, e) of the current text made of whole lines, and the text old it
// replaced: the text as the person last accepted it (the base) is the
// current text with every hunk's span replaced by its old text. Every
// change of the text goes through apply:
//
//   - a change by an agent (attr set) becomes a hunk, merged with the hunks
//     it overlaps or touches;
//   - a change by the person (attr nil) that overlaps a hunk is absorbed
//     by it (the hunk's new side changes, its attribution stays); one
//     outside every hunk changes the base as well, so it never shows as a
//     hunk, and moves the hunks after it.
//
// After a merge the hunk is trimmed to the lines that differ; a hunk whose
// new side equals its old side is dropped (the person typed it back).
// Keeping a hunk drops it (the base takes its new side); undoing one is a
// change by the person that puts its old text back (undo).

// reviewAttr is who made a hunk's change.
type reviewAttr struct {
	Agent     string
	Transport string
	Turn      string
	Tool      string
	Call      string
}

// name is how the review shows who made a change: the agent's name, else
// the transport it came through.
func (a reviewAttr) name() string {
	if a.Agent != "" {
		return a.Agent
	}
	if a.Transport == "lsp" {
		return "another editor"
	}
	if a.Transport != "" {
		return a.Transport
	}
	return "another process"
}

// maxHunkAttrs bounds the attributions one merged hunk keeps (the newest).
const maxHunkAttrs = 8

// rhunk is one unreviewed hunk: current[s:e] (whole lines) replaced old.
type rhunk struct {
	id    int64
	s, e  int
	old   []byte
	attrs []reviewAttr
}

// fileReview is one file's text and unreviewed hunks, sorted by s, never
// overlapping.
type fileReview struct {
	cur   []byte
	hunks []*rhunk
	m     *lspmap.Mapper // cur's line index, built on demand
	ids   *int64         // the server's hunk id counter
}

func newFileReview(text []byte, ids *int64) *fileReview {
	return &fileReview{cur: text, ids: ids}
}

func (f *fileReview) nextID() int64 {
	*f.ids++
	return *f.ids
}

func (f *fileReview) mapper() *lspmap.Mapper {
	if f.m == nil {
		f.m = lspmap.New(f.cur)
	}
	return f.m
}

// text2 is a text held in two parts, a then b, read where they lie: the
// review's text part-way through a change (change), the old text before
// the next span and the new text from the last span applied on, so that a
// change of many spans copies neither.
type text2 struct{ a, b []byte }

func (t text2) len() int { return len(t.a) + len(t.b) }

func (t text2) at(i int) byte {
	if i < len(t.a) {
		return t.a[i]
	}
	return t.b[i-len(t.a)]
}

// slice is t[s:e], copied only when it spans both parts.
func (t text2) slice(s, e int) []byte {
	switch {
	case e <= len(t.a):
		return t.a[s:e]
	case s >= len(t.a):
		return t.b[s-len(t.a) : e-len(t.a)]
	}
	return append(append(make([]byte, 0, e-s), t.a[s:]...), t.b[:e-len(t.a)]...)
}

// lineStartAt is the start of the line of t holding byte offset off. Line
// breaks are "\n", "\r\n" and a lone "\r", as the LSP's (internal/lspmap);
// the scan is local, so that a keystroke costs the length of its line.
func lineStartAt(t text2, off int) int {
	for i := off - 1; i >= 0; i-- {
		switch t.at(i) {
		case '\n':
			return i + 1
		case '\r':
			if i+1 >= t.len() || t.at(i+1) != '\n' {
				return i + 1
			}
		}
	}
	return 0
}

// nextLineStart is the start of the line of t after the one holding off
// (the end of the text on the last line).
func nextLineStart(t text2, off int) int {
	for i := off; i < t.len(); i++ {
		switch t.at(i) {
		case '\n':
			return i + 1
		case '\r':
			if i+1 < t.len() && t.at(i+1) == '\n' {
				return i + 2
			}
			return i + 1
		}
	}
	return t.len()
}

// atLineStart reports whether off starts a line of t.
func atLineStart(t text2, off int) bool { return lineStartAt(t, off) == off }

// endsWithBreak reports whether b ends with a line break.
func endsWithBreak(b []byte) bool {
	return len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r')
}

// region is the span of whole lines of t that the replacement of [s0, e0)
// by repl changes.
func region(t text2, s0, e0 int, repl []byte) (rs, re int) {
	rs = lineStartAt(t, s0)
	// The line holding e0 keeps its content when e0 starts it and the text
	// put before it ends a line (or nothing is put there and s0 starts a
	// line too): then the change ends at e0.
	if atLineStart(t, e0) && (len(repl) == 0 && s0 == rs || endsWithBreak(repl)) {
		return rs, e0
	}
	if e0 == t.len() {
		return rs, e0
	}
	return rs, nextLineStart(t, e0)
}

// overlaps reports whether hunk h takes part in a change of the lines
// [rs, re): an agent's change merges with the hunks it overlaps or
// touches; the person's only with those it overlaps.
func (h *rhunk) overlaps(rs, re, size int, agent bool) bool {
	if agent {
		return h.s <= re && rs <= h.e
	}
	if h.s == h.e { // a deletion: overlapped when the change spans its place
		// (or changes the last line, after which it stands)
		return rs < h.s && h.s < re || h.s == size && re == size
	}
	if rs == re { // an insertion of whole lines
		return h.s < rs && rs < h.e
	}
	return h.s < re && rs < h.e
}

// apply follows, in the hunks, the replacement of cur[s0:e0] by repl,
// which makes next: a change by the agent attr, or by the person when attr
// is nil.
func (f *fileReview) apply(cur, next text2, s0, e0 int, repl []byte, attr *reviewAttr) {
	if s0 < 0 || e0 > cur.len() || s0 > e0 {
		return
	}
	rs, re := region(cur, s0, e0, repl)
	delta := len(repl) - (e0 - s0)
	var merge, rest []*rhunk
	for _, h := range f.hunks {
		if h.overlaps(rs, re, cur.len(), attr != nil) {
			merge = append(merge, h)
		} else {
			rest = append(rest, h)
		}
	}
	if attr == nil && len(merge) == 0 {
		for _, h := range f.hunks {
			if h.s >= re {
				h.s += delta
				h.e += delta
			}
		}
		return
	}
	us, ue := rs, re
	for _, h := range merge {
		us, ue = min(us, h.s), max(ue, h.e)
	}
	var old []byte
	pos := us
	var attrs []reviewAttr
	for _, h := range merge {
		old = append(append(old, cur.slice(pos, h.s)...), h.old...)
		pos = h.e
		attrs = append(attrs, h.attrs...)
	}
	old = append(old, cur.slice(pos, ue)...)
	if attr != nil {
		attrs = append(attrs, *attr)
	}
	for _, h := range rest {
		if h.s >= ue {
			h.s += delta
			h.e += delta
		}
	}
	nh := &rhunk{s: us, e: ue + delta, old: old, attrs: dedupeAttrs(attrs)}
	if len(merge) == 1 && attr == nil {
		nh.id = merge[0].id // the person edited inside one hunk: it is still that hunk
	} else {
		nh.id = f.nextID()
	}
	if trimHunk(nh, next) {
		rest = append(rest, nh)
	}
	slices.SortFunc(rest, func(a, b *rhunk) int {
		if a.s != b.s {
			return a.s - b.s
		}
		return a.e - b.e // a deletion before the lines put in at its place
	})
	f.hunks = rest
}

// dedupeAttrs keeps each attribution once (the newest place), at most
// maxHunkAttrs of them.
func dedupeAttrs(attrs []reviewAttr) []reviewAttr {
	var out []reviewAttr
	for i := len(attrs) - 1; i >= 0 && len(out) < maxHunkAttrs; i-- {
		if !slices.Contains(out, attrs[i]) {
			out = append(out, attrs[i])
		}
	}
	slices.Reverse(out)
	return out
}

// trimHunk shrinks h to the lines where its old and new sides differ and
// reports whether any differ.
func trimHunk(h *rhunk, cur text2) bool {
	nw := cur.slice(h.s, h.e)
	old := h.old
	// Common leading lines.
	for {
		a, b := bytes.IndexByte(old, '\n'), bytes.IndexByte(nw, '\n')
		if a < 0 || b < 0 || a != b || !bytes.Equal(old[:a+1], nw[:b+1]) {
			break
		}
		old, nw = old[a+1:], nw[b+1:]
		h.s += b + 1
	}
	// Common trailing lines (each ends with its break).
	for len(old) > 0 && len(nw) > 0 && endsWithNL(old) && endsWithNL(nw) {
		a := bytes.LastIndexByte(old[:len(old)-1], '\n') + 1
		b := bytes.LastIndexByte(nw[:len(nw)-1], '\n') + 1
		if !bytes.Equal(old[a:], nw[b:]) {
			break
		}
		old, nw = old[:a], nw[:b]
	}
	h.e = h.s + len(nw)
	h.old = bytes.Clone(old)
	return !bytes.Equal(old, nw)
}

func endsWithNL(b []byte) bool { return len(b) > 0 && b[len(b)-1] == '\n' }

// sync brings cur to text as the person's change (a line diff: each run of
// changed lines is one change).
func (f *fileReview) sync(text []byte) {
	if bytes.Equal(f.cur, text) {
		return
	}
	if len(f.hunks) == 0 {
		f.cur, f.m = text, nil
		return
	}
	f.change(text, nil)
}

// agentChange brings cur to text as attr's change.
func (f *fileReview) agentChange(text []byte, attr reviewAttr) { f.change(text, &attr) }

// change applies the line diff of cur → text, run by run from the last, so
// that each run's offsets stay valid.
func (f *fileReview) change(text []byte, attr *reviewAttr) {
	old := f.cur
	first := *f.ids
	// The line diff runs on the lines between the common prefix and
	// suffix only (a keystroke in a long file diffs one line).
	p, e, _ := minimalEdit(old, text)
	ls := bytes.LastIndexByte(old[:p], '\n') + 1
	le := len(old)
	if i := bytes.IndexByte(old[e:], '\n'); i >= 0 {
		le = e + i + 1
	}
	te := len(text) - (len(old) - le)
	spans := edit.ChangedSpans(old[ls:le], text[ls:te])
	if !rebuilds(old[ls:le], text[ls:te], spans) {
		spans = []edit.Span{{OldStart: p - ls, OldEnd: e - ls, NewStart: p - ls, NewEnd: len(text) - (len(old) - e) - ls}}
	}
	for i := range spans {
		spans[i].OldStart += ls
		spans[i].OldEnd += ls
		spans[i].NewStart += ls
		spans[i].NewEnd += ls
	}
	// Between two spans old and text agree, so after each span the text
	// is old up to the span and text from it on: no copy of the whole.
	cur := text2{a: old}
	for i := len(spans) - 1; i >= 0; i-- {
		sp := spans[i]
		next := text2{a: old[:sp.OldStart], b: text[sp.NewStart:]}
		f.apply(cur, next, sp.OldStart, sp.OldEnd, text[sp.NewStart:sp.NewEnd], attr)
		cur = next
	}
	f.cur, f.m = text, nil
	// The hunks made here were numbered from the last; number them in
	// the order they stand.
	id := first
	for _, h := range f.hunks {
		if h.id > first {
			id++
			h.id = id
		}
	}
}

// rebuilds reports whether spans turn old into new byte for byte, each in
// its place: between two spans (and before the first, after the last) old
// and new hold the same bytes, which change relies on.
func rebuilds(old, new []byte, spans []edit.Span) bool {
	at, nat := 0, 0
	for _, sp := range spans {
		if sp.OldStart < at || sp.OldEnd < sp.OldStart || sp.OldEnd > len(old) ||
			sp.NewStart < nat || sp.NewEnd < sp.NewStart || sp.NewEnd > len(new) ||
			!bytes.Equal(old[at:sp.OldStart], new[nat:sp.NewStart]) {
			return false
		}
		at, nat = sp.OldEnd, sp.NewEnd
	}
	return bytes.Equal(old[at:], new[nat:])
}

// keep drops the hunks pick selects (the base takes their new side) and
// returns how many.
func (f *fileReview) keep(pick func(*rhunk) bool) int {
	n := len(f.hunks)
	f.hunks = slices.DeleteFunc(f.hunks, pick)
	return n - len(f.hunks)
}

// undone returns the text with the hunks pick selects put back to their
// old text.
func (f *fileReview) undone(pick func(*rhunk) bool) ([]byte, []*rhunk) {
	var out []byte
	var picked []*rhunk
	at := 0
	for _, h := range f.hunks {
		if !pick(h) {
			continue
		}
		out = append(append(out, f.cur[at:h.s]...), h.old...)
		at = h.e
		picked = append(picked, h)
	}
	return append(out, f.cur[at:]...), picked
}

// undo puts the picked hunks back (cur becomes undone's text) and drops
// them: the person's change, made exactly.
func (f *fileReview) undo(ids []int64) {
	pick := func(h *rhunk) bool { return slices.Contains(ids, h.id) }
	text, _ := f.undone(pick)
	var rest []*rhunk
	delta := 0
	for _, h := range f.hunks {
		if pick(h) {
			delta += len(h.old) - (h.e - h.s)
			continue
		}
		h.s += delta
		h.e += delta
		rest = append(rest, h)
	}
	f.cur, f.m, f.hunks = text, nil, rest
}

// base is the text as the person last accepted it.
func (f *fileReview) base() []byte {
	text, _ := f.undone(func(*rhunk) bool { return true })
	return text
}

// hasTurn reports whether one of h's changes belongs to turn.
func (h *rhunk) hasTurn(turn string) bool {
	return slices.ContainsFunc(h.attrs, func(a reviewAttr) bool { return a.Turn == turn })
}
