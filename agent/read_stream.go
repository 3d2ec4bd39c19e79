package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/hashls/hashls/edit"
	"github.com/hashls/hashls/internal/ctxio"
	"github.com/hashls/hashls/workspace"
)

// readStreamMin is the smallest file read streams (never below the size
// the store keeps content for: a streamed snapshot is recorded by sha256
// and size only, as the store would record content that large anyway).
var readStreamMin int64 = 16 << 20

// streamThreshold is the size over which read streams a file.
func streamThreshold(env *Env) int64 {
	n := readStreamMin
	if st := env.WS.Store(); st != nil {
		n = max(n, int64(st.ContentLimit()))
	}
	return n
}

// streamedLines keeps the lines of a streamed file that a read can show:
// those in the selected ranges with their context, until the read caps are
// surely reached; each cut to a little over the byte cap.
type streamedLines struct {
	total int
	kept  map[int]string
	lens  map[int]int
	// Line fromLine is kept from byte from on (a read `:N@B`).
	fromLine, from int
}

func (s *streamedLines) Len() int { return s.total }

// From returns line n from byte off: what was kept of it, which starts at
// the byte the read starts the line at (lineStreamer.from), off or before.
func (s *streamedLines) From(n, off int) string {
	k := s.kept[n]
	if n == s.fromLine {
		off -= s.from
	}
	return k[min(max(off, 0), len(k)):]
}
func (s *streamedLines) LineLen(n int) int { return s.lens[n] }

// lineStreamer splits a stream into lines as splitDisplayLines does (BOM
// dropped; "\r\n", "\n" and a lone "\r" end a line; no line after a final
// break) and keeps the wanted ones. It jumps from break to break
// (edit.BreakFinder), and where only "\n" ends lines it counts the lines
// before the next wanted one in bulk (bytes.Count), so the unwanted bulk
// of a huge file costs about what reading it does.
type lineStreamer struct {
	out       *streamedLines
	nextWant  func(n int) int // the first line at or after n a page may show; math.MaxInt: none
	wantAt    int             // nextWant for the current line (or later), math.MaxInt once the caps are surely reached
	keptLines int
	keptBytes int
	n         int    // the current line's number
	cur       []byte // its bytes so far, cut at lineKeep
	curLen    int
	curWanted bool
	skipLF    bool
	head      []byte // the first bytes, until the BOM is settled
	bomDone   bool
	lim       Limits // the read's caps
	lineKeep  int    // a kept line's bytes beyond which it is cut: lim.ReadBytes + 8
}

// newLineStreamer keeps the lines nextWant names, line fromLine from byte
// from on.
func newLineStreamer(lim Limits, nextWant func(int) int, fromLine, from int) *lineStreamer {
	ls := &lineStreamer{out: &streamedLines{kept: map[int]string{}, lens: map[int]int{}, fromLine: fromLine, from: from}, nextWant: nextWant, lim: lim, lineKeep: lim.ReadBytes + 8}
	ls.startLine()
	return ls
}

func (ls *lineStreamer) startLine() {
	ls.n++
	ls.cur, ls.curLen = ls.cur[:0], 0
	// Keep while the caps are not surely reached: one line more than the
	// cap, and bytes up to the byte cap (renderRowsFrom stops at or before
	// the first line past either).
	switch {
	case ls.keptLines > ls.lim.ReadLines || ls.keptBytes > ls.lim.ReadBytes:
		ls.wantAt = math.MaxInt
	case ls.wantAt < ls.n:
		ls.wantAt = ls.nextWant(ls.n)
	}
	ls.curWanted = ls.wantAt == ls.n
}

func (ls *lineStreamer) endLine() {
	if ls.curWanted {
		ls.out.kept[ls.n] = string(ls.cur)
		ls.out.lens[ls.n] = ls.curLen
		ls.keptLines++
		ls.keptBytes += len(ls.cur) + 1
	}
	ls.out.total = ls.n
	ls.startLine()
}

func (ls *lineStreamer) Write(p []byte) (int, error) {
	n := len(p)
	if !ls.bomDone {
		take := min(3-len(ls.head), len(p))
		ls.head = append(ls.head, p[:take]...)
		p = p[take:]
		if len(ls.head) < 3 && len(p) == 0 && string(ls.head) == "\xEF\xBB\xBF"[:len(ls.head)] {
			return n, nil
		}
		ls.settleBOM()
	}
	ls.feed(p)
	return n, nil
}

func (ls *lineStreamer) settleBOM() {
	ls.bomDone = true
	head := ls.head
	ls.head = nil
	if string(head) != "\xEF\xBB\xBF" {
		ls.feed(head)
	}
}

func (ls *lineStreamer) feed(p []byte) {
	br := edit.NewBreakFinder(p)
	start := 0 // first byte not yet given to a line
	for start < len(p) {
		if !ls.curWanted && !ls.skipLF && !br.CRFrom(start) {
			start = ls.skipUnwanted(p, start)
		}
		i := br.Next(start)
		if i < 0 {
			break
		}
		if i > start {
			ls.skipLF = false
		}
		ls.add(p[start:i])
		c := p[i]
		start = i + 1
		if c == '\n' && ls.skipLF {
			ls.skipLF = false // the "\n" of a "\r\n"
			continue
		}
		ls.skipLF = c == '\r'
		ls.endLine()
	}
	if start < len(p) {
		ls.skipLF = false
		ls.add(p[start:])
	}
}

