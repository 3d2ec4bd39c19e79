package edit

import (
	"sort"
	"strconv"
	"strings"

	"github.com/hashls/hashls/internal/lazy"
)

// OpKind is the kind of one hashline op.
type OpKind int

// The nine hashline ops.
const (
	OpReplace OpKind = iota
	OpDelete
	OpInsertBefore
	OpInsertAfter
	OpInsertHead
	OpInsertTail
	OpReplaceBlock
	OpDeleteBlock
	OpInsertAfterBlock
)

func (k OpKind) String() string {
	switch k {
	case OpReplace:
		return "replace"
	case OpDelete:
		return "delete"
	case OpInsertBefore:
		return "insert before"
	case OpInsertAfter:
		return "insert after"
	case OpInsertHead:
		return "insert head"
	case OpInsertTail:
		return "insert tail"
	case OpReplaceBlock:
		return "replace block"
	case OpDeleteBlock:
		return "delete block"
	case OpInsertAfterBlock:
		return "insert after block"
	}
	return "?"
}

func (k OpKind) isBlock() bool {
	return k == OpReplaceBlock || k == OpDeleteBlock || k == OpInsertAfterBlock
}

// Hunk is one parsed op with its body rows.
type Hunk struct {
	Kind       OpKind
	Start, End int      // 1-based inclusive range (Start only for inserts/blocks; 0 for head/tail)
	Rows       []string // body rows (no "+" prefix)
	Line       int      // 1-based line of the op header inside the section body

	noRepair bool // replayed recovery hunk, or a repair the parser declined
	v2       bool // written in the second verb set (SWAP, DEL, INS.*)
}

// Written returns the op header as the caller would write it in the verb
// set the hunk was written in (`delete block 7`, `DEL.BLK 7`), for messages.
func (h Hunk) Written() string {
	n, m := strconv.Itoa(h.Start), strconv.Itoa(h.End)
	rng := n
	if h.End != h.Start {
		if h.v2 {
			rng = n + ".=" + m
		} else {
			rng = n + ".." + m
		}
	}
	if h.v2 {
		switch h.Kind {
		case OpReplace:
			return "SWAP " + rng + ":"
		case OpDelete:
			return "DEL " + rng
		case OpInsertBefore:
			return "INS.PRE " + n + ":"
		case OpInsertAfter:
			return "INS.POST " + n + ":"
		case OpInsertHead:
			return "INS.HEAD:"
		case OpInsertTail:
			return "INS.TAIL:"
		case OpReplaceBlock:
			return "SWAP.BLK " + n + ":"
		case OpDeleteBlock:
			return "DEL.BLK " + n
		case OpInsertAfterBlock:
			return "INS.BLK.POST " + n + ":"
		}
	}
	switch h.Kind {
	case OpReplace:
		return "replace " + rng + ":"
	case OpDelete:
		return "delete " + rng
	case OpInsertBefore, OpInsertAfter, OpReplaceBlock, OpInsertAfterBlock:
		return h.Kind.String() + " " + n + ":"
	case OpDeleteBlock:
		return "delete block " + n
	}
	return h.Kind.String() + ":"
}

// Parsed is a parsed section body.
type Parsed struct {
	Hunks    []Hunk
	Warnings []string
	// Remove is set by a `REM` line: the section deletes its file.
	Remove bool
	// MoveTo is the destination of an `MV DEST` line: the section moves its
	// file there after its line edits.
	MoveTo string
}

const (
	warnBare = "Auto-prefixed bare body row(s) with `+`. Body rows must be `+TEXT` literal lines; pasting raw code as payload is not a portable shape."

	msgPayloadOps = "`replace N..M:`, `delete N..M`, or `insert before|after|head|tail:`"
)

// maxLineNumber saturates absurd line numbers so arithmetic cannot overflow.
const maxLineNumber = 1 << 40

