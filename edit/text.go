package edit

import "bytes"

// eol is a line ending.
type eol uint8

const (
	eolNone eol = iota // last line: no ending
	eolLF
	eolCRLF
	eolCR // lone "\r": a line break, rewritten to the file's first style on output
)

func (e eol) bytes() []byte {
	switch e {
	case eolLF:
		return []byte{'\n'}
	case eolCRLF:
		return []byte{'\r', '\n'}
	case eolCR:
		return []byte{'\r'}
	}
	return nil
}

// doc is a file split into lines without copying. Lines are separated by
// "\n", "\r\n" or a lone "\r"; a text ending in a break has a trailing empty
// "sentinel" line, so "a\nb\n" has three lines and "" has one.
type doc struct {
	b      []byte // BOM-stripped bytes
	bom    bool
	starts []int   // byte offset of each line
	def    eol     // the file's first ending style: LF or CRLF
	loneCR bool    // some line ends in a lone "\r"
	scan   []uint8 // balScanner's state at the start of each line (stateAt), once asked
}

func newDoc(raw []byte) *doc {
	d := &doc{b: raw, def: eolLF}
	if bytes.HasPrefix(raw, utf8BOM) {
		d.bom = true
		d.b = raw[len(utf8BOM):]
	}
	b := d.b
	// Rough capacity guess keeps large files from re-growing many times.
	d.starts = make([]int, 1, len(b)/32+2)
	br := NewBreakFinder(b)
	first := true
	i := 0
	for i < len(b) {
		j := br.Next(i)
		if j < 0 {
			break
		}
		if b[j] == '\r' {
			if j+1 < len(b) && b[j+1] == '\n' {
				if first {
					d.def = eolCRLF
				}
				first = false
				i = j + 2
			} else {
				d.loneCR = true
				i = j + 1
			}
		} else {
			first = false
			i = j + 1
		}
		d.starts = append(d.starts, i)
	}
	return d
}

func (d *doc) n() int { return len(d.starts) }

// bounds returns the content range of line i (0-based) and its ending.
func (d *doc) bounds(i int) (s, e int, end eol) {
	s = d.starts[i]
	if i+1 >= len(d.starts) {
		return s, len(d.b), eolNone
	}
	next := d.starts[i+1]
	switch {
	case d.b[next-1] == '\n' && next-2 >= s && d.b[next-2] == '\r':
		return s, next - 2, eolCRLF
	case d.b[next-1] == '\n':
		return s, next - 1, eolLF
	default:
		return s, next - 1, eolCR
	}
}

func (d *doc) line(i int) []byte {
	s, e, _ := d.bounds(i)
	return d.b[s:e]
}

func (d *doc) lineStr(i int) string { return string(d.line(i)) }

// hasSentinel reports whether the last line is the empty line after a final
// line break (only when the file has more than one line).
func (d *doc) hasSentinel() bool {
	return len(d.starts) > 1 && d.starts[len(d.starts)-1] == len(d.b)
}

// eff returns the ending a row placed at line i should take: the line's own
// ending, or for the unterminated last line the previous line's ending (or
// the file's first style). Lone CR maps to the first style.
func (d *doc) eff(i int) eol {
	if i < 0 || i >= len(d.starts) {
		return d.def
	}
	_, _, e := d.bounds(i)
	switch e {
	case eolLF, eolCRLF:
		return e
	case eolNone:
		if i > 0 {
			return d.eff(i - 1)
		}
	}
	return d.def
}

// tokens is the number of diff tokens (lines with their newline, jsdiff
// style): the trailing empty line after a final break is not a token.
func (d *doc) tokens() int {
	n := len(d.starts)
	if d.starts[n-1] == len(d.b) {
		return n - 1
	}
	return n
}

// tokenEq compares token i of a with token j of b (content and whether a
// newline follows).
func tokenEq(a *doc, i int, b *doc, j int) bool {
	ahas := i+1 < len(a.starts)
	bhas := j+1 < len(b.starts)
	return ahas == bhas && bytes.Equal(a.line(i), b.line(j))
}

// lfString returns the LF-normalised, BOM-free text.
func (d *doc) lfString() string {
	if !bytes.ContainsRune(d.b, '\r') {
		return string(d.b)
	}
	var buf bytes.Buffer
	buf.Grow(len(d.b))
	for i := range d.starts {
		buf.Write(d.line(i))
		if i+1 < len(d.starts) {
			buf.WriteByte('\n')
		}
	}
	return buf.String()
}

// sameLF reports whether a and b are equal once BOM-stripped and
// LF-normalised.
func sameLF(a, b *doc) bool {
	if len(a.starts) != len(b.starts) {
		return false
	}
	if !a.loneCR && !b.loneCR && bytes.Equal(a.b, b.b) {
		return true
	}
	for i := range a.starts {
		if !bytes.Equal(a.line(i), b.line(i)) {
			return false
		}
	}
	return true
}

// BreakFinder finds line breaks ("\n" or "\r") left to right. It remembers
// the next "\r", so a file with no (or few) carriage returns is scanned with
// one IndexByte per line.
type BreakFinder struct {
	b      []byte
	nextCR int // index of the next '\r' at or after the last query, or -1
}

// NewBreakFinder returns a BreakFinder over b; queries go left to right.
func NewBreakFinder(b []byte) BreakFinder {
	return BreakFinder{b: b, nextCR: bytes.IndexByte(b, '\r')}
}

// CRFrom reports whether a "\r" lies at or after i (where only "\n" ends
// lines, they can be counted in bulk).
func (f *BreakFinder) CRFrom(i int) bool {
	f.advanceCR(i)
	return f.nextCR >= 0
}

func (f *BreakFinder) advanceCR(i int) {
	if f.nextCR >= 0 && f.nextCR < i {
		if k := bytes.IndexByte(f.b[i:], '\r'); k >= 0 {
			f.nextCR = i + k
		} else {
			f.nextCR = -1
		}
	}
}

// Next returns the index of the first '\n' or '\r' at or after i, or -1.
func (f *BreakFinder) Next(i int) int {
	f.advanceCR(i)
	j := bytes.IndexByte(f.b[i:], '\n')
	if j >= 0 {
		j += i
	}
	if f.nextCR >= 0 && (j < 0 || f.nextCR < j) {
		j = f.nextCR
	}
	return j
}
