package edit

import (
	"sort"
	"strconv"
	"strings"
)

const (
	slotBefore = iota
	slotReplace
	slotAfter
)

type rowOp struct {
	line int // 0-based anchor line
	slot int
	seq  int
	rows []string
}

type delRange struct{ s, e int } // 0-based inclusive

// region maps old lines [os, oe) to new rows [ns, ne).
type region struct{ os, oe, ns, ne int }

// applied is the outcome of applying plain (block-free) hunks to a doc.
type applied struct {
	out      []byte
	warnings []string
	regions  []region
	// repairs lists, per hunk index that an auto-repair changed, the
	// repairs it ran (for the parse proof).
	repairs map[int][]string
}

// Names of the auto-repairs, as the declined-repair warning gives them.
const (
	repairEcho    = "boundary echo"
	repairBalance = "delimiter balance"
	repairLanding = "insert-after landing shift"
)

func (a *applied) noteRepair(i int, name string) {
	if a.repairs == nil {
		a.repairs = map[int][]string{}
	}
	a.repairs[i] = append(a.repairs[i], name)
}

func applyErr(msg string) *Error { return &Error{Kind: KindApply, Msg: msg} }

func lineMissing(line, total int) *Error {
	return applyErr("Line " + strconv.Itoa(line) + " does not exist (file has " + strconv.Itoa(total) + " lines)")
}

func sentinelErr(line int) *Error {
	return applyErr("Line " + strconv.Itoa(line) + " is the trailing blank sentinel of a newline-terminated file and has no content to delete. End the range at line " +
		strconv.Itoa(line-1) + ", or use `insert tail:` to append.")
}

// checkBounds validates every anchor of the (block-free) hunks.
func checkBounds(d *doc, hunks []Hunk) *Error {
	L := d.n()
	sent := d.hasSentinel()
	for _, h := range hunks {
		switch h.Kind {
		case OpReplace, OpDelete:
			if h.Start > L {
				return lineMissing(h.Start, L)
			}
			if sent && h.End >= L {
				return sentinelErr(L)
			}
			if h.End > L {
				return lineMissing(L+1, L)
			}
		case OpInsertBefore, OpInsertAfter:
			if h.Start > L || h.Start < 1 {
				return lineMissing(h.Start, L)
			}
		}
	}
	return nil
}

// hunkAnchors lists the 1-based lines the hunks are anchored on (block ops
// contribute their anchor line).
func hunkAnchors(hunks []Hunk) []int {
	var out []int
	for _, h := range hunks {
		switch h.Kind {
		case OpReplace, OpDelete:
			if h.End-h.Start < 64 {
				for x := h.Start; x <= h.End; x++ {
					out = append(out, x)
				}
			} else {
				out = append(out, h.Start, h.End)
			}
		case OpInsertHead, OpInsertTail:
		default:
			out = append(out, h.Start)
		}
	}
	sort.Ints(out)
	w := 0
	for i, x := range out {
		if i == 0 || x != out[w-1] {
			out[w] = x
			w++
		}
	}
	return out[:w]
}

