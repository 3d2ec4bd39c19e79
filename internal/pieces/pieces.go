// Package pieces describes a content too large to hold as the pieces it is
// made of: ranges of a base content (the file it replaces) and new bytes.
// A notebook cell edit of a 200 MB notebook is the file's bytes around the
// cell's new source: the notebook package plans it as pieces, the agent
// hashes and tags it in one pass over them, and the workspace's commit path
// writes it to its temp file in another, so that neither holds the file
// (workspace and its notebook package may not import each other's types:
// this leaf is what both speak). Entry points: Piece, Reader, Size.
package pieces

import (
	"bytes"
	"fmt"
	"io"
)

// Piece is Len bytes of the base from Off, or, when Data is not nil, the
// bytes Data (Off and Len unused).
type Piece struct {
	Off, Len int64
	Data     []byte
}

// Base is Len bytes of the base from Off.
func Base(off, n int64) Piece { return Piece{Off: off, Len: n} }

// Bytes is the literal b (never a base range, even when empty).
func Bytes(b []byte) Piece {
	if b == nil {
		b = []byte{}
	}
	return Piece{Data: b}
}

// Size is the length of the content ps make.
func Size(ps []Piece) int64 {
	var n int64
	for _, p := range ps {
		if p.Data != nil {
			n += int64(len(p.Data))
		} else {
			n += p.Len
		}
	}
	return n
}

// Reader reads the content ps make, the base ranges read from base. A range
// outside base is an error (io.ErrUnexpectedEOF), never short content.
func Reader(base io.ReaderAt, ps []Piece) io.Reader {
	rs := make([]io.Reader, 0, len(ps))
	for _, p := range ps {
		switch {
		case p.Data != nil:
			rs = append(rs, bytes.NewReader(p.Data))
		case p.Len < 0 || p.Off < 0:
			rs = append(rs, errReader{fmt.Errorf("a piece of %d bytes at %d of the base: %w", p.Len, p.Off, io.ErrUnexpectedEOF)})
		case p.Len > 0:
			rs = append(rs, &exact{r: io.NewSectionReader(base, p.Off, p.Len), left: p.Len, off: p.Off})
		}
	}
	return io.MultiReader(rs...)
}

// exact reads a base range, which must be there whole.
type exact struct {
	r         io.Reader
	left, off int64
}

func (e *exact) Read(b []byte) (int, error) {
	n, err := e.r.Read(b)
	e.left -= int64(n)
	if err == io.EOF && e.left > 0 {
		return n, fmt.Errorf("the base ends %d bytes short of the piece at %d: %w", e.left, e.off, io.ErrUnexpectedEOF)
	}
	return n, err
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
