package edit

import (
	"encoding/binary"
	"math/bits"
)

const (
	xxPrime1 uint32 = 0x9E3779B1
	xxPrime2 uint32 = 0x85EBCA77
	xxPrime3 uint32 = 0xC2B2AE3D
	xxPrime4 uint32 = 0x27D4EB2F
	xxPrime5 uint32 = 0x165667B1
)

// xxh32 is a streaming XXH32 digest with seed 0.
type xxh32 struct {
	v1, v2, v3, v4 uint32
	total          uint64
	mem            [16]byte
	memN           int
}

func (d *xxh32) reset() {
	p1, p2 := xxPrime1, xxPrime2
	d.v1 = p1 + p2
	d.v2 = p2
	d.v3 = 0
	d.v4 = -p1
	d.total = 0
	d.memN = 0
}

func xxRound(acc, in uint32) uint32 {
	acc += in * xxPrime2
	acc = bits.RotateLeft32(acc, 13)
	return acc * xxPrime1
}

func (d *xxh32) write(p []byte) {
	d.total += uint64(len(p))
	if d.memN > 0 {
		n := copy(d.mem[d.memN:], p)
		d.memN += n
		p = p[n:]
		if d.memN < 16 {
			return
		}
		m := d.mem[:]
		d.v1 = xxRound(d.v1, binary.LittleEndian.Uint32(m[0:]))
		d.v2 = xxRound(d.v2, binary.LittleEndian.Uint32(m[4:]))
		d.v3 = xxRound(d.v3, binary.LittleEndian.Uint32(m[8:]))
		d.v4 = xxRound(d.v4, binary.LittleEndian.Uint32(m[12:]))
		d.memN = 0
	}
	if len(p) >= 16 {
		v1, v2, v3, v4 := d.v1, d.v2, d.v3, d.v4
		for len(p) >= 16 {
			v1 = xxRound(v1, binary.LittleEndian.Uint32(p[0:4]))
			v2 = xxRound(v2, binary.LittleEndian.Uint32(p[4:8]))
			v3 = xxRound(v3, binary.LittleEndian.Uint32(p[8:12]))
			v4 = xxRound(v4, binary.LittleEndian.Uint32(p[12:16]))
			p = p[16:]
		}
		d.v1, d.v2, d.v3, d.v4 = v1, v2, v3, v4
	}
	if len(p) > 0 {
		d.memN = copy(d.mem[:], p)
	}
}

func (d *xxh32) sum() uint32 {
	var h uint32
	if d.total >= 16 {
		h = bits.RotateLeft32(d.v1, 1) + bits.RotateLeft32(d.v2, 7) +
			bits.RotateLeft32(d.v3, 12) + bits.RotateLeft32(d.v4, 18)
	} else {
		h = xxPrime5
	}
	h += uint32(d.total)
	p := d.mem[:d.memN]
	for len(p) >= 4 {
		h += binary.LittleEndian.Uint32(p) * xxPrime3
		h = bits.RotateLeft32(h, 17) * xxPrime4
		p = p[4:]
	}
	for _, b := range p {
		h += uint32(b) * xxPrime5
		h = bits.RotateLeft32(h, 11) * xxPrime1
	}
	h ^= h >> 15
	h *= xxPrime2
	h ^= h >> 13
	h *= xxPrime3
	h ^= h >> 16
	return h
}

// XXH32 returns the XXH32 (seed 0) digest of b. Exported for tests and for
// callers that need the full 32 bits.
func XXH32(b []byte) uint32 {
	var d xxh32
	d.reset()
	d.write(b)
	return d.sum()
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Tag returns the 4-hex content tag of text (reference §1): a leading UTF-8
// BOM is ignored, every "\r\n" and lone "\r" counts as "\n" (the reference
// hashes the LF-normalised text its read recorded), runs of spaces and tabs
// before each newline and at the end are stripped, then XXH32 (seed 0) is
// taken and its low 16 bits printed as 4 upper-case hex digits.
func Tag(text []byte) string {
	return tagHex(tagSum(text))
}

var lfByte = []byte{'\n'}

// tagFeeder batches the short pieces normalisation produces (CRLF files cut
// at every line) so the digest sees large writes.
type tagFeeder struct {
	h   xxh32
	buf []byte
}

func (f *tagFeeder) write(p []byte) {
	if len(p) >= 512 {
		f.flush()
		f.h.write(p)
		return
	}
	if len(f.buf)+len(p) > cap(f.buf) {
		f.flush()
	}
	f.buf = append(f.buf, p...)
}

func (f *tagFeeder) flush() {
	if len(f.buf) > 0 {
		f.h.write(f.buf)
		f.buf = f.buf[:0]
	}
}

func (f *tagFeeder) sum() uint32 {
	f.flush()
	return f.h.sum()
}

// tagSum is the digest Tag shows, of text whole: the TagWriter's, given
// the text in one piece (one normalisation for whole and streamed text).
func tagSum(text []byte) uint32 {
	var w TagWriter
	w.Write(text)
	return w.sum()
}

func tagHex(h uint32) string {
	const hexd = "0123456789ABCDEF"
	v := h & 0xFFFF
	return string([]byte{hexd[v>>12], hexd[(v>>8)&15], hexd[(v>>4)&15], hexd[v&15]})
}
