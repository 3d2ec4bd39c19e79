package edit

import (
	"strconv"
	"strings"
)

// change says old tokens [o, o+ol) became new tokens [n, n+nl).
type change struct{ o, ol, n, nl int }

// diffBudget caps the Myers search (in visited diagonal cells) for one
// region; past it the region is reported as one replacement.
const diffBudget = 1_000_000

// diffRegions computes a line diff of a → b limited to the regions the apply
// touched (everything outside them is known to be equal, line for line).
func diffRegions(a, b *doc, regs []region) []change {
	ta, tb := a.tokens(), b.tokens()
	var out []change
	po, pn := 0, 0 // end of the previous expanded region
	for i := 0; i < len(regs); {
		r := regs[i]
		os, oe, ns, ne := r.os-1, r.oe+1, r.ns-1, r.ne+1
		i++
		for i < len(regs) && regs[i].os-1 <= oe {
			oe, ne = regs[i].oe+1, regs[i].ne+1
			i++
		}
		if os < po || ns < pn {
			os, ns = po, pn
		}
		os, ns = max(os, 0), max(ns, 0)
		oe, ne = min(oe, ta), min(ne, tb)
		if os > oe || ns > ne {
			continue
		}
		out = append(out, myers(a, os, oe, b, ns, ne)...)
		po, pn = oe, ne
	}
	return out
}

// myers diffs a[os:oe] against b[ns:ne] (token indices).
//
// Long: Myers' O(ND) greedy search (forward furthest-reaching paths per
// diagonal, then the path back through the trace) reads best as the one
// loop the paper gives; its branches are the algorithm's.
func myers(a *doc, os, oe int, b *doc, ns, ne int) []change {
	// Trim the common prefix and suffix.
	for os < oe && ns < ne && tokenEq(a, os, b, ns) {
		os++
		ns++
	}
	for os < oe && ns < ne && tokenEq(a, oe-1, b, ne-1) {
		oe--
		ne--
	}
	N, M := oe-os, ne-ns
	if N == 0 && M == 0 {
		return nil
	}
	if N == 0 || M == 0 {
		return []change{{os, N, ns, M}}
	}
	max := N + M
	off := max + 1
	v := make([]int, 2*max+3)
	var trace [][]int
	cost := 0
	found := -1
	for d := 0; d <= max; d++ {
		cost += 2*d + 1
		if cost > diffBudget {
			return []change{{os, N, ns, M}}
		}
		snap := make([]int, 2*d+3)
		copy(snap, v[off-d-1:off+d+2])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < N && y < M && tokenEq(a, os+x, b, ns+y) {
				x++
				y++
			}
			v[off+k] = x
			if x >= N && y >= M {
				found = d
				break
			}
		}
		if found >= 0 {
			break
		}
	}
	// Backtrack from (N, M) to (0, 0).
	x, y := N, M
	var edits []change
	for d := found; d > 0; d-- {
		vp := trace[d] // v before step d, indexed k+d+1
		get := func(k int) int { return vp[k+d+1] }
		k := x - y
		var prevK int
		if k == -d || (k != d && get(k-1) < get(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		px := get(prevK)
		py := px - prevK
		// snake from (after edit) to (x, y)
		if prevK == k+1 { // insertion: (px, py) → (px, py+1)
			edits = append(edits, change{os + px, 0, ns + py, 1})
		} else { // deletion: (px, py) → (px+1, py)
			edits = append(edits, change{os + px, 1, ns + py, 0})
		}
		x, y = px, py
	}
	// edits are in reverse order; merge adjacent ones.
	var out []change
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		if k := len(out); k > 0 && out[k-1].o+out[k-1].ol == e.o && out[k-1].n+out[k-1].nl == e.n {
			out[k-1].ol += e.ol
			out[k-1].nl += e.nl
			continue
		}
		out = append(out, e)
	}
	return out
}

// uhunk is one unified-diff hunk: old tokens [o, oe), new [n, ne).
type uhunk struct {
	o, oe, n, ne int
	changes      []change
}

func buildHunks(ch []change, ta, tb, ctx int) []uhunk {
	var out []uhunk
	for i := 0; i < len(ch); {
		c := ch[i]
		o := max(0, c.o-ctx)
		h := uhunk{o: o, n: c.n - (c.o - o)}
		j := i
		for j+1 < len(ch) && ch[j+1].o-(ch[j].o+ch[j].ol) <= 2*ctx {
			j++
		}
		h.changes = ch[i : j+1]
		last := ch[j]
		lo, ln := last.o+last.ol, last.n+last.nl
		after := min(ctx, ta-lo, tb-ln)
		h.oe, h.ne = lo+after, ln+after
		if h.n < 0 {
			h.n = 0
		}
		out = append(out, h)
		i = j + 1
	}
	return out
}