var (
	bodyDiffRe      = lazy.Regexp(`^@@\s+[-+]?\d+(?:,\d+)?\s+[-+]?\d+(?:,\d+)?\s+@@`)
	deleteColonRe   = lazy.Regexp(`^(delete\s+(?:block\s+)?|DEL(?:\.BLK)?\s+)(\d+(?:(?:\s|-|…|\.\.=?|\.=)+\d+)?)\s*:`)
	bareNumberRe    = lazy.Regexp(`^(\d+)\s*$`)
	bareRangeRe     = lazy.Regexp(`^(\d+)(?:\s|-|…|\.\.=?|\.=)+(\d+)\s*:?\s*$`)
	readPrefixRe    = lazy.Regexp(`^\s*(?:>>>?\s*)?[+*-]?\d+:`)
	loneLiteralRe   = lazy.Regexp(`^\s*(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[-+]?\d+(?:\.\d+)?)\s*,?\s*$`)
	applySentinelRe = lazy.Regexp(`^\*\*\* (?:Update File|Add File|Delete File|Move to):`)
)

func lineErr(k int, msg string) *Error {
	return parseErr("line " + strconv.Itoa(k) + ": " + msg)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// opScanner is a tiny cursor over an op header line.
type opScanner struct {
	s string
	i int
}

func (p *opScanner) ws() int {
	n := 0
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
		n++
	}
	return n
}

func (p *opScanner) word(w string) bool {
	if !strings.HasPrefix(p.s[p.i:], w) {
		return false
	}
	j := p.i + len(w)
	if j < len(p.s) && !(p.s[j] == ' ' || p.s[j] == '\t' || p.s[j] == ':') {
		return false
	}
	p.i = j
	return true
}

func (p *opScanner) number() (int, bool) {
	if p.i >= len(p.s) || p.s[p.i] < '1' || p.s[p.i] > '9' {
		return 0, false
	}
	n := 0
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		if n < maxLineNumber {
			n = n*10 + int(p.s[p.i]-'0')
		}
		p.i++
	}
	if n > maxLineNumber {
		n = maxLineNumber
	}
	return n, true
}

// sep consumes a range separator: any mix of whitespace, "-", "…", ".."
// and ".=" (the second verb set's inclusive separator; "..=" too).
func (p *opScanner) sep() bool {
	start := p.i
	for p.i < len(p.s) {
		switch {
		case p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '-':
			p.i++
		case strings.HasPrefix(p.s[p.i:], "..="):
			p.i += 3
		case strings.HasPrefix(p.s[p.i:], ".="):
			p.i += 2
		case strings.HasPrefix(p.s[p.i:], ".."):
			p.i += 2
		case strings.HasPrefix(p.s[p.i:], "…"):
			p.i += len("…")
		default:
			return p.i > start
		}
	}
	return p.i > start
}

func (p *opScanner) rangeSpec() (int, int, bool) {
	n, ok := p.number()
	if !ok {
		return 0, 0, false
	}
	save := p.i
	if p.sep() {
		if m, ok := p.number(); ok {
			return n, m, true
		}
	}
	p.i = save
	return n, n, true
}

// end accepts optional whitespace, an optional colon (when allowed) and
// trailing whitespace up to the end of the line.
func (p *opScanner) end(colon bool) bool {
	p.ws()
	if colon && p.i < len(p.s) && p.s[p.i] == ':' {
		p.i++
		p.ws()
	}
	return p.i == len(p.s)
}

