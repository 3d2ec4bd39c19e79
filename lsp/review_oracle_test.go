package lsp

// The review model as it was before it read a change's text in place
// (text2): kept as the oracle the model is checked against, hunk for
// hunk, by FuzzRefReview and TestRefReviewRandom, and as the figure
// BenchmarkRefReviewAgentEdit50 that BenchmarkReviewAgentEdit50 is read
// beside.

import (
	"bytes"
	"fmt"
	"github.com/hashls/hashls/internal/benchfile"
	"slices"
	"strings"
	"testing"

	"github.com/hashls/hashls/edit"
)

// Review: the changes that did not come from this editor (an agent's call
// forwarded through the hub, a change another hashls process made) are
// marked in the files they changed, hunk by hunk, until the person keeps or
// undoes each one. This file is the model; review_server.go wires it to
// the documents, the tool runs and the wire.
//
// A refFR holds a file's current text (an open document's, or the
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

// refHunk is one unreviewed hunk: current[s:e] (whole lines) replaced old.
type refHunk struct {
	id    int64
	s, e  int
	old   []byte
	attrs []reviewAttr
}

// refFR is one file's text and unreviewed hunks, sorted by s, never
// overlapping.
type refFR struct {
	cur   []byte
	hunks []*refHunk
	ids   *int64 // the server's hunk id counter
}

func newRefFR(text []byte, ids *int64) *refFR {
	return &refFR{cur: text, ids: ids}
}

func (f *refFR) nextID() int64 {
	*f.ids++
	return *f.ids
}

// lineStartAt is the start of the line holding byte offset off. Line
// breaks are "\n", "\r\n" and a lone "\r", as the LSP's (internal/lspmap);
// the scan is local, so that a keystroke costs the length of its line.
func (f *refFR) lineStartAt(off int) int {
	for i := off - 1; i >= 0; i-- {
		switch f.cur[i] {
		case '\n':
			return i + 1
		case '\r':
			if i+1 >= len(f.cur) || f.cur[i+1] != '\n' {
				return i + 1
			}
		}
	}
	return 0
}

// nextLineStart is the start of the line after the one holding off (the
// end of the text on the last line).
func (f *refFR) nextLineStart(off int) int {
	for i := off; i < len(f.cur); i++ {
		switch f.cur[i] {
		case '\n':
			return i + 1
		case '\r':
			if i+1 < len(f.cur) && f.cur[i+1] == '\n' {
				return i + 2
			}
			return i + 1
		}
	}
	return len(f.cur)
}

// atLineStart reports whether off starts a line.
func (f *refFR) atLineStart(off int) bool { return f.lineStartAt(off) == off }

// region is the span of whole lines of the current text that the
// replacement of [s0, e0) by repl changes.
func (f *refFR) region(s0, e0 int, repl []byte) (rs, re int) {
	rs = f.lineStartAt(s0)
	// The line holding e0 keeps its content when e0 starts it and the text
	// put before it ends a line (or nothing is put there and s0 starts a
	// line too): then the change ends at e0.
	if f.atLineStart(e0) && (len(repl) == 0 && s0 == rs || endsWithBreak(repl)) {
		return rs, e0
	}
	if e0 == len(f.cur) {
		return rs, e0
	}
	return rs, f.nextLineStart(e0)
}