// applyPlain applies block-free hunks to d (reference §4, §6).
func applyPlain(d *doc, hunks []Hunk) (*applied, *Error) {
	if err := checkBounds(d, hunks); err != nil {
		return nil, err
	}
	L := d.n()
	sent := d.hasSentinel()
	res := &applied{}
	perHunk := make([][]string, len(hunks))

	// Replacement ranges after repair (0-based inclusive), per hunk.
	type repl struct {
		n, m int
		rows []string
	}
	repls := make([]repl, len(hunks))
	var dels []delRange
	total := editBalance(d, hunks)
	for i, h := range hunks {
		switch h.Kind {
		case OpReplace:
			n, m := h.Start-1, h.End-1
			rows := h.Rows
			if len(rows) > 0 && !h.noRepair {
				var w []string
				var no *decline
				m, rows, w, no = repairReplacement(d, n, m, rows, &total)
				perHunk[i] = append(perHunk[i], w...)
				if no != nil {
					perHunk[i] = append(perHunk[i], declinedWarning(h, no.repair, no.why))
				}
				for _, x := range w {
					if strings.HasPrefix(x, "Auto-repaired a replacement boundary echo") {
						res.noteRepair(i, repairEcho)
					} else {
						res.noteRepair(i, repairBalance)
					}
				}
			}
			repls[i] = repl{n, m, rows}
			if m >= n {
				dels = append(dels, delRange{n, m})
			}
		case OpDelete:
			dels = append(dels, delRange{h.Start - 1, h.End - 1})
		}
	}
	sort.Slice(dels, func(a, b int) bool { return dels[a].s < dels[b].s })
	// Merge overlapping deletions (block ops may overlap plain ones).
	merged := dels[:0]
	for _, r := range dels {
		if k := len(merged); k > 0 && r.s <= merged[k-1].e+1 {
			merged[k-1].e = max(merged[k-1].e, r.e)
			continue
		}
		merged = append(merged, r)
	}
	dels = merged
	inDel := func(x int) bool {
		i := sort.Search(len(dels), func(j int) bool { return dels[j].e >= x })
		return i < len(dels) && dels[i].s <= x
	}
	// Lines anchored by inserts (for the landing-shift "targeted" rule).
	anchorCount := map[int]int{}
	for _, h := range hunks {
		switch h.Kind {
		case OpInsertBefore, OpInsertAfter:
			anchorCount[h.Start-1]++
		}
	}

	var ops []rowOp
	var head, tail [][]string
	for i, h := range hunks {
		switch h.Kind {
		case OpReplace:
			r := repls[i]
			if len(r.rows) > 0 {
				ops = append(ops, rowOp{line: r.n, slot: slotReplace, seq: i, rows: r.rows})
			}
		case OpInsertBefore:
			ops = append(ops, rowOp{line: h.Start - 1, slot: slotBefore, seq: i, rows: h.Rows})
		case OpInsertAfter:
			x := h.Start - 1
			if sent && x == L-1 {
				tail = append(tail, h.Rows) // hashls: after the sentinel = tail
				continue
			}
			if h.noRepair {
				ops = append(ops, rowOp{line: x, slot: slotAfter, seq: i, rows: h.Rows})
				continue
			}
			self := x
			landing, count, why := landingShift(d, x, h.Rows, func(y int) bool {
				c := anchorCount[y]
				if y == self {
					c--
				}
				return c > 0 || inDel(y)
			})
			if why != "" {
				perHunk[i] = append(perHunk[i], declinedWarning(h, repairLanding, why))
			}
			if count > 0 {
				res.noteRepair(i, repairLanding)
				perHunk[i] = append(perHunk[i], landingWarning(x+1, count, landing+1))
				x = landing
			}
			ops = append(ops, rowOp{line: x, slot: slotAfter, seq: i, rows: h.Rows})
		case OpInsertHead:
			head = append(head, h.Rows)
		case OpInsertTail:
			tail = append(tail, h.Rows)
		}
	}
	for _, w := range perHunk {
		res.warnings = append(res.warnings, w...)
	}
	// The empty file: head/tail rows replace its single empty line when
	// nothing else touches it; otherwise, as in the reference (which applies
	// head/tail after the anchored edits), its empty line still closes the
	// file and tail rows go before it unless rows were inserted after it.
	emptyTailBefore := false
	if len(d.b) == 0 && (len(head) > 0 || len(tail) > 0) {
		afterOps := false
		for _, o := range ops {
			afterOps = afterOps || o.slot == slotAfter
		}
		switch {
		case len(ops) == 0 && len(dels) == 0:
			dels = append(dels, delRange{0, 0})
		case !inDel(0) && !afterOps:
			emptyTailBefore = true
		}
	}
	sort.SliceStable(ops, func(a, b int) bool {
		if ops[a].line != ops[b].line {
			return ops[a].line < ops[b].line
		}
		if ops[a].slot != ops[b].slot {
			return ops[a].slot < ops[b].slot
		}
		return ops[a].seq < ops[b].seq
	})

	extra := 0
	for _, o := range ops {
		for _, r := range o.rows {
			extra += len(r) + 2
		}
	}
	for _, g := range append(head, tail...) {
		for _, r := range g {
			extra += len(r) + 2
		}
	}
	e := &emitter{out: make([]byte, 0, len(d.b)+len(utf8BOM)+extra)}
	if d.bom {
		e.out = append(e.out, utf8BOM...)
	}
	addRegion := func(os, oe, ns, ne int) {
		if k := len(res.regions); k > 0 && res.regions[k-1].oe == os && res.regions[k-1].ne == ns {
			res.regions[k-1].oe, res.regions[k-1].ne = oe, ne
			return
		}
		res.regions = append(res.regions, region{os, oe, ns, ne})
	}
	if len(head) > 0 {
		ns := e.rows
		for _, g := range head {
			e.strRows(g, d.eff(0))
		}
		addRegion(0, 0, ns, e.rows)
	}
	tailLine := L
	if sent || emptyTailBefore {
		tailLine = L - 1
	}
	tailEnd := d.eff(tailLine - 1)
	if !sent {
		tailEnd = d.eff(L - 1)
	}
	emitTail := func() {
		for _, g := range tail {
			e.strRows(g, tailEnd)
		}
	}

	cur, oi, di := 0, 0, 0
	for cur < L {
		for di < len(dels) && dels[di].e < cur {
			di++
		}
		ev := L
		if oi < len(ops) {
			ev = min(ev, ops[oi].line)
		}
		if di < len(dels) {
			ev = min(ev, max(dels[di].s, cur))
		}
		if len(tail) > 0 && tailLine < L {
			ev = min(ev, tailLine)
		}
		if ev > cur {
			e.copyLines(d, cur, ev)
			cur = ev
			continue
		}
		deleted := di < len(dels) && dels[di].s <= cur
		hasOps := oi < len(ops) && ops[oi].line == cur
		isTail := len(tail) > 0 && cur == tailLine
		ns := e.rows
		if deleted && !hasOps && !isTail {
			end := dels[di].e + 1
			if oi < len(ops) {
				end = min(end, ops[oi].line)
			}
			if len(tail) > 0 && tailLine < L {
				end = min(end, tailLine)
			}
			end = max(end, cur+1)
			addRegion(cur, end, ns, ns)
			cur = end
			continue
		}
		for oi < len(ops) && ops[oi].line == cur && ops[oi].slot != slotAfter {
			e.strRows(ops[oi].rows, d.eff(cur))
			oi++
		}
		if isTail {
			emitTail()
		}
		if !deleted {
			e.row(d.line(cur), d.eff(cur))
		}
		for oi < len(ops) && ops[oi].line == cur {
			e.strRows(ops[oi].rows, d.eff(cur))
			oi++
		}
		addRegion(cur, cur+1, ns, e.rows)
		cur++
	}
	if len(tail) > 0 && tailLine == L {
		ns := e.rows
		emitTail()
		addRegion(L, L, ns, e.rows)
	}
	res.out = e.out
	return res, nil
}