func hunkRange(start, count int) string {
	if count == 0 {
		return strconv.Itoa(start) + ",0"
	}
	return strconv.Itoa(start+1) + "," + strconv.Itoa(count)
}

// unifiedDiff renders a → b as a unified diff with 3 context lines.
func unifiedDiff(path string, a, b *doc, ch []change) string {
	if len(ch) == 0 {
		return ""
	}
	var sb strings.Builder
	sb.WriteString("--- a/" + path + "\n+++ b/" + path + "\n")
	ta, tb := a.tokens(), b.tokens()
	line := func(prefix byte, d *doc, i int) {
		sb.WriteByte(prefix)
		sb.Write(d.line(i))
		sb.WriteByte('\n')
		if i+1 >= d.n() {
			sb.WriteString("\\ No newline at end of file\n")
		}
	}
	for _, h := range buildHunks(ch, ta, tb, 3) {
		sb.WriteString("@@ -" + hunkRange(h.o, h.oe-h.o) + " +" + hunkRange(h.n, h.ne-h.n) + " @@\n")
		pos := h.o
		for _, c := range h.changes {
			for ; pos < c.o; pos++ {
				line(' ', a, pos)
			}
			for i := 0; i < c.ol; i++ {
				line('-', a, c.o+i)
			}
			for i := 0; i < c.nl; i++ {
				line('+', b, c.n+i)
			}
			pos = c.o + c.ol
		}
		for ; pos < h.oe; pos++ {
			line(' ', a, pos)
		}
	}
	return sb.String()
}

// preview renders the compact post-edit preview: context and added rows with
// their new line numbers, removed rows omitted, long added runs elided.
func preview(a, b *doc, ch []change) string {
	var rows []string
	gap := func() {
		if len(rows) > 0 && rows[len(rows)-1] != "…" {
			rows = append(rows, "…")
		}
	}
	row := func(i int) { rows = append(rows, strconv.Itoa(i+1)+":"+string(b.line(i))) }
	for hi, h := range buildHunks(ch, a.tokens(), b.tokens(), 2) {
		if hi > 0 {
			gap()
		}
		pos := h.n
		for _, c := range h.changes {
			for ; pos < c.n; pos++ {
				row(pos)
			}
			if c.nl > 5 {
				row(c.n)
				row(c.n + 1)
				rows = append(rows, "…")
				row(c.n + c.nl - 2)
				row(c.n + c.nl - 1)
			} else {
				for i := 0; i < c.nl; i++ {
					row(c.n + i)
				}
			}
			pos = c.n + c.nl
		}
		for ; pos < h.ne; pos++ {
			row(pos)
		}
	}
	for len(rows) > 0 && rows[len(rows)-1] == "…" {
		rows = rows[:len(rows)-1]
	}
	return strings.Join(rows, "\n")
}

// UnifiedDiff returns the unified diff (3 context lines, `--- a/PATH` and
// `+++ b/PATH` headers) of old → new, compared line by line on their
// LF-normalised view. It returns "" when they are equal. Tools that replace
// a whole file (write) use it for their details.
func UnifiedDiff(path string, old, new []byte) string {
	a, b := newDoc(old), newDoc(new)
	ch := diffRegions(a, b, []region{{os: 0, oe: len(a.starts), ns: 0, ne: len(b.starts)}})
	if len(ch) == 0 {
		return ""
	}
	return unifiedDiff(path, a, b, ch)
}

// Span is one changed region of a line diff, in byte offsets: old[OldStart:OldEnd]
// became new[NewStart:NewEnd]. Both spans cover whole lines (with their line
// breaks).
type Span struct{ OldStart, OldEnd, NewStart, NewEnd int }

// ChangedSpans returns the regions where old and new differ, one per run of
// changed lines, in order (a Myers line diff, as UnifiedDiff's). Lines are
// compared by content and by whether a line break follows, not by which break
// (CRLF or LF) or a BOM: a caller that needs the exact bytes checks the spans
// rebuild new, and falls back to one replacement when they do not. It
// returns nil when the lines are equal.
func ChangedSpans(old, new []byte) []Span {
	a, b := newDoc(old), newDoc(new)
	ch := diffRegions(a, b, []region{{os: 0, oe: len(a.starts), ns: 0, ne: len(b.starts)}})
	if len(ch) == 0 {
		return nil
	}
	offA, offB := len(old)-len(a.b), len(new)-len(b.b) // the BOM, if any
	at := func(d *doc, i, off int) int {
		if i >= len(d.starts) {
			return off + len(d.b)
		}
		return off + d.starts[i]
	}
	out := make([]Span, 0, len(ch))
	for _, c := range ch {
		out = append(out, Span{
			OldStart: at(a, c.o, offA), OldEnd: at(a, c.o+c.ol, offA),
			NewStart: at(b, c.n, offB), NewEnd: at(b, c.n+c.nl, offB),
		})
	}
	return out
}
