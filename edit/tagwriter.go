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

// feed normalises p (the BOM settled) into the digest.
func (w *TagWriter) feed(p []byte) {
	start := 0 // first byte of p not yet fed
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case ' ', '\t':
			if i > start {
				w.flushWS()
				w.f.write(p[start:i])
			}
			w.skipLF = false
			w.ws = append(w.ws, c)
			start = i + 1
		case '\n', '\r':
			if i > start {
				w.flushWS()
				w.f.write(p[start:i])
			}
			start = i + 1
			w.ws = w.ws[:0] // trailing: dropped
			if c == '\n' && w.skipLF {
				w.skipLF = false
				continue
			}
			w.skipLF = c == '\r'
			w.f.write(lfByte)
		default:
			w.skipLF = false
		}
	}
	if start < len(p) {
		w.flushWS()
		w.f.write(p[start:])
	}
}

// flushWS feeds the held spaces and tabs: text follows them.
func (w *TagWriter) flushWS() {
	if len(w.ws) > 0 {
		w.f.write(w.ws)
		w.ws = w.ws[:0]
	}
}

// Tag returns the tag of everything written (as Tag would of it whole).
func (w *TagWriter) Tag() string {
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
	// Trailing spaces and tabs at the end are dropped.
	return tagHex(w.f.sum())
}
