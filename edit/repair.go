package edit

import (
	"bytes"
	"strconv"
	"strings"
)

// balance counts (), [] and {}: openers minus closers per kind.
type balance [3]int

func (b balance) add(o balance) balance { return balance{b[0] + o[0], b[1] + o[1], b[2] + o[2]} }
func (b balance) sub(o balance) balance { return balance{b[0] - o[0], b[1] - o[1], b[2] - o[2]} }
func (b balance) neg() balance          { return balance{-b[0], -b[1], -b[2]} }
func (b balance) zero() bool            { return b == balance{} }

const (
	scanCode = iota
	scanBlockComment
	scanDQ
	scanSQ
	scanTemplate
)

// balScanner counts delimiters, skipping // and /* */ comments, "..." and
// '...' strings (reset at end of line) and `...` templates (multi-line).
type balScanner struct {
	state int
	b     balance
}

func (s *balScanner) line(l string) { scanLine(s, l) }

// scanLine is s.line on a string or on a line of a file's bytes (not
// copied to a string).
func scanLine[T ~string | ~[]byte](s *balScanner, l T) {
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch s.state {
		case scanBlockComment:
			if c == '*' && i+1 < len(l) && l[i+1] == '/' {
				s.state = scanCode
				i++
			}
		case scanDQ, scanSQ, scanTemplate:
			q := byte('"')
			if s.state == scanSQ {
				q = '\''
			} else if s.state == scanTemplate {
				q = '`'
			}
			if c == '\\' {
				i++
			} else if c == q {
				s.state = scanCode
			}
		default:
			switch c {
			case '/':
				if i+1 < len(l) && l[i+1] == '/' {
					i = len(l)
				} else if i+1 < len(l) && l[i+1] == '*' {
					s.state = scanBlockComment
					i++
				}
			case '"':
				s.state = scanDQ
			case '\'':
				s.state = scanSQ
			case '`':
				s.state = scanTemplate
			case '(':
				s.b[0]++
			case ')':
				s.b[0]--
			case '[':
				s.b[1]++
			case ']':
				s.b[1]--
			case '{':
				s.b[2]++
			case '}':
				s.b[2]--
			}
		}
	}
	if s.state == scanDQ || s.state == scanSQ {
		s.state = scanCode
	}
}

// balanceOf counts the delimiters of rows that start in scanner state
// state (scanCode, or inside a block comment or a template the file opened
// above them: see stateAt).
func balanceOf(state int, rows []string) balance {
	s := balScanner{state: state}
	for _, r := range rows {
		s.line(r)
	}
	return s.b
}

// stateAt is the scanner's state at the start of line i (0-based; past
// the end: at the end of the file), scanning the file from its first line:
// delimiters in a block comment or a multi-line template that began above
// a range are text, not structure.
func (d *doc) stateAt(i int) int {
	if d.scan == nil {
		d.scan = make([]uint8, d.n()+1)
		state := scanCode
		next := newStateByteFinder(d.b)
		for k := 0; k < d.n(); k++ {
			d.scan[k] = uint8(state)
			s, e, _ := d.bounds(k)
			if state == scanCode && next.from(s) >= e {
				continue // nothing on the line can leave code
			}
			state = lineState(state, d.b[s:e])
		}
		d.scan[d.n()] = uint8(state)
	}
	return int(d.scan[max(0, min(i, d.n()))])
}

// stateByteFinder finds the next byte of b that can change balScanner's
// state in code (a slash, a quote or a backquote), keeping each one's next
// place, so that a line without any costs a comparison (bytes.IndexByte
// runs once per occurrence, not per line).
type stateByteFinder struct {
	b   []byte
	pos [4]int // each byte's next place found (len(b): none left); -1 before the first call
}

func newStateByteFinder(b []byte) *stateByteFinder {
	return &stateByteFinder{b: b, pos: [4]int{-1, -1, -1, -1}}
}

// from returns the place of the first such byte at or after i (len(b):
// none); i never decreases from one call to the next.
func (f *stateByteFinder) from(i int) int {
	first := len(f.b)
	for k, c := range [4]byte{'/', '"', '\'', '`'} {
		if f.pos[k] < i {
			f.pos[k] = len(f.b)
			if j := bytes.IndexByte(f.b[i:], c); j >= 0 {
				f.pos[k] = i + j
			}
		}
		first = min(first, f.pos[k])
	}
	return first
}

// stateBytes are the bytes that can change balScanner's state in code.
var stateBytes = [256]bool{'/': true, '"': true, '\'': true, '`': true}

