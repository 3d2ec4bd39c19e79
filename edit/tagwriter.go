package edit

// TagWriter computes Tag over text given in pieces of any size (an
// io.Writer): a file too large to hold is tagged while it streams. The
// normalisation is Tag's, kept across piece boundaries: the BOM is known
// after 3 bytes, a "\r" waits for the next byte (a "\n" after it is the
// same line break), and a run of spaces and tabs is held until what ends
// it shows whether it is trailing (dropped) or not (fed). Memory is the
// digest's plus the longest run of spaces and tabs.
type TagWriter struct {
	f       tagFeeder
	scratch [4096]byte
	started bool   // the digest is set up
	head    []byte // the first bytes, until the BOM question is settled
	bomDone bool
	skipLF  bool   // the last byte was "\r": a "\n" now is part of its break
	ws      []byte // spaces and tabs not yet known to be trailing
}

// Write feeds p; it never fails.
func (w *TagWriter) Write(p []byte) (int, error) {
	n := len(p)
	if !w.started {
		w.f = tagFeeder{buf: w.scratch[:0]}
		w.f.h.reset()
		w.started = true
	}
	if !w.bomDone {
		need := 3 - len(w.head)
		take := min(need, len(p))
		w.head = append(w.head, p[:take]...)
		p = p[take:]
		if len(w.head) < 3 && len(p) == 0 {
			if string(w.head) == string(utf8BOM[:len(w.head)]) {
				return n, nil // could still be a BOM
			}
		}
		w.bomDone = true
		head := w.head
		w.head = nil
		if string(head) == string(utf8BOM) {
			head = nil
		}
		w.feed(head)
	}
	w.feed(p)
	return n, nil
}

// feed normalises p (the BOM settled) into the digest as tagSum does: it
// jumps from line break to line break (memchr-class) and looks back over
// each line's blank end only, feeding runs of whole lines in one write.
func (w *TagWriter) feed(p []byte) {
	if len(p) == 0 {
		return
	}
	if w.skipLF {
		w.skipLF = false
		if p[0] == '\n' {
			p = p[1:] // the "\n" of a "\r\n" cut between pieces
		}
	}
	if len(w.ws) > 0 {
		// Blanks held from the last piece: fed if text follows them on
		// their line, dropped if a break does.
		k := 0
		for k < len(p) && (p[k] == ' ' || p[k] == '\t') {
			k++
		}
		switch {
		case k == len(p):
			w.ws = append(w.ws, p...)
			return
		case p[k] == '\n' || p[k] == '\r':
			w.ws = w.ws[:0]
			p = p[k:]
		default:
			w.flushWS()
		}
	}
	n := len(p)
	start := 0 // first byte not yet fed
	i := 0     // start of the current line
	br := NewBreakFinder(p)
	for i < n {
		j := br.Next(i)
		if j < 0 {
			break
		}
		e := trimBlankEnd(p, i, j)
		if p[j] == '\n' {
			if e < j {
				w.f.write(p[start:e])
				start = j // the newline opens the next run
			}
			i = j + 1
			continue
		}
		// "\r\n" or a lone "\r": feed "\n" instead.
		w.f.write(p[start:e])
		w.f.write(lfByte)
		i = j + 1
		if i < n && p[i] == '\n' {
			i++
		} else if i == n {
			w.skipLF = true
		}
		start = i
	}
	// The last line may go on in the next piece: its blank end is held
	// until what follows shows whether it is trailing.
	e := trimBlankEnd(p, i, n)
	if e > start {
		w.f.write(p[start:e])
	}
	w.ws = append(w.ws, p[e:]...)
}

// trimBlankEnd returns the end of p[i:j] without its trailing spaces and
// tabs.
func trimBlankEnd(p []byte, i, j int) int {
	for j > i && (p[j-1] == ' ' || p[j-1] == '\t') {
		j--
	}
	return j
}

// flushWS feeds the held spaces and tabs: text follows them.
func (w *TagWriter) flushWS() {
	if len(w.ws) > 0 {
		w.f.write(w.ws)
		w.ws = w.ws[:0]
	}
}

// Tag returns the tag of everything written (as Tag would of it whole).
func (w *TagWriter) Tag() string { return tagHex(w.sum()) }

// sum ends the text: a head too short to be settled is fed (unless it is
// the whole BOM), and the trailing spaces and tabs held are dropped.
func (w *TagWriter) sum() uint32 {
	if !w.started {
		w.Write(nil)
	}
	if !w.bomDone {
		w.bomDone = true
		if string(w.head) != string(utf8BOM) {
			w.feed(w.head)
		}
		w.head = nil
	}
	return w.f.sum()
}
