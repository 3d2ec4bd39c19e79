package search

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Matcher is a compiled search pattern: a Go RE2 regexp plus a required
// literal scanned for with memchr-class search before the regexp runs.
type Matcher struct {
	re        *regexp.Regexp
	multiline bool
	lit       []byte // required substring; lower-case ASCII when fold
	fold      bool
	litOnly   bool // a line matches iff it holds lit: the regexp is not needed
	rareIdx   int  // offset in lit of the rarest byte
	rare1     byte // that byte (lower case when fold)
	rare2     byte // its upper-case twin when fold, else rare1
}

// ErrTooLong is returned for a line (or, in multiline mode, a file) too
// large to search.
var ErrTooLong = errors.New("line too long to search (over 64 MiB)")

// maxLineBytes bounds one line (a var so tests can lower it).
var maxLineBytes = 64 << 20

// Multiline reports whether the pattern spans lines (it holds "\n").
func (m *Matcher) Multiline() bool { return m.multiline }

// String returns the compiled expression.
func (m *Matcher) String() string { return m.re.String() }

// Compile compiles a search pattern (Go RE2 syntax). Braces that cannot be
// a repetition are escaped first (so "${x}" and "interface{}" search
// literally); an unbalanced parenthesis or bracket is an error. Multiline
// mode is on only when the pattern holds a newline or the two characters
// `\n`. Errors read "Invalid regex: ...", quoting the pattern without the
// flags Compile adds.
func Compile(pattern string, ignoreCase bool) (*Matcher, error) {
	multiline := strings.Contains(pattern, "\n") || strings.Contains(pattern, `\n`)
	flags := "(?m)"
	if ignoreCase {
		flags = "(?mi)"
	}
	// An unbalanced parenthesis is an error, as an unbalanced bracket is
	// (the reference engine retried with the parentheses escaped, which
	// searched for something else than the caller wrote, silently).
	expr := escapeBraces(pattern)
	re, err := regexp.Compile(flags + expr)
	if err != nil {
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "error parsing regexp: ")
		msg = strings.Replace(msg, "`"+flags, "`", 1)
		return nil, fmt.Errorf("Invalid regex: %s", msg) //nolint:staticcheck // user-facing text
	}
	m := &Matcher{re: re, multiline: multiline}
	m.prefilter(flags + expr)
	return m, nil
}

// escapeBraces escapes '{' and '}' that cannot form a repetition {n},
// {n,} or {n,m} after an atom, outside character classes.
func escapeBraces(p string) string {
	if !strings.ContainsAny(p, "{}") {
		return p
	}
	var b strings.Builder
	inClass := false
	atom := false // something quantifiable precedes
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			b.WriteByte(p[i+1])
			i++
			atom = true
			continue
		case inClass:
			if c == ']' {
				inClass = false
				atom = true
			}
			b.WriteByte(c)
			continue
		case c == '[':
			inClass = true
			i = writeClassOpen(&b, p, i)
			continue
		case c == '{':
			if j := repeatEnd(p, i); j > 0 && atom {
				b.WriteString(p[i : j+1])
				i = j
				atom = true
				continue
			}
			b.WriteString(`\{`)
			atom = true
			continue
		case c == '}':
			b.WriteString(`\}`)
			atom = true
			continue
		case c == '(' || c == '|':
			atom = false
		default:
			atom = true
		}
		b.WriteByte(c)
	}
	return b.String()
}

// repeatEnd returns the index of '}' when p[i:] starts with {n}, {n,} or
// {n,m} (optionally followed by '?'), else -1.
func repeatEnd(p string, i int) int {
	j := i + 1
	digits := func() int {
		n := 0
		for j < len(p) && p[j] >= '0' && p[j] <= '9' {
			j++
			n++
		}
		return n
	}
	if digits() == 0 {
		return -1
	}
	if j < len(p) && p[j] == ',' {
		j++
		digits()
	}
	if j < len(p) && p[j] == '}' {
		return j
	}
	return -1
}

type litCand struct {
	runes []rune
	fold  bool
}

// prefilter picks the best required literal of the expression.
func (m *Matcher) prefilter(expr string) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return
	}
	re = re.Simplify()
	var cands []litCand
	collectRequired(re, &cands)
	best, bestScore := litCand{}, 0
	for _, c := range cands {
		for _, run := range safeRuns(c) {
			score := len(string(run.runes))
			if !run.fold {
				score++
			}
			if score > bestScore {
				best, bestScore = run, score
			}
		}
	}
	if bestScore == 0 {
		return
	}
	if best.fold {
		m.lit = []byte(strings.ToLower(string(best.runes)))
	} else {
		m.lit = []byte(string(best.runes))
	}
	m.fold = best.fold
	// The regexp is redundant when it is exactly this literal.
	if re.Op == syntax.OpLiteral && len(re.Rune) == len(best.runes) {
		m.litOnly = !m.multiline
	}
	m.rareIdx = 0
	bestRank := -1
	for i := 0; i < len(m.lit); i++ {
		r := byteRank(m.lit[i])
		if m.fold && m.lit[i] >= 'a' && m.lit[i] <= 'z' {
			r = min(r, byteRank(m.lit[i]-32))
		}
		if r > bestRank {
			bestRank, m.rareIdx = r, i
		}
	}
	m.rare1 = m.lit[m.rareIdx]
	m.rare2 = m.rare1
	if m.fold && m.rare1 >= 'a' && m.rare1 <= 'z' {
		m.rare2 = m.rare1 - 32
	}
}

