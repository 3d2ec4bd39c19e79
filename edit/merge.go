package edit

// Recovery of a stale edit is a three-way merge with git's semantics (git
// merge-file, xdiff's merge at its default level; the diff3 of Khanna,
// Kunal and Pierce): the edit applied to the snapshot it names is one side
// ("ours"), the live file the other ("theirs"), the snapshot their base.
//
//   - A change only one side made is kept, when at least one line of the
//     base that both sides kept separates it from every change of the
//     other side.
//   - Where the changes of the two sides overlap or touch, the merge is
//     clean only when both sides wrote the same lines there (an identical
//     change is applied once); otherwise the edit is refused.
//
// Which lines a side kept is decided by a longest common subsequence with
// the base. There may be several (a deleted `}` next to another `}`), and
// git picks one by its own rules. hashls counts a base line as kept only
// when every longest common subsequence keeps it, paired with the same
// line (sureMatches): the merge then is the same whichever one git or any
// diff3 picks, and where the choice would matter the edit is refused.
// This refuses no more than that: between two lines both sides surely
// keep, a change of both sides that differs always has some choice of
// alignment that conflicts (TestRecoveryDecidesAsEveryAlignment checks
// that the rule lands exactly what every choice merges alike, on every
// small case). Nothing is located by searching for context, so repeated
// lines cannot move a change.

// maxMergeCells bounds the table sureMatches fills (two bytes a cell, 32
// MiB at most): a file of n lines whose side differs from the base by d
// lines needs n·(d+1), so 2,400 lines with 6,000 lines changed, 100,000
// lines with 160. Past it the merge is refused.
const maxMergeCells = 16 << 20

// tokenIDs numbers the tokens of docs: equal tokens (the same content and
// the same "a line break follows") share a number.
func tokenIDs(ds ...*doc) [][]int32 {
	ids := map[string]int32{}
	out := make([][]int32, len(ds))
	for k, d := range ds {
		t := d.tokens()
		s := make([]int32, t)
		for i := 0; i < t; i++ {
			l := d.line(i)
			id, ok := ids[string(l)] // a lookup does not copy l
			if !ok {
				id = int32(len(ids))
				ids[string(l)] = id
			}
			if i+1 >= len(d.starts) {
				id |= 1 << 30 // the last line, with no line break after it
			}
			s[i] = id
		}
		out[k] = s
	}
	return out
}

// noPath marks a cell of sureMatches's table no path within the band
// reaches the end from.
const noPath = 1<<16 - 1

// sureMatches returns, for each line of a, the line of b it is paired
// with in every longest common subsequence of a and b, or -1 (not kept,
// or kept in some but not all of them, or paired differently). d is an
// upper bound of the number of lines deleted and inserted (the length of
// some edit script). ok is false when the table would pass maxMergeCells.
//
// A pair (i, j) of equal lines is in some longest common subsequence when
// the shortest edit path through the diagonal step (i, j) -> (i+1, j+1)
// is as short as any: dist((0,0), (i,j)) + dist((i+1,j+1), (n,m)) = D.
// Every longest common subsequence has exactly one pair at each level
// (the number of pairs before it, (i + j - dist((0,0),(i,j))) / 2), so a
// pair alone at its level is in all of them. Paths of cost at most d stay
// within the diagonals i-j in [-ins, del] (the insertions and deletions
// such a path makes), so only that band of the table is filled.
func sureMatches(a, b []int32, d int) ([]int32, bool) {
	n, m := len(a), len(b)
	del, ins := (d+n-m)/2, (d-n+m)/2
	bd := &band{n: n, m: m, kmin: -ins, kmax: del}
	bd.w = bd.kmax - bd.kmin + 1
	if del < 0 || ins < 0 || d >= noPath || (n+1)*bd.w > maxMergeCells {
		return nil, false
	}
	bd.fillBack(a, b, d)
	dist := bd.get(0, 0)
	count, pair := bd.levelPairs(a, b, dist)
	out := make([]int32, n)
	for i := range out {
		out[i] = -1
	}
	for l, c := range count {
		if c == 1 {
			out[pair[l][0]] = pair[l][1]
		}
	}
	return out, true
}

// bandInf is a distance beyond every path.
const bandInf = int32(1 << 29)

// band is sureMatches's table: the diagonals i-j in [kmin, kmax] of the
// edit graph of a (n lines) and b (m lines), w of them.
type band struct {
	n, m, kmin, kmax, w int
	// back[i*w+k-kmin] is the distance from (i, i-k) to (n, m), noPath
	// for none within the band (no distance in it exceeds d).
	back []uint16
}

// get is the distance from (i, j) to (n, m), bandInf outside the band.
func (bd *band) get(i, j int) int32 {
	k := i - j
	if j < 0 || j > bd.m || k < bd.kmin || k > bd.kmax {
		return bandInf
	}
	if v := bd.back[i*bd.w+k-bd.kmin]; v != noPath {
		return int32(v)
	}
	return bandInf
}

// fillBack fills back from (n, m) up to (0, 0); d bounds the distances.
func (bd *band) fillBack(a, b []int32, d int) {
	n, m, kmin, kmax, w := bd.n, bd.m, bd.kmin, bd.kmax, bd.w
	bd.back = make([]uint16, (n+1)*w)
	for i := n; i >= 0; i-- {
		for j := min(m, i-kmin); j >= max(0, i-kmax); j-- {
			var v int32
			switch {
			case i == n && j == m:
				v = 0
			case i < n && j < m && a[i] == b[j]:
				v = bd.get(i+1, j+1)
			default:
				v = bandInf
				if i < n {
					v = min(v, bd.get(i+1, j)+1)
				}
				if j < m {
					v = min(v, bd.get(i, j+1)+1)
				}
			}
			if v > int32(d) {
				bd.back[i*w+i-j-kmin] = noPath // off every path of cost d
			} else {
				bd.back[i*w+i-j-kmin] = uint16(v)
			}
		}
	}
}