// lineState is the state balScanner.line leaves after line l, begun in
// state: the same walk without the counts, which skips the bytes that
// cannot change the state (every file's whole text is walked once for
// stateAt, so this is what an edit of a large file pays).
func lineState(state int, l []byte) int {
	for i := 0; i < len(l); i++ {
		switch state {
		case scanBlockComment:
			j := bytes.IndexByte(l[i:], '*')
			if j < 0 {
				return state
			}
			i += j
			if i+1 < len(l) && l[i+1] == '/' {
				state = scanCode
				i++
			}
		case scanDQ, scanSQ, scanTemplate:
			q := byte('"')
			if state == scanSQ {
				q = '\''
			} else if state == scanTemplate {
				q = '`'
			}
			for i < len(l) && l[i] != q && l[i] != '\\' {
				i++
			}
			if i == len(l) {
				break
			}
			if l[i] == '\\' {
				i++
			} else {
				state = scanCode
			}
		default:
			for i < len(l) && !stateBytes[l[i]] {
				i++
			}
			if i == len(l) {
				break
			}
			switch l[i] {
			case '/':
				if i+1 < len(l) && l[i+1] == '/' {
					i = len(l)
				} else if i+1 < len(l) && l[i+1] == '*' {
					state = scanBlockComment
					i++
				}
			case '"':
				state = scanDQ
			case '\'':
				state = scanSQ
			case '`':
				state = scanTemplate
			}
		}
	}
	if state == scanDQ || state == scanSQ {
		state = scanCode
	}
	return state
}

func (d *doc) balanceRange(s, e int) balance { // 0-based inclusive
	sc := balScanner{state: d.stateAt(s)}
	for i := s; i <= e && i < d.n(); i++ {
		scanLine(&sc, d.line(i))
	}
	return sc.b
}

// isCloser reports whether s is a pure structural closer line: the
// reference's /^\s*[)\]}]+[;,]?\s*$/.
func isCloser(s string) bool {
	s = strings.Trim(s, " \t\n\v\f\r")
	i := 0
	for i < len(s) && (s[i] == ')' || s[i] == ']' || s[i] == '}') {
		i++
	}
	if i == 0 {
		return false
	}
	if i < len(s) && (s[i] == ';' || s[i] == ',') {
		i++
	}
	return i == len(s)
}

func hasNonSpace(rows []string) bool {
	for _, r := range rows {
		if strings.TrimSpace(r) != "" {
			return true
		}
	}
	return false
}

// rowsMatch reports whether rows equal doc lines from (0-based) line at.
func (d *doc) rowsMatch(rows []string, at int) bool {
	if at < 0 || at+len(rows) > d.n() {
		return false
	}
	for i, r := range rows {
		if string(d.line(at+i)) != r {
			return false
		}
	}
	return true
}

// maxEcho bounds the echo searches so pathological payloads stay linear-ish.
const maxEcho = 512

// towardZero reports whether changing a total balance by delta moves it
// toward zero: no kind of delimiter further from balanced, one closer.
func towardZero(total, delta balance) bool {
	if delta.zero() {
		return false
	}
	abs := func(x int) int {
		if x < 0 {
			return -x
		}
		return x
	}
	for k := range total {
		if abs(total[k]+delta[k]) > abs(total[k]) {
			return false
		}
	}
	return true
}

// editBalance is what the block-free hunks as written change in the
// file's delimiter balance: the rows they write less the lines they
// remove. A correct edit of a file keeps it (real history does); an edit
// whose restated or dropped bracket lines break it does not.
func editBalance(d *doc, hunks []Hunk) balance {
	var t balance
	for _, h := range hunks {
		switch h.Kind {
		case OpReplace, OpDelete:
			s, e := max(h.Start-1, 0), min(h.End-1, d.n()-1)
			if s <= e {
				t = t.sub(d.balanceRange(s, e))
			}
		}
		switch h.Kind {
		case OpReplace, OpInsertBefore:
			t = t.add(balanceOf(d.stateAt(h.Start-1), h.Rows))
		case OpInsertAfter:
			t = t.add(balanceOf(d.stateAt(h.Start), h.Rows))
		case OpInsertHead:
			t = t.add(balanceOf(scanCode, h.Rows))
		case OpInsertTail:
			t = t.add(balanceOf(d.stateAt(d.n()), h.Rows))
		}
	}
	return t
}

// decline names a repair the reference would run that hashls declined,
// and why (the text after "at line N: " in the warning).
type decline struct {
	repair repairKind
	why    string
}

// repaired is a repair that changed a hunk, and the warning saying so.
type repaired struct {
	kind    repairKind
	warning string
}

// declinedBalance is why a delimiter-balance repair (or a boundary echo
// that drops bracket lines) is declined: the edit as a whole does not
// break the file's balance, so nothing proves this hunk wrong.
const declinedBalance = "the edit as a whole leaves the file's brackets as balanced as before (its other hunks make up for this one), so nothing shows the brackets as written are wrong"

