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
	repairs map[int][]repairKind
}

// repairKind is one of the auto-repairs.
type repairKind int

const (
	repairEcho    repairKind = iota // a replacement's boundary echo dropped
	repairBalance                   // a replacement's delimiter balance restored
	repairLanding                   // an insert after a block's last line moved past its closers
)

// String is the repair's name, as the declined-repair warning gives it.
func (k repairKind) String() string {
	switch k {
	case repairEcho:
		return "boundary echo"
	case repairBalance:
		return "delimiter balance"
	default:
		return "insert-after landing shift"
	}
}

// repairNames joins the names of repairs for a warning.
func repairNames(repairs []repairKind) string {
	names := make([]string, len(repairs))
	for i, k := range repairs {
		names[i] = k.String()
	}
	return strings.Join(names, ", ")
}

func (a *applied) noteRepair(i int, kind repairKind) {
	if a.repairs == nil {
		a.repairs = map[int][]repairKind{}
	}
	a.repairs[i] = append(a.repairs[i], kind)
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

// applyPlain applies block-free hunks to d (reference §4, §6): it plans
// the change (planPlain: repairs, deletions, rows to insert) and then walks
// the lines once to write the new content (plainPlan.emit).
func applyPlain(d *doc, hunks []Hunk) (*applied, *Error) {
	if err := checkBounds(d, hunks); err != nil {
		return nil, err
	}
	res := &applied{}
	p := planPlain(d, hunks, res)
	p.emit(d, res)
	return res, nil
}

// plainPlan is what applying block-free hunks to a doc does, decided before
// any row is written.
type plainPlan struct {
	dels       []delRange // deleted lines, sorted, overlaps merged
	ops        []rowOp    // rows inserted at lines, in line, slot and hunk order
	head, tail [][]string // rows of insert head: and insert tail:
	// emptyTailBefore: the file is empty, and tail rows go before its
	// single empty line.
	emptyTailBefore bool
}

// inDel reports whether line x (0-based) is deleted.
func (p *plainPlan) inDel(x int) bool {
	i := sort.Search(len(p.dels), func(j int) bool { return p.dels[j].e >= x })
	return i < len(p.dels) && p.dels[i].s <= x
}

// planPlain plans hunks over d: it runs the repairs (noting them and their
// warnings in res), and orders the deletions and the inserted rows.
func planPlain(d *doc, hunks []Hunk, res *applied) *plainPlan {
	perHunk := make([][]string, len(hunks))
	repls, dels := plainReplacements(d, hunks, res, perHunk)
	p := &plainPlan{dels: mergeDels(dels)}
	p.insertions(d, hunks, repls, res, perHunk)
	for _, w := range perHunk {
		res.warnings = append(res.warnings, w...)
	}
	// The empty file: head/tail rows replace its single empty line when
	// nothing else touches it; otherwise, as in the reference (which applies
	// head/tail after the anchored edits), its empty line still closes the
	// file and tail rows go before it unless rows were inserted after it.
	if len(d.b) == 0 && (len(p.head) > 0 || len(p.tail) > 0) {
		afterOps := false
		for _, o := range p.ops {
			afterOps = afterOps || o.slot == slotAfter
		}
		switch {
		case len(p.ops) == 0 && len(p.dels) == 0:
			p.dels = append(p.dels, delRange{0, 0})
		case !p.inDel(0) && !afterOps:
			p.emptyTailBefore = true
		}
	}
	sort.SliceStable(p.ops, func(a, b int) bool {
		if p.ops[a].line != p.ops[b].line {
			return p.ops[a].line < p.ops[b].line
		}
		if p.ops[a].slot != p.ops[b].slot {
			return p.ops[a].slot < p.ops[b].slot
		}
		return p.ops[a].seq < p.ops[b].seq
	})
	return p
}

// repairedRange is a replace hunk's range after repair (0-based inclusive)
// and its rows.
type repairedRange struct {
	n, m int
	rows []string
}

// plainReplacements repairs the replace hunks (the repairs run and declined
// noted in res and perHunk) and lists the lines replace and delete hunks
// remove.
func plainReplacements(d *doc, hunks []Hunk, res *applied, perHunk [][]string) ([]repairedRange, []delRange) {
	repls := make([]repairedRange, len(hunks))
	var dels []delRange
	total := editBalance(d, hunks)
	for i, h := range hunks {
		switch h.Kind {
		case OpReplace:
			n, m := h.Start-1, h.End-1
			rows := h.Rows
			if len(rows) > 0 && !h.noRepair {
				var done []repaired
				var no *decline
				m, rows, done, no = repairReplacement(d, n, m, rows, &total)
				for _, r := range done {
					perHunk[i] = append(perHunk[i], r.warning)
				}
				if no != nil {
					perHunk[i] = append(perHunk[i], declinedWarning(h, no.repair.String(), no.why))
				}
				for _, r := range done {
					res.noteRepair(i, r.kind)
				}
			}
			repls[i] = repairedRange{n, m, rows}
			if m >= n {
				dels = append(dels, delRange{n, m})
			}
		case OpDelete:
			dels = append(dels, delRange{h.Start - 1, h.End - 1})
		}
	}
	return repls, dels
}

// mergeDels sorts deleted ranges and merges the overlapping ones (block ops
// may overlap plain ones).
func mergeDels(dels []delRange) []delRange {
	sort.Slice(dels, func(a, b int) bool { return dels[a].s < dels[b].s })
	merged := dels[:0]
	for _, r := range dels {
		if k := len(merged); k > 0 && r.s <= merged[k-1].e+1 {
			merged[k-1].e = max(merged[k-1].e, r.e)
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

// insertions lists the rows each hunk inserts (repls: the replacements
// after repair), running the landing shift of inserts after a line.
func (p *plainPlan) insertions(d *doc, hunks []Hunk, repls []repairedRange, res *applied, perHunk [][]string) {
	L := d.n()
	sent := d.hasSentinel()
	// Lines anchored by inserts (for the landing-shift "targeted" rule).
	anchorCount := map[int]int{}
	for _, h := range hunks {
		switch h.Kind {
		case OpInsertBefore, OpInsertAfter:
			anchorCount[h.Start-1]++
		}
	}
	for i, h := range hunks {
		switch h.Kind {
		case OpReplace:
			r := repls[i]
			if len(r.rows) > 0 {
				p.ops = append(p.ops, rowOp{line: r.n, slot: slotReplace, seq: i, rows: r.rows})
			}
		case OpInsertBefore:
			p.ops = append(p.ops, rowOp{line: h.Start - 1, slot: slotBefore, seq: i, rows: h.Rows})
		case OpInsertAfter:
			x := h.Start - 1
			if sent && x == L-1 {
				p.tail = append(p.tail, h.Rows) // hashls: after the sentinel = tail
				continue
			}
			if h.noRepair {
				p.ops = append(p.ops, rowOp{line: x, slot: slotAfter, seq: i, rows: h.Rows})
				continue
			}
			self := x
			landing, count, why := landingShift(d, x, h.Rows, func(y int) bool {
				c := anchorCount[y]
				if y == self {
					c--
				}
				return c > 0 || p.inDel(y)
			})
			if why != "" {
				perHunk[i] = append(perHunk[i], declinedWarning(h, repairLanding.String(), why))
			}
			if count > 0 {
				res.noteRepair(i, repairLanding)
				perHunk[i] = append(perHunk[i], landingWarning(x+1, count, landing+1))
				x = landing
			}
			p.ops = append(p.ops, rowOp{line: x, slot: slotAfter, seq: i, rows: h.Rows})
		case OpInsertHead:
			p.head = append(p.head, h.Rows)
		case OpInsertTail:
			p.tail = append(p.tail, h.Rows)
		}
	}
}

// emit writes the plan's new content and the regions that map old lines
// to new rows into res: head rows, one walk over d's lines (walk), then
// tail rows after the last line.
func (p *plainPlan) emit(d *doc, res *applied) {
	L := d.n()
	sent := d.hasSentinel()
	e := &emitter{out: make([]byte, 0, len(d.b)+len(utf8BOM)+p.rowBytes())}
	if d.bom {
		e.out = append(e.out, utf8BOM...)
	}
	if len(p.head) > 0 {
		ns := e.rows
		for _, g := range p.head {
			e.strRows(g, d.eff(0))
		}
		res.addRegion(0, 0, ns, e.rows)
	}
	tailLine := L
	if sent || p.emptyTailBefore {
		tailLine = L - 1
	}
	tailEnd := d.eff(tailLine - 1)
	if !sent {
		tailEnd = d.eff(L - 1)
	}
	p.walk(d, e, res, tailLine, tailEnd)
	if len(p.tail) > 0 && tailLine == L {
		ns := e.rows
		p.emitTail(e, tailEnd)
		res.addRegion(L, L, ns, e.rows)
	}
	res.out = e.out
}

// rowBytes bounds the bytes the plan's rows add (each with a CRLF).
func (p *plainPlan) rowBytes() int {
	extra := 0
	for _, o := range p.ops {
		for _, r := range o.rows {
			extra += len(r) + 2
		}
	}
	for _, g := range append(p.head, p.tail...) {
		for _, r := range g {
			extra += len(r) + 2
		}
	}
	return extra
}

// emitTail writes the tail rows, ended as tailEnd.
func (p *plainPlan) emitTail(e *emitter, tailEnd eol) {
	for _, g := range p.tail {
		e.strRows(g, tailEnd)
	}
}

// addRegion maps old lines [os, oe) to new rows [ns, ne), joining it to
// the last region when they touch.
func (a *applied) addRegion(os, oe, ns, ne int) {
	if k := len(a.regions); k > 0 && a.regions[k-1].oe == os && a.regions[k-1].ne == ns {
		a.regions[k-1].oe, a.regions[k-1].ne = oe, ne
		return
	}
	a.regions = append(a.regions, region{os, oe, ns, ne})
}

// walk is the merge walk: it copies d's lines that nothing touches in
// runs, skips deleted ones and writes the planned rows before, in place of
// and after their lines (the tail rows at tailLine when it is a line).
func (p *plainPlan) walk(d *doc, e *emitter, res *applied, tailLine int, tailEnd eol) {
	L := d.n()
	ops, dels, tail := p.ops, p.dels, p.tail
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
			res.addRegion(cur, end, ns, ns)
			cur = end
			continue
		}
		for oi < len(ops) && ops[oi].line == cur && ops[oi].slot != slotAfter {
			e.strRows(ops[oi].rows, d.eff(cur))
			oi++
		}
		if isTail {
			p.emitTail(e, tailEnd)
		}
		if !deleted {
			e.row(d.line(cur), d.eff(cur))
		}
		for oi < len(ops) && ops[oi].line == cur {
			e.strRows(ops[oi].rows, d.eff(cur))
			oi++
		}
		res.addRegion(cur, cur+1, ns, e.rows)
		cur++
	}
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
