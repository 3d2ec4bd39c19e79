package edit

import (
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

func (s *balScanner) line(l string) {
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

func balanceOf(rows []string) balance {
	var s balScanner
	for _, r := range rows {
		s.line(r)
	}
	return s.b
}

func (d *doc) balanceRange(s, e int) balance { // 0-based inclusive
	var sc balScanner
	for i := s; i <= e && i < d.n(); i++ {
		sc.line(string(d.line(i)))
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

// repairReplacement runs the boundary-echo and delimiter-balance repairs on
// one replacement of lines n..m (0-based inclusive). It returns the new range
// end (m may shrink when closers are kept) and rows, plus warnings.
func repairReplacement(d *doc, n, m int, rows []string) (int, []string, []string) {
	var warns []string
	R := len(rows)
	orig := d.balanceRange(n, m)
	delta := balanceOf(rows).sub(orig)

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
		dropped := balanceOf(rows[:a]).add(balanceOf(rows[R-b:]))
		if dropped.zero() || dropped == delta {
			rows = rows[a : R-b]
			R = len(rows)
			warns = append(warns, "Auto-repaired a replacement boundary echo at line "+strconv.Itoa(n+1)+": dropped "+
				strconv.Itoa(a)+" leading and "+strconv.Itoa(b)+" trailing payload line(s) already present outside the range. Issue the payload as the final desired content for the selected range only — never restate unchanged lines bordering the range.")
			delta = balanceOf(rows).sub(orig)
		}
	}
	if delta.zero() || R == 0 {
		return m, rows, warns
	}
	balWarn := func(action string) {
		warns = append(warns, "Auto-repaired a delimiter-balance mismatch in the replacement at line "+strconv.Itoa(n+1)+": "+action+
			". Issue the payload as the final desired content only — never restate or omit a closing bracket bordering the range.")
	}
	for k := min(R-1, d.n()-1-m, maxEcho); k >= 1; k-- {
		if d.rowsMatch(rows[R-k:], m+1) && balanceOf(rows[R-k:]) == delta {
			balWarn("dropped " + strconv.Itoa(k) + " duplicated trailing payload line(s) already present below the range")
			return m, rows[:R-k], warns
		}
	}
	for j := min(R-1, n, maxEcho); j >= 1; j-- {
		if d.rowsMatch(rows[:j], n-j) && balanceOf(rows[:j]) == delta {
			balWarn("dropped " + strconv.Itoa(j) + " duplicated leading payload line(s) already present above the range")
			return m, rows[j:], warns
		}
	}
	want := delta.neg()
	for c := 1; c <= m-n+1 && c <= maxEcho; c++ {
		if !isCloser(string(d.line(m - c + 1))) {
			break
		}
		if d.balanceRange(m-c+1, m) == want {
			balWarn("kept " + strconv.Itoa(c) + " structural closing line(s) the range deleted without restating")
			return m - c, rows, warns
		}
	}
	return m, rows, warns
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
		if strings.TrimSpace(r) == "" {
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

// maxLandingScan bounds how far the landing scan walks (blank lines and
// closers only, so real code never gets near it).
const maxLandingScan = 4096

// landingShift computes where an `insert after n` (0-based) body lands.
// targeted reports whether another edit touches a line.
func landingShift(d *doc, n int, rows []string, targeted func(int) bool) (int, int) {
	ind, ok := bodyDepth(rows)
	if !ok || n < 0 || n >= d.n() {
		return n, 0
	}
	ln := string(d.line(n))
	if strings.TrimSpace(ln) == "" {
		return n, 0
	}
	li := indentOf(ln)
	if !(len(li) > len(ind) && strings.HasPrefix(li, ind)) {
		return n, 0
	}
	landing, count := n, 0
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
			return n, 0
		}
		landing, count = x, count+1
		if ci == ind {
			break
		}
	}
	return landing, count
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
