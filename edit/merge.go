package edit

// Recovery of a stale edit is a three-way merge with git's semantics (git
// merge-file, xdiff's merge at its default level): the edit applied to the
// snapshot it names is one side ("ours"), the live file the other
// ("theirs"), the snapshot their base. Each side's change to the base is a
// line diff (a minimal one, Myers) whose runs of changed lines are slid as
// git slides them; the changes of the two sides are then taken in order:
//
//   - a change that only one side made, separated from every change of the
//     other side by at least one unchanged line of the base, is kept;
//   - changes of the two sides that overlap or touch (no unchanged base line
//     between them) form one region, which merges only when both sides
//     wrote the same lines there (an identical change is applied once);
//     otherwise the edit is refused.
//
// Nothing is ever located by searching for context, so repeated lines (a
// run of `}`) cannot move a change.

// span3 is one change of a side: base tokens [bs, be) became the side's
// tokens [ns, ne).
type span3 struct{ bs, be, ns, ne int }

// diffSpans returns the changes that turn a into b: a minimal line diff
// (Myers) within the regions given (all of both when regs is nil), slid as
// git slides them (compactChanges).
func diffSpans(a, b *doc, regs []region) []span3 {
	ta, tb := a.tokens(), b.tokens()
	var ch []change
	if regs == nil {
		ch = myers(a, 0, ta, b, 0, tb)
	} else {
		ch = diffRegions(a, b, regs)
	}
	ca, cb := make([]bool, ta), make([]bool, tb)
	for _, c := range ch {
		for i := c.o; i < c.o+c.ol; i++ {
			ca[i] = true
		}
		for j := c.n; j < c.n+c.nl; j++ {
			cb[j] = true
		}
	}
	compactChanges(a, ca, cb)
	compactChanges(b, cb, ca)
	var out []span3
	i, j := 0, 0
	for i < ta || j < tb {
		if i < ta && j < tb && !ca[i] && !cb[j] {
			i++
			j++
			continue
		}
		s := span3{bs: i, ns: j}
		for i < ta && ca[i] {
			i++
		}
		for j < tb && cb[j] {
			j++
		}
		s.be, s.ne = i, j
		out = append(out, s)
	}
	return out
}

// compactChanges slides each run of changed tokens of d (flags ch; other
// holds the other file's flags) the way git does before it merges: a run
// whose first line equals the line after it (or whose last equals the line
// before it) can be shifted without changing the diff's meaning; it is
// shifted as far down as it goes, merging with the runs it meets, and
// then back up to the lowest position where it lines up with a change of
// the other file, if it passed one.
//
// The runs of the two files are kept in step through the unchanged lines
// between them: the k-th gap between unchanged lines holds a run (maybe
// empty) of each file.
func compactChanges(d *doc, ch, other []bool) {
	n, no := len(ch), len(other)
	eq := func(i, j int) bool { return tokenEq(d, i, d, j) }
	// The other file's run in the gap d's current run sits in: [os, oe).
	os, oe := 0, 0
	advanceOther := func() { // to the next gap: skip one unchanged line
		os = oe + 1
		oe = os
		for oe < no && other[oe] {
			oe++
		}
	}
	retreatOther := func() { // to the previous gap
		oe = os - 1
		os = oe
		for os > 0 && other[os-1] {
			os--
		}
	}
	for oe < no && other[oe] {
		oe++
	}
	s, e := 0, 0 // the current run [s, e) of d
	for e < n && ch[e] {
		e++
	}
	for {
		if e > s {
			for {
				size := e - s
				// Up as far as it goes.
				for s > 0 && eq(s-1, e-1) {
					s--
					e--
					ch[s], ch[e] = true, false
					for s > 0 && ch[s-1] {
						s--
					}
					retreatOther()
				}
				earliestEnd := e
				matchEnd := -1
				if oe > os {
					matchEnd = e
				}
				// Down as far as it goes.
				for e < n && eq(s, e) {
					ch[s], ch[e] = false, true
					s++
					e++
					for e < n && ch[e] {
						e++
					}
					advanceOther()
					if oe > os {
						matchEnd = e
					}
				}
				if e-s == size {
					if e != earliestEnd && matchEnd >= 0 {
						// Back up to the lowest place that lines up with
						// a change of the other file.
						for oe == os {
							s--
							e--
							ch[s], ch[e] = true, false
							retreatOther()
						}
					}
					break
				}
			}
		}
		if e >= n {
			return
		}
		// Next gap: skip one unchanged line.
		s = e + 1
		e = s
		for e < n && ch[e] {
			e++
		}
		advanceOther()
	}
}

// merged is a stale edit's recovery: the hunks that turn the live file
// (theirs) into the merge, and whether a change of ours sits within three
// lines of one of theirs (the reference's replay strategy would have been
// needed: its warning is given).
type merged struct {
	hunks []Hunk
	near  bool
}

// merge3 merges base -> ours (the changes in spans ours) with base ->
// theirs, as git merge-file would. ok is false on a conflict.
func merge3(base, oursDoc, theirsDoc *doc, ours []span3) (merged, bool) {
	theirs := diffSpans(base, theirsDoc, nil)
	var out merged
	offO, offT := 0, 0 // each side's position minus the base's, before the region
	i, j := 0, 0
	for i < len(ours) || j < len(theirs) {
		// The next region: one change, and every change of either side
		// that overlaps or touches it (no unchanged base line between).
		var b0, b1 int
		switch {
		case j >= len(theirs) || (i < len(ours) && ours[i].bs <= theirs[j].bs):
			b0, b1 = ours[i].bs, ours[i].be
		default:
			b0, b1 = theirs[j].bs, theirs[j].be
		}
		i0, j0 := i, j
		dO, dT := 0, 0
		for {
			grew := false
			for i < len(ours) && ours[i].bs <= b1 {
				b1 = max(b1, ours[i].be)
				dO += (ours[i].ne - ours[i].ns) - (ours[i].be - ours[i].bs)
				i++
				grew = true
			}
			for j < len(theirs) && theirs[j].bs <= b1 {
				b1 = max(b1, theirs[j].be)
				dT += (theirs[j].ne - theirs[j].ns) - (theirs[j].be - theirs[j].bs)
				j++
				grew = true
			}
			if !grew {
				break
			}
		}
		oS, oE := b0+offO, b1+offO+dO
		tS, tE := b0+offT, b1+offT+dT
		switch {
		case j == j0: // ours alone
			rows := make([]string, oE-oS)
			for k := range rows {
				rows[k] = string(oursDoc.line(oS + k))
			}
			out.hunks = append(out.hunks, spanHunk(theirsDoc, tS, tE, rows))
			if !out.near {
				out.near = nearChange(theirs, b0, b1)
			}
		case i == i0: // theirs alone: already in the live file
		default: // both: the same lines, or a conflict
			if oE-oS != tE-tS {
				return merged{}, false
			}
			for k := 0; k < oE-oS; k++ {
				if !tokenEq(oursDoc, oS+k, theirsDoc, tS+k) {
					return merged{}, false
				}
			}
			out.near = true
		}
		offO += dO
		offT += dT
	}
	return out, true
}

// nearChange reports whether a change in cs lies within three base lines
// of [b0, b1).
func nearChange(cs []span3, b0, b1 int) bool {
	for _, c := range cs {
		if c.bs <= b1+3 && c.be+3 >= b0 {
			return true
		}
	}
	return false
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