// parseOpHeader parses line as an op header.
func parseOpHeader(line string) (Hunk, bool) {
	p := &opScanner{s: strings.TrimRight(strings.TrimLeft(line, " \t"), "\r")}
	var h Hunk
	if h, ok := p.opV2(); ok {
		h.v2 = true
		return h, true
	}
	p.i = 0
	switch {
	case p.word("replace"):
		if p.ws() == 0 {
			return h, false
		}
		return p.blockOrRange(OpReplace, OpReplaceBlock, true)
	case p.word("delete"):
		if p.ws() == 0 {
			return h, false
		}
		return p.blockOrRange(OpDelete, OpDeleteBlock, false)
	case p.word("insert"):
		if p.ws() == 0 {
			return h, false
		}
		switch {
		case p.word("before"):
			if p.ws() == 0 {
				return h, false
			}
			n, ok := p.number()
			if !ok || !p.end(true) {
				return h, false
			}
			return Hunk{Kind: OpInsertBefore, Start: n, End: n}, true
		case p.word("after"):
			if p.ws() == 0 {
				return h, false
			}
			kind := OpInsertAfter
			if p.word("block") {
				if p.ws() == 0 {
					return h, false
				}
				kind = OpInsertAfterBlock
			}
			n, ok := p.number()
			if !ok || !p.end(true) {
				return h, false
			}
			return Hunk{Kind: kind, Start: n, End: n}, true
		case p.word("head"):
			if !p.end(true) {
				return h, false
			}
			return Hunk{Kind: OpInsertHead}, true
		case p.word("tail"):
			if !p.end(true) {
				return h, false
			}
			return Hunk{Kind: OpInsertTail}, true
		}
	}
	return h, false
}

// blockOrRange parses what follows `replace ` or `delete `: `block N` (kind
// block) or a range (kind plain); colon says whether a trailing ':' may end
// the line.
func (p *opScanner) blockOrRange(plain, block OpKind, colon bool) (Hunk, bool) {
	if p.word("block") {
		if p.ws() == 0 {
			return Hunk{}, false
		}
		n, ok := p.number()
		if !ok || !p.end(colon) {
			return Hunk{}, false
		}
		return Hunk{Kind: block, Start: n, End: n}, true
	}
	n, m, ok := p.rangeSpec()
	if !ok || !p.end(colon) {
		return Hunk{}, false
	}
	return Hunk{Kind: plain, Start: n, End: m}, true
}

// opV2 parses the second verb set: SWAP R:, SWAP.BLK N:, DEL R, DEL.BLK N,
// INS.PRE N:, INS.POST N:, INS.HEAD:, INS.TAIL:, INS.BLK.POST N:. The colon
// is optional where a body follows and forbidden on DEL.
func (p *opScanner) opV2() (Hunk, bool) {
	var h Hunk
	num := func(kind OpKind, colon bool) (Hunk, bool) {
		if p.ws() == 0 {
			return h, false
		}
		n, ok := p.number()
		if !ok || !p.end(colon) {
			return h, false
		}
		return Hunk{Kind: kind, Start: n, End: n}, true
	}
	rng := func(kind OpKind, colon bool) (Hunk, bool) {
		if p.ws() == 0 {
			return h, false
		}
		n, m, ok := p.rangeSpec()
		if !ok || !p.end(colon) {
			return h, false
		}
		return Hunk{Kind: kind, Start: n, End: m}, true
	}
	switch {
	case p.word("SWAP.BLK"):
		return num(OpReplaceBlock, true)
	case p.word("SWAP"):
		return rng(OpReplace, true)
	case p.word("DEL.BLK"):
		return num(OpDeleteBlock, false)
	case p.word("DEL"):
		return rng(OpDelete, false)
	case p.word("INS.PRE"):
		return num(OpInsertBefore, true)
	case p.word("INS.POST"):
		return num(OpInsertAfter, true)
	case p.word("INS.BLK.POST"):
		return num(OpInsertAfterBlock, true)
	case p.word("INS.HEAD"):
		if !p.end(true) {
			return h, false
		}
		return Hunk{Kind: OpInsertHead}, true
	case p.word("INS.TAIL"):
		if !p.end(true) {
			return h, false
		}
		return Hunk{Kind: OpInsertTail}, true
	}
	return h, false
}

// fileOp recognises the section-level ops `REM` and `MV DEST` (DEST as
// written: unquotePath reads it).
func fileOp(line string) (op, dest string, ok bool) {
	t := strings.TrimSpace(line)
	if t == "REM" {
		return "REM", "", true
	}
	rest, found := strings.CutPrefix(t, "MV")
	if !found || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
		return "", "", false
	}
	return "MV", strings.TrimSpace(rest), true
}

func isOpHeader(line string) bool {
	_, ok := parseOpHeader(line)
	return ok
}

