package edit

import (
	"strconv"
	"strings"

	"github.com/hashls/hashls/internal/lines"
	"github.com/hashls/hashls/internal/names"
)

// mergeRanges sorts rs and merges overlapping or adjacent spans; empty or
// reversed spans are dropped.
func mergeRanges(rs []LineRange) []LineRange {
	in := make([]lines.Range, len(rs))
	for i, r := range rs {
		in[i] = lines.Range(r)
	}
	m := lines.Merge(in)
	out := make([]LineRange, len(m))
	for i, r := range m {
		out[i] = LineRange(r)
	}
	return out
}

// MergeRanges returns rs sorted with overlapping and adjacent spans merged.
func MergeRanges(rs []LineRange) []LineRange { return mergeRanges(rs) }

// displayLines is the number of lines read shows for d: the sentinel after
// a final line break is not shown, nor is the single line of an empty file.
func displayLines(d *doc) int {
	if len(d.b) == 0 {
		return 0
	}
	if d.hasSentinel() {
		return d.n() - 1
	}
	return d.n()
}

// seenTargets lists the lines each hunk needs the caller to have seen: every
// line of a replaced or deleted range, an insert's anchor line, a block op's
// opening line (the parser finds its end). Lines past what read shows (the
// sentinel, or out of bounds: the bounds check reports those) are skipped.
func seenTargets(hunks []Hunk, shown int) []LineRange {
	var out []LineRange
	for _, h := range hunks {
		s, e := h.Start, h.End
		switch h.Kind {
		case OpInsertHead, OpInsertTail:
			continue
		case OpReplace, OpDelete:
		default:
			e = s
		}
		e = min(e, shown)
		if s < 1 || s > e {
			continue
		}
		out = append(out, LineRange{s, e})
	}
	return mergeRanges(out)
}

// unseen returns the parts of targets not covered by seen (both merged).
func unseen(targets, seen []LineRange) []LineRange {
	var out []LineRange
	j := 0
	for _, t := range targets {
		cur := t.Start
		for j < len(seen) && seen[j].End < cur {
			j++
		}
		for k := j; k < len(seen) && seen[k].Start <= t.End && cur <= t.End; k++ {
			if seen[k].Start > cur {
				out = append(out, LineRange{cur, seen[k].Start - 1})
			}
			cur = max(cur, seen[k].End+1)
		}
		if cur <= t.End {
			out = append(out, LineRange{cur, t.End})
		}
	}
	return out
}

// maxUnseenShown bounds the lines an unseen-lines refusal displays.
const maxUnseenShown = 400

// unseenError is the refusal of hunks anchored on lines no read of the
// tagged snapshot displayed. It shows those lines (±2 context, "*" on the
// unseen ones) from the live file with its tag, so that, once they are
// recorded as seen, an immediate retry can succeed.
func unseenError(path, tag, liveTag string, live *doc, bad []LineRange, bracket bool) *Error {
	var sb strings.Builder
	shown := []LineRange{}
	L := displayLines(live)
	mark := map[int]bool{}
	count := 0
	for _, r := range bad {
		s, e := max(1, r.Start-2), min(L, r.End+2)
		if s > e {
			continue
		}
		if count+(e-s+1) > maxUnseenShown {
			e = s + max(0, maxUnseenShown-count) - 1
		}
		if e < s {
			break
		}
		shown = append(shown, LineRange{s, e})
		count += e - s + 1
		for x := max(r.Start, s); x <= min(r.End, e); x++ {
			mark[x] = true
		}
	}
	shown = mergeRanges(shown)
	sb.WriteString("Edit rejected for " + path + ": no read of #" + tag + " showed you " + rangesText(bad) + " (lines a summary elides are not shown), and a hunk may only sit on lines you have seen. ")
	if liveTag == tag {
		sb.WriteString("They are shown below; check them, then retry the same edit (the header " + header(path, liveTag, bracket) + " stays valid).")
	} else {
		sb.WriteString("They are shown below from the current file, which hashes to #" + liveTag + "; check them, then retry with " + header(path, liveTag, bracket) + ".")
	}
	sb.WriteString("\n\n" + header(path, liveTag, bracket))
	for i, r := range shown {
		if i > 0 {
			sb.WriteString("\n...")
		}
		for x := r.Start; x <= r.End; x++ {
			sb.WriteByte('\n')
			if mark[x] {
				sb.WriteByte('*')
			} else {
				sb.WriteByte(' ')
			}
			sb.WriteString(strconv.Itoa(x) + ":")
			sb.Write(live.line(x - 1))
		}
	}
	if count >= maxUnseenShown {
		sb.WriteString("\n[more unseen lines not shown; read them with " + names.Show(path) + ":A-B]")
	}
	return &Error{Kind: KindUnseen, Msg: sb.String(), Shown: shown}
}

// header renders a section header in the chosen form, its path as tool
// output shows names (quoted when a name could forge a row or a header:
// names.Show), which parseHeader reads back.
func header(path, tag string, bracket bool) string {
	if bracket {
		return "[" + names.Show(path) + "#" + tag + "]"
	}
	return headerPilcrow + names.Show(path) + "#" + tag
}

// mapSeen carries the seen lines of old over to nd through the line diff
// ch: untouched lines keep their seen state at their new numbers, and
// every line the edit wrote is seen (the caller authored it).
func mapSeen(seen []LineRange, ch []change, newLines int) []LineRange {
	var out []LineRange
	// Segments of untouched lines: old [os, oe) ↦ new [ns, ...), 0-based.
	type seg struct{ os, oe, ns int }
	var segs []seg
	po, pn := 0, 0
	for _, c := range ch {
		if c.o > po {
			segs = append(segs, seg{po, c.o, pn})
		}
		po, pn = c.o+c.ol, c.n+c.nl
		if c.nl > 0 {
			out = append(out, LineRange{c.n + 1, c.n + c.nl})
		}
	}
	segs = append(segs, seg{po, 1 << 62, pn})
	for _, r := range seen {
		s0, e0 := r.Start-1, r.End-1 // 0-based inclusive
		for _, g := range segs {
			a, b := max(s0, g.os), min(e0, g.oe-1)
			if a <= b {
				out = append(out, LineRange{a - g.os + g.ns + 1, b - g.os + g.ns + 1})
			}
		}
	}
	out = mergeRanges(out)
	for i := range out {
		out[i].End = min(out[i].End, newLines)
	}
	return mergeRanges(out)
}

// changedSeen is what a result shows when the old seen lines cannot be
// carried over (recovery): the written lines with the preview's context.
func changedSeen(ch []change, newLines int) []LineRange {
	var out []LineRange
	for _, c := range ch {
		out = append(out, LineRange{max(1, c.n+1-2), min(newLines, c.n+c.nl+2)})
	}
	return mergeRanges(out)
}