// repairReplacement runs the boundary-echo and delimiter-balance repairs on
// one replacement of lines n..m (0-based inclusive). It returns the new range
// end (m may shrink when closers are kept) and rows, the repairs it ran
// (each with its warning), and the repair the reference would run that was
// declined, with why (nil when none was).
//
// A repair changes only an edit that is broken as written: one that
// changes a delimiter count (drops or keeps bracket lines) runs only when
// the edit as a whole unbalances the file (total, what editBalance says
// of all its hunks) and the repair brings that total toward balanced; it
// then updates total. A boundary echo that drops balance-neutral rows
// needs its two-sided evidence only (rows that restate the lines on both
// sides of the range).
func repairReplacement(d *doc, n, m int, rows []string, total *balance) (int, []string, []repaired, *decline) {
	var warns []repaired
	var declined *decline
	R := len(rows)
	// Rows are scanned in the state of the lines they stand for: the
	// range's first line, or the lines above or below it they restate.
	st := d.stateAt(n)
	orig := d.balanceRange(n, m)
	delta := balanceOf(st, rows).sub(orig)

	// Boundary echo.
	a := 0
	for c := min(R-1, n, maxEcho); c >= 1; c-- {
		if hasNonSpace(rows[:c]) && d.rowsMatch(rows[:c], n-c) {
			a = c
			break
		}
	}
	b := 0
	if a > 0 {
		for c := min(R-1, d.n()-1-m, maxEcho); c >= 1; c-- {
			if hasNonSpace(rows[R-c:]) && d.rowsMatch(rows[R-c:], m+1) {
				b = c
				break
			}
		}
	}
	if a > 0 && b > 0 && a+b < R {
		dropped := balanceOf(d.stateAt(n-a), rows[:a]).add(balanceOf(d.stateAt(m+1), rows[R-b:]))
		switch {
		case dropped.zero() || (dropped == delta && towardZero(*total, dropped.neg())):
			*total = total.sub(dropped)
			rows = rows[a : R-b]
			R = len(rows)
			warns = append(warns, repaired{repairEcho, "Auto-repaired a replacement boundary echo at line " + strconv.Itoa(n+1) + ": dropped " +
				strconv.Itoa(a) + " leading and " + strconv.Itoa(b) + " trailing payload line(s) already present outside the range. Issue the payload as the final desired content for the selected range only — never restate unchanged lines bordering the range."})
			delta = balanceOf(st, rows).sub(orig)
		case dropped == delta:
			declined = &decline{repairEcho, declinedBalance}
		}
	}
	if delta.zero() || R == 0 {
		return m, rows, warns, declined
	}
	balWarn := func(action string) {
		warns = append(warns, repaired{repairBalance, "Auto-repaired a delimiter-balance mismatch in the replacement at line " + strconv.Itoa(n+1) + ": " + action +
			". Issue the payload as the final desired content only — never restate or omit a closing bracket bordering the range."})
	}
	proven := towardZero(*total, delta.neg())
	refuse := func() (int, []string, []repaired, *decline) {
		return m, rows, warns, &decline{repairBalance, declinedBalance}
	}
	for k := min(R-1, d.n()-1-m, maxEcho); k >= 1; k-- {
		if d.rowsMatch(rows[R-k:], m+1) && balanceOf(d.stateAt(m+1), rows[R-k:]) == delta {
			if !proven {
				return refuse()
			}
			*total = total.sub(delta)
			balWarn("dropped " + strconv.Itoa(k) + " duplicated trailing payload line(s) already present below the range")
			return m, rows[:R-k], warns, declined
		}
	}
	for j := min(R-1, n, maxEcho); j >= 1; j-- {
		if d.rowsMatch(rows[:j], n-j) && balanceOf(d.stateAt(n-j), rows[:j]) == delta {
			if !proven {
				return refuse()
			}
			*total = total.sub(delta)
			balWarn("dropped " + strconv.Itoa(j) + " duplicated leading payload line(s) already present above the range")
			return m, rows[j:], warns, declined
		}
	}
	want := delta.neg()
	for c := 1; c <= m-n+1 && c <= maxEcho; c++ {
		if !isCloser(string(d.line(m - c + 1))) {
			break
		}
		if d.balanceRange(m-c+1, m) == want {
			if !proven {
				return refuse()
			}
			*total = total.sub(delta)
			balWarn("kept " + strconv.Itoa(c) + " structural closing line(s) the range deleted without restating")
			return m - c, rows, warns, declined
		}
	}
	return m, rows, warns, declined
}

func indentOf(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[:i]
}

