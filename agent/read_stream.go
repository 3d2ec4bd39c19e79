package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/hashls/hashls/edit"
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
// surely reached; each cut to a little over readMaxBytes.
type streamedLines struct {
	total int
	kept  map[int]string
	lens  map[int]int
}

func (s *streamedLines) Len() int          { return s.total }
func (s *streamedLines) Line(n int) string { return s.kept[n] }
func (s *streamedLines) LineLen(n int) int { return s.lens[n] }

// lineStreamer splits a stream into lines as splitDisplayLines does (BOM
// dropped; "\r\n", "\n" and a lone "\r" end a line; no line after a final
// break) and keeps the wanted ones.
type lineStreamer struct {
	out       *streamedLines
	want      func(n int) bool
	keptLines int
	keptBytes int
	n         int    // the current line's number
	cur       []byte // its bytes so far, cut at lineKeep
	curLen    int
	curWanted bool
	skipLF    bool
	head      []byte // the first bytes, until the BOM is settled
	bomDone   bool
}

const lineKeep = readMaxBytes + 8

func newLineStreamer(want func(int) bool) *lineStreamer {
	ls := &lineStreamer{out: &streamedLines{kept: map[int]string{}, lens: map[int]int{}}, want: want}
	ls.startLine()
	return ls
}

func (ls *lineStreamer) startLine() {
	ls.n++
	ls.cur, ls.curLen = ls.cur[:0], 0
	// Keep while the caps are not surely reached: one line more than the
	// cap, and bytes up to the byte cap (renderRowsFrom stops at or before
	// the first line past either).
	ls.curWanted = ls.want(ls.n) && ls.keptLines <= readMaxLines && ls.keptBytes <= readMaxBytes
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
	start := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '\n' && c != '\r' {
			ls.skipLF = false
			continue
		}
		ls.add(p[start:i])
		start = i + 1
		if c == '\n' && ls.skipLF {
			ls.skipLF = false
			continue
		}
		ls.skipLF = c == '\r'
		ls.endLine()
	}
	ls.add(p[start:])
}

func (ls *lineStreamer) add(b []byte) {
	ls.curLen += len(b)
	if ls.curWanted && len(ls.cur) < lineKeep {
		ls.cur = append(ls.cur, b[:min(len(b), lineKeep-len(ls.cur))]...)
	}
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

// binarySniffer keeps the first bytes of a stream for workspace.IsBinary.
type binarySniffer struct{ head []byte }

const sniffBytes = 8<<10 + 4 // IsBinary's window and a rune cut by it

func (b *binarySniffer) Write(p []byte) (int, error) {
	if len(b.head) < sniffBytes {
		b.head = append(b.head, p[:min(len(p), sniffBytes-len(b.head))]...)
	}
	return len(p), nil
}

// readStreamed is read of a large file on disk without holding it: one
// pass feeds the sha256, the tag (edit.TagWriter), the binary check and
// the line splitter, which keeps only the lines the page shows. The
// snapshot is recorded by sha256 and size (its content is over what the
// store keeps), with the lines shown.
func readStreamed(env *Env, p workspace.Path, path string, sel workspace.Selector) (*Result, error) {
	r, err := env.WS.OpenReader(p)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	want := func(n int) bool {
		if len(sel.Ranges) == 0 {
			return true
		}
		for _, rg := range sel.Ranges {
			if n >= rg.Start-readLeadingContext && (rg.End == 0 || n <= rg.End+readTrailingContext) {
				return true
			}
		}
		return false
	}
	h := sha256.New()
	var tw edit.TagWriter
	var sniff binarySniffer
	ls := newLineStreamer(want)
	size, err := io.CopyBuffer(io.MultiWriter(h, &tw, &sniff, ls), r, make([]byte, 256<<10))
	if err != nil {
		var we *workspace.Error
		if errors.As(err, &we) {
			return nil, err
		}
		return nil, &Error{Kind: KindIO, Message: fmt.Sprintf("Cannot read %s: %v. Check that it is readable and retry.", p.Rel, err), Err: err}
	}
	// IsBinary looks at 8 KiB, and past them only to know that the file
	// goes on: the head it is given answers as the whole file would.
	if workspace.IsBinary(sniff.head) {
		return nil, &Error{Kind: KindBinary, Message: fmt.Sprintf("Cannot read %s: it is a binary file (%d bytes). hashls reads and edits text files only.", p.Rel, size)}
	}
	lines := ls.finish()
	var sum [32]byte
	h.Sum(sum[:0])
	tag := tw.Tag()
	d := &readDetails{Path: path, ResolvedPath: p.Rel, SHA256: hex.EncodeToString(sum[:]), Raw: sel.Raw, Lines: lines.Len()}
	if sel.Raw {
		text, shown, tr, _ := renderRowsFrom(p.Rel, lines, sel.Ranges, false)
		d.Shown, d.Truncation = shown, tr
		return &Result{Text: text, Details: d}, nil
	}
	d.Tag = tag
	body, shown, tr, seen := renderRowsFrom(p.Rel, lines, sel.Ranges, true)
	if st := env.WS.Store(); st != nil {
		if err := st.RecordAll([]workspace.Recording{{Key: p.Abs, Tag: tag, SHA256: &sum, Size: size, Seen: nonNil(seen)}}); err != nil {
			return nil, err
		}
	}
	d.Shown, d.Truncation = shown, tr
	return &Result{Text: "¶" + p.Rel + "#" + tag + "\n" + body, Details: d, Shown: []Shown{{Path: p.Rel, Tag: tag, SHA256: d.SHA256}}}, nil
}