// skipUnwanted ends in bulk the unwanted lines whose "\n" lies in
// p[start:] (which holds no "\r"), up to the next wanted line, and
// returns where the line after the last one ended starts.
func (ls *lineStreamer) skipUnwanted(p []byte, start int) int {
	k := ls.wantAt - ls.n // lines to end before a wanted one starts
	c := bytes.Count(p[start:], lfByte)
	if c == 0 {
		return start
	}
	next := start + bytes.LastIndexByte(p[start:], '\n') + 1
	if c >= k {
		c, next = k, start
		for range k {
			next += bytes.IndexByte(p[next:], '\n') + 1
		}
	}
	ls.out.total = ls.n + c - 1
	ls.n += c - 1
	ls.startLine()
	return next
}

var lfByte = []byte{'\n'}

func (ls *lineStreamer) add(b []byte) {
	at := ls.curLen // where b starts in the line
	ls.curLen += len(b)
	if !ls.curWanted || len(ls.cur) >= ls.lineKeep {
		return
	}
	if ls.n == ls.out.fromLine && at < ls.out.from {
		b = b[min(ls.out.from-at, len(b)):]
	}
	ls.cur = append(ls.cur, b[:min(len(b), ls.lineKeep-len(ls.cur))]...)
}

// finish ends the stream: a last line without a break counts.
func (ls *lineStreamer) finish() *streamedLines {
	if !ls.bomDone {
		ls.settleBOM()
	}
	if ls.curLen > 0 {
		ls.endLine()
	}
	return ls.out
}

const sniffBytes = 8<<10 + 4 // IsBinary's window and a rune cut by it

// streamReadErr is the error of a pass over p that failed: the
// workspace's own error as it is, any other an I/O error naming p.
func streamReadErr(p workspace.Path, err error) error {
	var we *workspace.Error
	if errors.As(err, &we) {
		return err
	}
	return &Error{Kind: KindIO, Message: fmt.Sprintf("Cannot read %s: %v. Check that it is readable and retry.", p.Rel, err), Err: err}
}

// readStreamed is read of a large file on disk without holding it: one
// pass feeds the sha256, the tag (edit.TagWriter), the binary check and
// the line splitter, which keeps only the lines the page shows. The
// snapshot is recorded by sha256 and size (its content is over what the
// store keeps), with the lines shown.
func readStreamed(ctx context.Context, env *Env, p workspace.Path, path string, sel workspace.Selector) (*Result, error) {
	r, err := env.WS.OpenReader(p)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	// The first line at or after n that the page may show.
	nextWant := func(n int) int {
		if len(sel.Ranges) == 0 {
			return n
		}
		first := math.MaxInt
		for _, rg := range sel.Ranges {
			if rg.End != 0 && n > rg.End+readTrailingContext {
				continue
			}
			first = min(first, max(n, rg.Start-readLeadingContext))
		}
		return first
	}
	h := sha256.New()
	var tw edit.TagWriter
	sniff := headSniffer{max: sniffBytes}
	fromLine := 0
	if len(sel.Ranges) > 0 {
		fromLine = sel.Ranges[0].Start
	}
	ls := newLineStreamer(env.limits(), nextWant, fromLine, sel.Byte)
	// struct{ io.Reader } hides the file's WriteTo, which would copy
	// through 32 KiB pieces instead of this buffer.
	size, err := io.CopyBuffer(io.MultiWriter(h, &tw, &sniff, ls), struct{ io.Reader }{ctxio.Reader(ctx, r)}, make([]byte, 1<<20))
	if err != nil {
		return nil, streamReadErr(p, err)
	}
	// IsBinary looks at 8 KiB, and past them only to know that the file
	// goes on: the head it is given answers as the whole file would.
	if workspace.IsBinary(sniff.head) {
		return nil, errBinary("read", p.Rel, int(size))
	}
	lines := ls.finish()
	var sum [32]byte
	h.Sum(sum[:0])
	tag := tw.Tag()
	d := &readDetails{Path: path, ResolvedPath: p.Rel, SHA256: hex.EncodeToString(sum[:]), Raw: sel.Raw, Lines: lines.Len()}
	if sel.Raw {
		text, shown, tr, _ := env.limits().renderRowsFrom(p.Rel, lines, sel, false)
		d.Shown, d.Truncation = shown, tr
		return &Result{Text: text, Details: d}, nil
	}
	d.Tag = tag
	body, shown, tr, seen := env.limits().renderRowsFrom(p.Rel, lines, sel, true)
	if err := env.WS.RecordReads([]workspace.Recording{{Key: p.Abs, Tag: tag, SHA256: &sum, Size: size, Seen: nonNil(seen)}}); err != nil {
		return nil, err
	}
	d.Shown, d.Truncation = shown, tr
	return &Result{Text: header(p.Rel, tag) + "\n" + body, Details: d, Shown: []Shown{{Path: p.Rel, Tag: tag, SHA256: d.SHA256}}}, nil
}