// collectRequired appends literals every match must contain.
func collectRequired(re *syntax.Regexp, out *[]litCand) {
	switch re.Op {
	case syntax.OpLiteral:
		*out = append(*out, litCand{re.Rune, re.Flags&syntax.FoldCase != 0})
	case syntax.OpCapture, syntax.OpPlus:
		collectRequired(re.Sub[0], out)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			collectRequired(re.Sub[0], out)
		}
	case syntax.OpConcat:
		var run litCand
		flush := func() {
			if len(run.runes) > 0 {
				*out = append(*out, run)
			}
			run = litCand{}
		}
		for _, s := range re.Sub {
			if s.Op == syntax.OpLiteral {
				f := s.Flags&syntax.FoldCase != 0
				if len(run.runes) > 0 && run.fold != f {
					flush()
				}
				run.fold = f
				run.runes = append(append([]rune(nil), run.runes...), s.Rune...)
				continue
			}
			flush()
			collectRequired(s, out)
		}
		flush()
	}
}

// safeRuns splits a case-folded literal into runs whose runes fold only to
// ASCII (so an ASCII case-insensitive scan cannot miss a match: 'k' and 's'
// also fold to U+212A and U+017F and are left out). Exact literals are
// returned whole.
func safeRuns(c litCand) []litCand {
	if !c.fold {
		return []litCand{c}
	}
	var out []litCand
	var cur []rune
	for _, r := range c.runes {
		if foldSafe(r) {
			cur = append(cur, r)
			continue
		}
		if len(cur) > 0 {
			out = append(out, litCand{cur, true})
		}
		cur = nil
	}
	if len(cur) > 0 {
		out = append(out, litCand{cur, true})
	}
	return out
}