func preview48(s string) string {
	if p := truncRunes(s, 48); p != s {
		return p + "…"
	}
	return s
}

// contamination returns the error for apply_patch / unified-diff / verbless
// header shapes, or nil.
func contamination(k int, line string) *Error {
	t := strings.TrimSpace(line)
	if t == "" {
		return nil
	}
	switch {
	case applySentinelRe().MatchString(t):
		return lineErr(k, "apply_patch sentinel "+jsonQuote(preview48(t))+" is not valid in hashline. File sections start with the `¶PATH#TAG` header a read printed (no `Update File:` / `Add File:` keyword). Use "+msgPayloadOps+" ops.")
	case bodyDiffRe().MatchString(t):
		return lineErr(k, "unified-diff hunk header (`@@ -N,M +N,M @@`) is not valid in hashline. Use "+msgPayloadOps+" ops.")
	case strings.HasPrefix(t, "@@"):
		return lineErr(k, "`@@`-bracketed hunk header "+jsonQuote(preview48(t))+" is not valid in hashline. Drop the `@@ ... @@` brackets and write a verb header such as `replace N..M:`.")
	case deleteColonRe().MatchString(t):
		m := deleteColonRe().FindStringSubmatch(t)
		verb := strings.Join(strings.Fields(m[1]), " ")
		switch verb {
		case "delete":
			return lineErr(k, "`delete N..M` has no colon and no body. Remove the colon and body rows.")
		case "DEL":
			return lineErr(k, "`DEL N.=M` has no colon and no body. Remove the colon and body rows.")
		case "delete block":
			return lineErr(k, "`delete block "+m[2]+"` has no colon and no body. Remove the colon and body rows, or use `replace block "+m[2]+":` to replace the block.")
		default:
			return lineErr(k, "`DEL.BLK "+m[2]+"` has no colon and no body. Remove the colon and body rows, or use `SWAP.BLK "+m[2]+":` to replace the block.")
		}
	}
	if m := bareNumberRe().FindStringSubmatch(t); m != nil {
		return lineErr(k, "hunk headers need a verb. Use `replace "+m[1]+".."+m[1]+":` to replace, or `delete "+m[1]+"` to delete.")
	}
	if m := bareRangeRe().FindStringSubmatch(t); m != nil {
		return lineErr(k, "bare range hunk header "+jsonQuote(t)+" is not valid. Hunk headers need a verb: write `replace "+m[1]+".."+m[2]+":` or `delete "+m[1]+".."+m[2]+"`.")
	}
	return nil
}

// ParseBody parses the ops of one section body (reference §3).
func ParseBody(body string) (*Parsed, error) {
	lines := strings.Split(body, "\n")
	p := &bodyParser{out: &Parsed{}}
	for i := range lines {
		stop, err := p.line(lines, i)
		if err != nil {
			return nil, err
		}
		if stop {
			break
		}
	}
	if err := p.flush(); err != nil {
		return nil, err
	}
	out := p.out
	if out.Remove && (len(out.Hunks) > 0 || out.MoveTo != "") {
		return nil, parseErr("`REM` deletes the section's file, so it cannot be combined with line edits or `MV` in the same section. Drop the other ops, or drop `REM`.")
	}
	if err := checkOverlap(out.Hunks); err != nil {
		return nil, err
	}
	return out, nil
}

// bodyParser is ParseBody's state between lines.
type bodyParser struct {
	out         *Parsed
	bareWarned  bool
	cur         *Hunk // the hunk whose body rows are being read
	bodyStarted bool
	held        []string // blank lines after the body started, kept verbatim
	bare        []int    // indices of bare rows in cur.Rows
}

func (p *bodyParser) warnBareOnce() {
	if !p.bareWarned {
		p.bareWarned = true
		p.out.Warnings = append(p.out.Warnings, warnBare)
	}
}