// levelPairs walks the distances from (0, 0), one row of the band at a
// time, and counts the pairs of equal lines on a shortest path (of length
// dist) at each level: pair is the last one counted.
func (bd *band) levelPairs(a, b []int32, dist int32) (count []int32, pair [][2]int32) {
	n, m, kmin, kmax, w := bd.n, bd.m, bd.kmin, bd.kmax, bd.w
	levels := (n + m - int(dist)) / 2
	count = make([]int32, levels)
	pair = make([][2]int32, levels)
	prev, cur := make([]int32, w), make([]int32, w)
	for i := range prev {
		prev[i] = bandInf
	}
	row := func(r []int32, j, ii int) int32 {
		k := ii - j
		if j < 0 || j > m || k < kmin || k > kmax {
			return bandInf
		}
		return r[k-kmin]
	}
	for i := 0; i <= n; i++ {
		for k := range cur {
			cur[k] = bandInf
		}
		for j := max(0, i-kmax); j <= min(m, i-kmin); j++ {
			var v int32
			switch {
			case i == 0 && j == 0:
				v = 0
			case i > 0 && j > 0 && a[i-1] == b[j-1]:
				v = row(prev, j-1, i-1)
			default:
				v = bandInf
				if i > 0 {
					v = min(v, row(prev, j, i-1)+1)
				}
				if j > 0 {
					v = min(v, row(cur, j-1, i)+1)
				}
			}
			cur[i-j-kmin] = v
			if i < n && j < m && a[i] == b[j] && v+bd.get(i+1, j+1) == dist {
				l := (i + j - int(v)) / 2
				count[l]++
				pair[l] = [2]int32{int32(i), int32(j)}
			}
		}
		prev, cur = cur, prev
	}
	return count, pair
}

// editLength is the length of an edit script from a to b: the lines the
// changes delete and insert.
func editLength(ch []change) int {
	d := 0
	for _, c := range ch {
		d += c.ol + c.nl
	}
	return d
}

// merged is a stale edit's recovery: the hunks that turn the live file
// (theirs) into the merge, and whether a change of ours sits within three
// lines of one of theirs (the reference would have replayed the edit
// instead of relocating it: its warning is given).
type merged struct {
	hunks []Hunk
	near  bool
}

// merge3 merges base -> ours with base -> theirs as diff3 and git
// merge-file do, over the lines both sides surely kept (sureMatches).
// oursCh is a diff of base -> ours (the edit's). ok is false on a
// conflict, or when the sides differ from the base too much to tell.
func merge3(base, ours, theirs *doc, oursCh []change) (merged, bool) {
	ids := tokenIDs(base, ours, theirs)
	b, o, t := ids[0], ids[1], ids[2]
	po, ok := sureMatches(b, o, editLength(oursCh))
	if !ok {
		return merged{}, false
	}
	pt, ok := sureMatches(b, t, editLength(myers(base, 0, len(b), theirs, 0, len(t))))
	if !ok {
		return merged{}, false
	}
	eq := func(x []int32, xs int, y []int32, ys, n int) bool {
		for k := 0; k < n; k++ {
			if x[xs+k] != y[ys+k] {
				return false
			}
		}
		return true
	}
	var out merged
	var oursAt, theirsAt []LineRange // base ranges (0-based, end exclusive) each side changed
	sb, so, st := 0, 0, 0            // where the chunk after the last stable line starts
	for i := 0; i <= len(b); i++ {
		eb, eo, et := len(b), len(o), len(t)
		if i < len(b) {
			if po[i] < 0 || pt[i] < 0 {
				continue
			}
			eb, eo, et = i, int(po[i]), int(pt[i])
		}
		nb, no, nt := eb-sb, eo-so, et-st
		oursSame := no == nb && eq(o, so, b, sb, nb)
		theirsSame := nt == nb && eq(t, st, b, sb, nb)
		switch {
		case oursSame:
			if !theirsSame {
				theirsAt = append(theirsAt, LineRange{sb, eb})
			}
		case theirsSame:
			rows := make([]string, no)
			for k := range rows {
				rows[k] = string(ours.line(so + k))
			}
			out.hunks = append(out.hunks, spanHunk(theirs, st, et, rows))
			oursAt = append(oursAt, LineRange{sb, eb})
		case no == nt && eq(o, so, t, st, no):
			out.near = true // the same change on both sides
		default:
			return merged{}, false
		}
		sb, so, st = eb+1, eo+1, et+1
	}
	for _, r := range oursAt {
		for _, c := range theirsAt {
			if c.Start <= r.End+3 && c.End+3 >= r.Start {
				out.near = true
			}
		}
	}
	return out, true
}

// spanHunk is the plain hunk that replaces live tokens [s, e) by rows.
func spanHunk(live *doc, s, e int, rows []string) Hunk {
	switch {
	case e > s:
		return Hunk{Kind: OpReplace, Start: s + 1, End: e, Rows: rows, noRepair: true}
	case s >= live.n():
		return Hunk{Kind: OpInsertTail, Rows: rows}
	default:
		return Hunk{Kind: OpInsertBefore, Start: s + 1, End: s + 1, Rows: rows}
	}
}