// overlaps reports whether hunk h takes part in a change of the lines
// [rs, re): an agent's change merges with the hunks it overlaps or
// touches; the person's only with those it overlaps.
func (h *refHunk) overlaps(rs, re, size int, agent bool) bool {
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

// apply replaces cur[s0:e0] by repl: a change by the agent attr, or by the
// person when attr is nil.
func (f *refFR) apply(s0, e0 int, repl []byte, attr *reviewAttr) {
	if s0 < 0 || e0 > len(f.cur) || s0 > e0 {
		return
	}
	rs, re := f.region(s0, e0, repl)
	delta := len(repl) - (e0 - s0)
	var merge, rest []*refHunk
	for _, h := range f.hunks {
		if h.overlaps(rs, re, len(f.cur), attr != nil) {
			merge = append(merge, h)
		} else {
			rest = append(rest, h)
		}
	}
	next := make([]byte, 0, len(f.cur)+delta)
	next = append(append(append(next, f.cur[:s0]...), repl...), f.cur[e0:]...)
	if attr == nil && len(merge) == 0 {
		for _, h := range f.hunks {
			if h.s >= re {
				h.s += delta
				h.e += delta
			}
		}
		f.cur = next
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
		old = append(append(old, f.cur[pos:h.s]...), h.old...)
		pos = h.e
		attrs = append(attrs, h.attrs...)
	}
	old = append(old, f.cur[pos:ue]...)
	if attr != nil {
		attrs = append(attrs, *attr)
	}
	for _, h := range rest {
		if h.s >= ue {
			h.s += delta
			h.e += delta
		}
	}
	f.cur = next
	nh := &refHunk{s: us, e: ue + delta, old: old, attrs: dedupeAttrs(attrs)}
	if len(merge) == 1 && attr == nil {
		nh.id = merge[0].id // the person edited inside one hunk: it is still that hunk
	} else {
		nh.id = f.nextID()
	}
	if refTrim(nh, f.cur) {
		rest = append(rest, nh)
	}
	slices.SortFunc(rest, func(a, b *refHunk) int {
		if a.s != b.s {
			return a.s - b.s
		}
		return a.e - b.e // a deletion before the lines put in at its place
	})
	f.hunks = rest
}

// refTrim shrinks h to the lines where its old and new sides differ and
// reports whether any differ.
func refTrim(h *refHunk, cur []byte) bool {
	nw := cur[h.s:h.e]
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

// sync brings cur to text as the person's change (a line diff: each run of
// changed lines is one change).
func (f *refFR) sync(text []byte) {
	if bytes.Equal(f.cur, text) {
		return
	}
	if len(f.hunks) == 0 {
		f.cur = text
		return
	}
	f.change(text, nil)
}

// agentChange brings cur to text as attr's change.
func (f *refFR) agentChange(text []byte, attr reviewAttr) { f.change(text, &attr) }

// change applies the line diff of cur → text, run by run from the last, so
// that each run's offsets stay valid.
func (f *refFR) change(text []byte, attr *reviewAttr) {
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
	if !refRebuilds(old[ls:le], text[ls:te], spans) {
		spans = []edit.Span{{OldStart: p - ls, OldEnd: e - ls, NewStart: p - ls, NewEnd: len(text) - (len(old) - e) - ls}}
	}
	for i := range spans {
		spans[i].OldStart += ls
		spans[i].OldEnd += ls
		spans[i].NewStart += ls
		spans[i].NewEnd += ls
	}
	for i := len(spans) - 1; i >= 0; i-- {
		sp := spans[i]
		f.apply(sp.OldStart, sp.OldEnd, text[sp.NewStart:sp.NewEnd], attr)
	}
	if !bytes.Equal(f.cur, text) { // (never: the spans rebuild text)
		f.cur = text
	}
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

// refRebuilds reports whether spans turn old into new byte for byte.
func refRebuilds(old, new []byte, spans []edit.Span) bool {
	var b []byte
	at := 0
	for _, sp := range spans {
		b = append(append(b, old[at:sp.OldStart]...), new[sp.NewStart:sp.NewEnd]...)
		at = sp.OldEnd
	}
	return bytes.Equal(append(b, old[at:]...), new)
}

func sameReview(t *testing.T, f *fileReview, r *refFR) {
	t.Helper()
	if string(f.cur) != string(r.cur) || len(f.hunks) != len(r.hunks) || *f.ids != *r.ids {
		t.Fatalf("differ: cur %q vs %q, %d vs %d hunks", f.cur, r.cur, len(f.hunks), len(r.hunks))
	}
	for i, h := range f.hunks {
		g := r.hunks[i]
		if h.id != g.id || h.s != g.s || h.e != g.e || string(h.old) != string(g.old) || !slices.Equal(h.attrs, g.attrs) {
			t.Fatalf("hunk %d differs: %+v vs %+v", i, h, g)
		}
	}
}

func FuzzRefReview(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n", "x\na\nB!\nc\n", "a\nc\n", "q\n", uint8(5))
	f.Add("", "new\n", "ne", "", "a\r\nb", uint8(0))
	f.Add("a\r\nb\r\n", "a\r\nB\r\n", "a\r\n", "q\rb", "\r\r\n", uint8(3))
	f.Fuzz(func(t *testing.T, t0, t1, t2, t3, t4 string, who uint8) {
		var ids, rids int64
		fr := newFileReview([]byte(t0), &ids)
		rr := newRefFR([]byte(t0), &rids)
		for k, tx := range []string{t1, t2, t3, t4} {
			if who>>k&1 == 1 {
				a := reviewAttr{Agent: string(rune('a' + k))}
				fr.agentChange([]byte(tx), a)
				rr.agentChange([]byte(tx), a)
			} else {
				fr.sync([]byte(tx))
				rr.sync([]byte(tx))
			}
			sameReview(t, fr, rr)
		}
	})
}

func TestRefReviewRandom(t *testing.T) {
	seed := uint64(7)
	rnd := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % n
	}
	lines := []string{"a\n", "b\n", "c\n", "x\r\n", "\r", "long line here\n", "q", "\n", "z\n", "a"}
	mk := func(prev []string) []string {
		var out []string
		for _, l := range prev {
			switch rnd(6) {
			case 0:
			case 1:
				out = append(out, lines[rnd(len(lines))])
			case 2:
				out = append(out, l, lines[rnd(len(lines))])
			default:
				out = append(out, l)
			}
		}
		if rnd(4) == 0 {
			out = append(out, lines[rnd(len(lines))])
		}
		return out
	}
	join := func(ls []string) []byte {
		var b []byte
		for _, l := range ls {
			b = append(b, l...)
		}
		return b
	}
	for it := 0; it < 20000; it++ {
		var cur []string
		for range rnd(30) {
			cur = append(cur, lines[rnd(len(lines))])
		}
		var ids, rids int64
		fr := newFileReview(join(cur), &ids)
		rr := newRefFR(join(cur), &rids)
		for k := range 6 {
			cur = mk(cur)
			tx := join(cur)
			if rnd(2) == 0 {
				a := reviewAttr{Agent: string(rune('a' + k))}
				fr.agentChange(tx, a)
				rr.agentChange(tx, a)
			} else {
				fr.sync(tx)
				rr.sync(tx)
			}
			sameReview(t, fr, rr)
		}
	}
}

func BenchmarkRefReviewAgentEdit50(b *testing.B) {
	orig := benchfile.Text()
	lines := strings.SplitAfter(string(orig), "\n")
	for i := 0; i < 50; i++ {
		lines[i*200] = fmt.Sprintf("changed %d\n", i)
	}
	edited := []byte(strings.Join(lines, ""))
	var ids int64
	f := newRefFR(orig, &ids)
	f.agentChange(edited, reviewAttr{Agent: "bench"})
	for b.Loop() {
		f.sync(orig)
		f.agentChange(edited, reviewAttr{Agent: "bench"})
	}
}