// flush ends the current hunk, if any.
func (p *bodyParser) flush() *Error {
	if p.cur == nil {
		return nil
	}
	h := p.cur
	p.cur = nil
	if len(p.bare) > 0 {
		stripReadPrefixes(h.Rows, p.bare)
	}
	p.bare = p.bare[:0]
	p.held = p.held[:0]
	p.bodyStarted = false
	if len(h.Rows) == 0 {
		switch h.Kind {
		case OpInsertBefore, OpInsertAfter, OpInsertHead, OpInsertTail, OpInsertAfterBlock:
			if h.v2 {
				return lineErr(h.Line, "`"+h.Written()+"` needs at least one `+TEXT` body row.")
			}
			return lineErr(h.Line, "`insert` needs at least one `+TEXT` body row.")
		case OpReplaceBlock:
			if h.v2 {
				return lineErr(h.Line, "`"+h.Written()+"` needs at least one `+TEXT` body row. To delete the block, use `DEL.BLK "+strconv.Itoa(h.Start)+"`.")
			}
			return lineErr(h.Line, "`replace block N:` needs at least one `+TEXT` body row. To delete a block, use `delete N..M` with the block's line range.")
		}
	}
	p.out.Hunks = append(p.out.Hunks, *h)
	return nil
}

// addRow adds a body row to the current hunk (isBare: written without its
// `+`), with the blank lines held before it.
func (p *bodyParser) addRow(text string, isBare bool) {
	if len(p.held) > 0 {
		for _, b := range p.held {
			p.cur.Rows = append(p.cur.Rows, sanitizeRow(b))
		}
		p.held = p.held[:0]
		p.warnBareOnce()
	}
	if isBare {
		p.bare = append(p.bare, len(p.cur.Rows))
		p.warnBareOnce()
	}
	p.cur.Rows = append(p.cur.Rows, sanitizeRow(text))
	p.bodyStarted = true
}

// line reads lines[i], line k of the body. stop is set at an envelope's
// end.
func (p *bodyParser) line(lines []string, i int) (stop bool, err error) {
	k, line := i+1, strings.TrimSuffix(lines[i], "\r")
	if strings.TrimSpace(line) == "" {
		if p.cur != nil && p.bodyStarted && p.cur.Kind != OpDelete && p.cur.Kind != OpDeleteBlock {
			p.held = append(p.held, line)
		}
		return false, nil
	}
	switch envelope(line) {
	case envBegin:
		return false, nil
	case envEnd, envAbort:
		return true, nil
	}
	if op, written, ok := fileOp(line); ok {
		return false, p.fileOp(k, op, written)
	}
	if h, ok := parseOpHeader(line); ok {
		if err := p.flush(); err != nil {
			return false, err
		}
		if h.End < h.Start {
			return false, lineErr(k, "range "+strconv.Itoa(h.Start)+".."+strconv.Itoa(h.End)+" ends before it starts.")
		}
		h.Line = k
		p.cur = &h
		return false, nil
	}
	if line[0] == '+' {
		if p.cur == nil {
			return false, lineErr(k, "payload line has no preceding hunk header. Got "+jsonQuote(line)+".")
		}
		if err := deleteBodyErr(k, *p.cur); err != nil {
			return false, err
		}
		p.addRow(line[1:], false)
		return false, nil
	}
	// Raw line.
	if p.cur == nil && strings.HasPrefix(strings.TrimLeft(line, " \t"), "#") &&
		i+1 < len(lines) && isOpHeader(lines[i+1]) {
		return false, nil // a comment line right above the first op header
	}
	if err := contamination(k, line); err != nil {
		return false, err
	}
	if p.cur == nil {
		return false, lineErr(k, "payload line has no preceding hunk header. Use "+msgPayloadOps+" above the body. Got "+jsonQuote(line)+".")
	}
	if err := deleteBodyErr(k, *p.cur); err != nil {
		return false, err
	}
	if strings.HasPrefix(strings.TrimLeft(line, " \t"), "-") {
		return false, lineErr(k, "`-` rows are not valid; hashline ranges already name the lines being changed. To insert a literal line starting with `-`, write `+-…`.")
	}
	p.addRow(line, true)
	return false, nil
}