func foldSafe(r rune) bool {
	if r >= utf8.RuneSelf {
		return false
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// byteRank grows with how rare a byte is in source text.
func byteRank(b byte) int {
	const common = " etaoinsrlcdu\n\tpmhfg.(),_b\"y=;v:w/k*-01{}>x'ST2EAR<CIN[]DLPOMF#3BHU9465q87G!|jVWz&KY%@$QXJZ^~`+?\\"
	if i := strings.IndexByte(common, b); i >= 0 {
		return i
	}
	return 200
}

// indexLit returns the offset of the next occurrence of the literal in
// buf at or after from, or -1. It looks for the literal's rarest byte with
// memchr-class IndexByte (both cases when folding, each with its own cached
// next position so no byte is scanned twice) and verifies around it.
func (m *Matcher) indexLit(buf []byte, from int) int {
	n := len(m.lit)
	k := m.rareIdx
	pos := from + k // candidate positions of the rare byte
	next1, next2 := -2, -2
	if m.rare2 == m.rare1 {
		next2 = -1
	}
	for pos < len(buf) {
		if next1 != -1 && next1 < pos {
			if i := bytes.IndexByte(buf[pos:], m.rare1); i >= 0 {
				next1 = pos + i
			} else {
				next1 = -1
			}
		}
		if next2 != -1 && next2 < pos {
			if i := bytes.IndexByte(buf[pos:], m.rare2); i >= 0 {
				next2 = pos + i
			} else {
				next2 = -1
			}
		}
		c := next1
		if c < 0 || (next2 >= 0 && next2 < c) {
			c = next2
		}
		if c < 0 {
			return -1
		}
		start := c - k
		if start+n > len(buf) {
			return -1
		}
		w := buf[start : start+n]
		if m.fold {
			if asciiEqualFold(w, m.lit) {
				return start
			}
		} else if bytes.Equal(w, m.lit) {
			return start
		}
		pos = c + 1
	}
	return -1
}

func asciiEqualFold(w, lowerLit []byte) bool {
	for i, c := range w {
		if c >= 'A' && c <= 'Z' {
			c += 32
		}
		if c != lowerLit[i] {
			return false
		}
	}
	return true
}

// NextLine finds the next matching line in buf at or after from, which
// must be the start of a line. It returns the line's bounds [start, end)
// without its "\n". Not for multiline patterns (see NextMatch).
func (m *Matcher) NextLine(buf []byte, from int) (start, end int, ok bool) {
	for from < len(buf) {
		if len(m.lit) > 0 {
			i := m.indexLit(buf, from)
			if i < 0 {
				return 0, 0, false
			}
			start = from + bytes.LastIndexByte(buf[from:i], '\n') + 1
			end = lineEnd(buf, i)
			if m.litOnly || m.re.Match(buf[start:end]) {
				return start, end, true
			}
			from = end + 1
			continue
		}
		loc := m.re.FindIndex(buf[from:])
		if loc == nil {
			return 0, 0, false
		}
		s, e := from+loc[0], from+loc[1]
		if s == len(buf) && buf[s-1] == '\n' {
			return 0, 0, false // the empty "line" after the final newline
		}
		start = from + bytes.LastIndexByte(buf[from:s], '\n') + 1
		end = lineEnd(buf, s)
		if e <= end || m.re.Match(buf[start:end]) {
			return start, end, true
		}
		from = end + 1
	}
	return 0, 0, false
}

func lineEnd(buf []byte, i int) int {
	if j := bytes.IndexByte(buf[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(buf)
}

// NextMatch finds the next match at or after from in a whole buffer
// (multiline mode) and returns its byte span.
func (m *Matcher) NextMatch(buf []byte, from int) (start, end int, ok bool) {
	if from > len(buf) {
		return 0, 0, false
	}
	if len(m.lit) > 0 && m.indexLit(buf, from) < 0 {
		return 0, 0, false
	}
	loc := m.re.FindIndex(buf[from:])
	if loc == nil {
		return 0, 0, false
	}
	return from + loc[0], from + loc[1], true
}

// MatchLines calls fn with the bounds of every matching line of content, in
// order, until fn returns false; in multiline mode every line a match spans
// is a matching line. It returns the number of matching lines seen.
func (m *Matcher) MatchLines(content []byte, fn func(start, end int) bool) int {
	n := 0
	if !m.multiline {
		for from := 0; from < len(content); {
			s, e, ok := m.NextLine(content, from)
			if !ok {
				break
			}
			n++
			if fn != nil && !fn(s, e) {
				break
			}
			from = e + 1
		}
		return n
	}
	from, lastLine := 0, -1
	for from < len(content) {
		s, e, ok := m.NextMatch(content, from)
		if !ok || (s == len(content) && content[s-1] == '\n') {
			break
		}
		ls := bytes.LastIndexByte(content[:s], '\n') + 1
		for {
			le := lineEnd(content, ls)
			if ls > lastLine {
				lastLine = ls
				n++
				if fn != nil && !fn(ls, le) {
					return n
				}
			}
			if le+1 >= e || le >= len(content) {
				break
			}
			ls = le + 1
		}
		if e > s {
			from = e
		} else {
			from = lineEnd(content, s) + 1
		}
	}
	return n
}

// FileResult is what ScanReader found in one file.
type FileResult struct {
	Lines  int  // matching lines
	Binary bool // a NUL byte was seen: the file is skipped, Lines is 0
}

// ScanReader searches r, reading through buf (grown as needed and returned
// for reuse) so that files of any size stream in bounded memory: chunks end
// on line boundaries and no line is copied. onLine, when not nil, gets each
// matching line with its 1-based number (the slice is only valid during
// the call) and returns false to stop. A NUL byte anywhere marks the file
// binary. A line longer than buf is held whole only when it may match:
// when only counting (onLine nil), a long line without the literal every
// match holds is read past (skipLongLine), so such lines cost no memory.
// Multiline patterns read the whole file (up to 64 MiB).
//
// Long: the search's hot loop (refill the buffer, find a line, match it,
// skip a long line that cannot match), kept in one body so that no call or
// closure sits on the path every line of every file takes.
func (m *Matcher) ScanReader(r io.Reader, buf []byte, onLine func(lineNo int, line []byte) bool) (FileResult, []byte, error) {
	if cap(buf) < 64<<10 {
		buf = make([]byte, 256<<10)
	}
	buf = buf[:cap(buf)]
	var res FileResult
	filled := 0 // bytes in buf
	lineNo := 1 // line number of buf[0]
	eof := false
	holdLine := false // the line at buf[0] is long and may match: hold it whole
	seeker, _ := r.(io.Seeker)
	canSkip := onLine == nil && !m.multiline && len(m.lit) > 0 && 4*len(m.lit) < len(buf) && (m.litOnly || seeker != nil)
	for {
		if !eof {
			n, err := io.ReadFull(r, buf[filled:])
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				eof = true
			} else if err != nil {
				return res, buf, err
			}
			if bytes.IndexByte(buf[filled:filled+n], 0) >= 0 {
				return FileResult{Binary: true}, buf, nil
			}
			filled += n
		}
		// Process complete lines (all of them at EOF).
		chunkEnd := filled
		if !eof {
			chunkEnd = bytes.LastIndexByte(buf[:filled], '\n') + 1
			if chunkEnd == 0 && canSkip && !holdLine && (m.litOnly || m.indexLit(buf[:filled], 0) < 0) {
				sk, err := m.skipLongLine(r, buf, filled)
				switch {
				case err != nil:
					return res, buf, err
				case sk.binary:
					return FileResult{Binary: true}, buf, nil
				case sk.reread:
					// The literal is further on: the regexp needs the
					// line whole, which is read again from its start.
					if _, err := seeker.Seek(-sk.read, io.SeekCurrent); err != nil {
						return res, buf, err
					}
					filled, holdLine = 0, true
					continue
				}
				if sk.match {
					res.Lines++
				}
				lineNo++
				filled, eof = sk.rest, sk.eof
				continue
			}
			if chunkEnd == 0 || m.multiline {
				// No complete line (or multiline: need everything): grow.
				if len(buf) >= maxLineBytes {
					return res, buf, ErrTooLong
				}
				nb := make([]byte, 2*len(buf))
				copy(nb, buf[:filled])
				buf = nb
				continue
			}
		}
		holdLine = false
		chunk := buf[:chunkEnd]
		stop := false
		counted := 0 // lines before chunk[counted:] accounted in lineNo
		c := m.MatchLines(chunk, func(s, e int) bool {
			if onLine == nil {
				return true
			}
			lineNo += bytes.Count(chunk[counted:s], []byte{'\n'})
			counted = s
			if !onLine(lineNo, chunk[s:e]) {
				stop = true
				return false
			}
			return true
		})
		res.Lines += c
		if stop || eof {
			return res, buf, nil
		}
		if onLine != nil {
			lineNo += bytes.Count(chunk[counted:], []byte{'\n'})
		}
		filled = copy(buf, buf[chunkEnd:filled])
	}
}

// skipped is what skipLongLine found.
type skipped struct {
	match  bool  // the line holds the literal (a literal-only pattern: it matches)
	reread bool  // the line holds the literal and the regexp must see it: read it again
	read   int64 // bytes read since the line's start (for reread)
	rest   int   // bytes after the line's "\n", moved to the start of buf
	eof    bool
	binary bool // a NUL byte was read
}

// skipLongLine reads on through a line that fills buf (buf[:filled], no
// "\n" yet) without holding it, looking for its end and for the literal
// (a piece of it as long as the literal is kept between reads). A literal-
// only pattern then knows whether the line matches; any other stops at
// the literal (reread). A line of maxLineBytes or more is ErrTooLong, as
// when it is held.
func (m *Matcher) skipLongLine(r io.Reader, buf []byte, filled int) (skipped, error) {
	sk := skipped{read: int64(filled), match: m.indexLit(buf[:filled], 0) >= 0}
	lineLen := filled
	keep := min(len(m.lit)-1, filled)
	have := copy(buf, buf[filled-keep:filled])
	for {
		if lineLen >= maxLineBytes {
			return sk, ErrTooLong
		}
		// Read no further than maxLineBytes into the line, so a NUL byte
		// after it is not seen (as when the line is held).
		n, err := io.ReadFull(r, buf[have:min(len(buf), have+maxLineBytes-lineLen)])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			sk.eof = true
		} else if err != nil {
			return sk, err
		}
		got := buf[have : have+n]
		if bytes.IndexByte(got, 0) >= 0 {
			sk.binary = true
			return sk, nil
		}
		sk.read += int64(n)
		end := bytes.IndexByte(got, '\n')
		lim := have + n // end of this line's bytes in buf
		if end >= 0 {
			lim = have + end
		}
		lineLen += lim - have
		if !sk.match && m.indexLit(buf[:lim], 0) >= 0 {
			sk.match = true
			if !m.litOnly {
				sk.reread = true
				return sk, nil
			}
		}
		if end >= 0 {
			if lineLen >= maxLineBytes {
				return sk, ErrTooLong
			}
			sk.rest = copy(buf, buf[lim+1:have+n])
			return sk, nil
		}
		if sk.eof {
			return sk, nil
		}
		keep = min(len(m.lit)-1, lim)
		have = copy(buf, buf[lim-keep:lim])
	}
}

// writeClassOpen copies the "[" at p[i] with a following "^" and a "]"
// right after "[" or "[^" (which is literal there) and returns the index of
// the last byte copied.
func writeClassOpen(b *strings.Builder, p string, i int) int {
	b.WriteByte('[')
	if i+1 < len(p) && p[i+1] == '^' {
		b.WriteByte('^')
		i++
	}
	if i+1 < len(p) && p[i+1] == ']' {
		b.WriteByte(']')
		i++
	}
	return i
}