// bodyDepth returns the indentation the rows claim, or ok=false.
func bodyDepth(rows []string) (string, bool) {
	ind := ""
	seen := false
	allClosers := true
	for _, r := range rows {
		if depthless(r) {
			continue
		}
		if !isCloser(r) {
			allClosers = false
		}
		in := indentOf(r)
		switch {
		case !seen:
			ind, seen = in, true
		case strings.HasPrefix(in, ind):
		case strings.HasPrefix(ind, in):
			ind = in
		default:
			return "", false
		}
	}
	if !seen || allClosers {
		return "", false
	}
	return ind, true
}

// depthless reports whether a row's indentation says nothing about how
// deep it is nested: a blank row, or one that begins with `#` (a C
// preprocessor directive; a comment in Python and shells) or `//` or `/*`
// (a comment), which are often written at column 0 at any depth.
func depthless(s string) bool {
	t := strings.TrimLeft(s, " \t")
	return strings.TrimSpace(t) == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*")
}

// opensBlock reports whether a row ends with an opening bracket.
func opensBlock(s string) bool {
	t := strings.TrimRight(s, " \t")
	return t != "" && strings.ContainsRune("{([", rune(t[len(t)-1]))
}

// maxLandingScan bounds how far the landing scan walks (blank lines and
// closers only, so real code never gets near it).
const maxLandingScan = 4096

// declinedLanding is why a landing shift is declined: the body as written
// already fits where it was put.
const declinedLanding = "the body's last line is indented as deep as the line it follows, or deeper than the closing line after it (or opens the block that line closes), so the body as written ends inside the block it was put in"

// landingShift computes where an `insert after n` (0-based) body lands.
// targeted reports whether another edit touches a line. It returns the
// landing line and how many closers the body moves past, or, when the
// reference's shift would move it but the body as written is not broken,
// n, 0 and the reason the shift was declined.
//
// The reference shifts a body indented shallower than line n past the
// closers below n. The body is broken as written only when it ends
// shallower than line n and leaves the first of those closers closing a
// block it is not indented into: its last line (one that says how deep it
// is) is shallower than line n, no deeper than that closer, and does not
// open the block the closer would then close. A body that ends deeper, as
// real edits do when they begin with the closer they are put before (a
// diff's `insert after` of a new function whose first row is the `}` that
// follows the anchor), lands where it was written.
func landingShift(d *doc, n int, rows []string, targeted func(int) bool) (int, int, string) {
	ind, ok := bodyDepth(rows)
	if !ok || n < 0 || n >= d.n() {
		return n, 0, ""
	}
	ln := string(d.line(n))
	if strings.TrimSpace(ln) == "" {
		return n, 0, ""
	}
	li := indentOf(ln)
	if !(len(li) > len(ind) && strings.HasPrefix(li, ind)) {
		return n, 0, ""
	}
	landing, count, first := n, 0, ""
	for x := n + 1; x < d.n() && x <= n+maxLandingScan; x++ {
		l := string(d.line(x))
		if strings.TrimSpace(l) == "" {
			continue
		}
		if !isCloser(l) {
			break
		}
		ci := indentOf(l)
		deeper := len(ci) > len(ind) && strings.HasPrefix(ci, ind)
		if !deeper && ci != ind {
			break
		}
		if targeted(x) {
			return n, 0, ""
		}
		if count == 0 {
			first = l
		}
		landing, count = x, count+1
		if ci == ind {
			break
		}
	}
	if count == 0 {
		return n, 0, ""
	}
	last := ""
	for i := len(rows) - 1; i >= 0; i-- {
		if !depthless(rows[i]) {
			last = rows[i]
			break
		}
	}
	ri, fi := indentOf(last), indentOf(first)
	// Broken as written: the body's last line is shallower than line n
	// (whose indentation strictly extends it), and the closer is at least
	// as deep as that last line (its indentation extends or equals it)
	// without the line opening a block for the closer to close. Both are
	// measured against the file's own lines, so a style that puts a
	// closer at the depth of the line before it (C prototypes' `);`) is
	// the file's, not the body's fault.
	broken := len(li) > len(ri) && strings.HasPrefix(li, ri) &&
		strings.HasPrefix(fi, ri) && !(fi == ri && opensBlock(last))
	if !broken {
		return n, 0, declinedLanding
	}
	return landing, count, ""
}

func landingWarning(n, count, landing int) string {
	noun := "lines"
	if count == 1 {
		noun = "line"
	}
	return "insert after " + strconv.Itoa(n) + ": the body is indented shallower than line " + strconv.Itoa(n) +
		", so the landing was moved past " + strconv.Itoa(count) + " closing " + noun + " to after line " + strconv.Itoa(landing) +
		". If you meant the deeper position inside the block, re-issue with the body indented to match."
}