// fileOp reads a REM or MV line (k); written is MV's destination as
// written (unquotePath reads it).
func (p *bodyParser) fileOp(k int, op, written string) error {
	if err := p.flush(); err != nil {
		return err
	}
	out := p.out
	dest, qerr := unquotePath(written)
	switch {
	case qerr != nil:
		return lineErr(k, "`MV` destination "+jsonQuote(truncRunes(written, 120))+" does not read: "+qerr.Error()+".")
	case op == "REM" && out.Remove:
		return lineErr(k, "`REM` is given twice; one `REM` deletes the file.")
	case op == "MV" && out.MoveTo != "":
		return lineErr(k, "`MV` is given twice ("+jsonQuote(out.MoveTo)+" and "+jsonQuote(dest)+"); a section moves its file once.")
	case op == "MV" && strings.TrimSpace(dest) == "":
		return lineErr(k, "`MV` needs a destination path: `MV new/path.ts` (quote it when it has spaces).")
	case op == "MV" && strings.ContainsRune(dest, 0):
		return lineErr(k, "`MV` destination "+jsonQuote(dest)+" is not a valid path.")
	}
	if op == "REM" {
		out.Remove = true
	} else {
		out.MoveTo = dest
	}
	return nil
}

func deleteBodyErr(k int, h Hunk) *Error {
	switch {
	case h.v2 && h.Kind == OpDelete:
		sw := h
		sw.Kind = OpReplace
		return lineErr(k, "`"+h.Written()+"` does not take body rows. Remove the body, or use `"+sw.Written()+"`.")
	case h.v2 && h.Kind == OpDeleteBlock:
		return lineErr(k, "`"+h.Written()+"` does not take body rows. Remove the body, or use `SWAP.BLK "+strconv.Itoa(h.Start)+":` to replace the block.")
	case h.Kind == OpDelete:
		return lineErr(k, "`delete N..M` does not take body rows. Remove the body, or use `replace N..M:`.")
	case h.Kind == OpDeleteBlock:
		return lineErr(k, "`delete block N` does not take body rows. Remove the body, or use `replace block N:` to replace the block.")
	}
	return nil
}

// stripReadPrefixes removes one read-output prefix ("12:") from every bare
// row when all non-blank bare rows carry one (and they are not a
// numeric-keyed literal list).
func stripReadPrefixes(rows []string, bare []int) {
	n := 0
	allLiteral := true
	for _, i := range bare {
		r := rows[i]
		if strings.TrimSpace(r) == "" {
			continue
		}
		loc := readPrefixRe().FindStringIndex(r)
		if loc == nil {
			return
		}
		n++
		if !loneLiteralRe().MatchString(r[loc[1]:]) {
			allLiteral = false
		}
	}
	if n == 0 || allLiteral {
		return
	}
	for _, i := range bare {
		if loc := readPrefixRe().FindStringIndex(rows[i]); loc != nil {
			rows[i] = rows[i][loc[1]:]
		}
	}
}

type claim struct{ start, end, line int }

// checkOverlap rejects two replace/delete hunks claiming the same source line.
func checkOverlap(hunks []Hunk) *Error {
	var claimed []claim // sorted, disjoint
	for _, h := range hunks {
		if h.Kind != OpReplace && h.Kind != OpDelete {
			continue
		}
		i := sort.Search(len(claimed), func(j int) bool { return claimed[j].end >= h.Start })
		if i < len(claimed) && claimed[i].start <= h.End {
			l := max(h.Start, claimed[i].start)
			return &Error{Kind: KindApply, Msg: "line " + strconv.Itoa(h.Line) + ": anchor line " + strconv.Itoa(l) + " is already targeted by another hunk on line " + strconv.Itoa(claimed[i].line) + ". Issue ONE hunk per range; payload is only the final desired content, never a before/after pair."}
		}
		claimed = append(claimed, claim{})
		copy(claimed[i+1:], claimed[i:])
		claimed[i] = claim{h.Start, h.End, h.Line}
	}
	return nil
}