// emitter writes rows, holding back each row's ending until the next row
// arrives so the last row never gets one.
type emitter struct {
	out     []byte
	pending eol
	started bool
	rows    int
}

func (e *emitter) sep() {
	if e.started {
		if e.pending == eolCRLF {
			e.out = append(e.out, '\r', '\n')
		} else {
			e.out = append(e.out, '\n')
		}
	}
	e.started = true
}

func (e *emitter) row(content []byte, end eol) {
	e.sep()
	e.out = append(e.out, content...)
	e.pending = end
	e.rows++
}

func (e *emitter) strRows(rows []string, end eol) {
	for _, r := range rows {
		e.sep()
		e.out = append(e.out, r...)
		e.pending = end
		e.rows++
	}
}

// copyLines copies untouched lines [a, b) keeping their own endings.
func (e *emitter) copyLines(d *doc, a, b int) {
	if a >= b {
		return
	}
	if d.loneCR {
		for i := a; i < b; i++ {
			e.row(d.line(i), d.eff(i))
		}
		return
	}
	e.sep()
	_, end, _ := d.bounds(b - 1)
	e.out = append(e.out, d.b[d.starts[a]:end]...)
	e.pending = d.eff(b - 1)
	e.rows += b - a
}

// sanitizeRow removes carriage returns so a row is exactly one line.
func sanitizeRow(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\r", "")
}
