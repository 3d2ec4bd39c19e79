package workspace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// Deltas: one content written as the ranges it shares with another (its
// base) and the bytes it adds, which is how the store keeps a file's
// versions (content.go). The encoding:
//
//	delta = uvarint(len(base)) uvarint(len(target)) op*
//	op    = uvarint(n<<1)   byte[n]             n bytes of the target, literally
//	      | uvarint(n<<1|1) varint(off - next)  n bytes of the base from off
//
// where next is the base offset just after the previous copy (0 before the
// first): an edit's copies mostly go on where the last one stopped, so an
// offset takes a byte or two. applyDelta checks every length and offset, so
// a damaged delta is an error, never a panic or a wrong length.
//
// encodeDelta finds the shared ranges the way git's diff-delta does: the
// base is cut into blocks of deltaBlock bytes, each indexed by a hash of its
// bytes, and at each position of the target not yet covered the block there
// is looked up; a match is extended forward and backward byte by byte. Where
// a block occurs many times in the base (a repeated line), the candidates
// tried are those nearest after the end of the previous copy, because an
// edit keeps the order of what it keeps; the longest match wins. The common
// prefix and suffix are taken first, without the index, and so is what an
// edit that changes lines in place leaves (resyncLines): after each
// difference the two agree again from a line start a few lines on, so the
// index is built only when that fails (50 lines changed in a 480 KB file:
// 0.32-0.42 -> 0.08 ms, BenchmarkDelta50Lines).

// deltaBlock is the block size of the base's index: the shortest range a
// delta copies (shorter matches are written literally).
const deltaBlock = 16

// deltaCandidates bounds the positions of one block tried at a target
// position: those nearest after the previous copy's end, and a few before.
const (
	deltaCandidatesAfter  = 8
	deltaCandidatesBefore = 2
)

// maxDeltaTarget bounds the length a delta may name (1 TiB): far beyond
// the largest content the store keeps.
const maxDeltaTarget = 1 << 40

// deltaRepeatedMin is the shortest match accepted from a block the base
// holds more often than the candidates tried.
const deltaRepeatedMin = 64

// deltaLazy is the match length below which encodeDelta looks a few bytes
// on for a longer one.
const deltaLazy = 256

// errDelta is the cause of every damaged-delta error.
var errDelta = errors.New("damaged delta")

// encodeDelta returns a delta that rebuilds target from base.
func encodeDelta(base, target []byte) []byte {
	w := deltaWriter{out: make([]byte, 0, 64)}
	w.out = binary.AppendUvarint(w.out, uint64(len(base)))
	w.out = binary.AppendUvarint(w.out, uint64(len(target)))
	pre := matchForward(base, target)
	suf := matchBackward(base[pre:], target[pre:])
	w.copy(0, pre)
	bhi, thi := len(base)-suf, len(target)-suf
	// lit: the target's bytes from lit on are not written yet; tp: where
	// the search goes on.
	lit, tp := resyncLines(&w, base[:bhi], target[:thi], pre)
	if thi-tp >= deltaBlock && bhi-pre >= deltaBlock {
		idx := newBlockIndex(base[:bhi], pre)
		for tp+deltaBlock <= thi {
			bp, n := idx.best(base[:bhi], target[:thi], tp, w.next)
			if n < deltaBlock {
				tp++
				continue
			}
			tp, bp, n = extendBack(base, target, lit, tp, bp, n)
			// A short match may be the wrong copy of a common run of
			// bytes: one found a few bytes on that reaches further wins.
			for j := 1; n < deltaLazy && j < deltaBlock && tp+j+deltaBlock <= thi; j++ {
				bp2, n2 := idx.best(base[:bhi], target[:thi], tp+j, w.next)
				if n2 < deltaBlock || tp+j+n2 <= tp+n {
					continue
				}
				tp, bp, n = extendBack(base, target, lit, tp+j, bp2, n2)
			}
			w.insert(target[lit:tp])
			w.copy(bp, n)
			tp += n
			lit = tp
		}
	}
	w.insert(target[lit:thi])
	w.copy(bhi, suf)
	return w.out
}

// resyncLines writes the copies an edit that changes lines in place
// gives, without the block index: from each difference (the first at
// base[at:], target[at:]) the two agree again at the start of a line a
// few lines on in each, for at least deltaResync bytes (or to both ends).
// It returns where the target's bytes are not written yet and where the
// indexed search is to go on: the first difference it found no such place
// after (len(target): none left).
func resyncLines(w *deltaWriter, base, target []byte, at int) (lit, tp int) {
	bp, tp, lit := at, at, at
	for tp < len(target) {
		b, t, n, ok := resyncAt(base, target, bp, tp)
		if !ok {
			return lit, tp
		}
		t, b, n = extendBack(base, target, lit, t, b, n)
		w.insert(target[lit:t])
		w.copy(b, n)
		bp, tp = b+n, t+n
		lit = tp
	}
	return lit, tp
}

// deltaResync is the shortest agreement resyncLines takes as a copy.
const deltaResync = 64

// deltaResyncLines bounds the lines resyncAt looks ahead in each text.
const deltaResyncLines = 3

// resyncAt finds, after the difference at base[bp:] and target[tp:], the
// nearest line starts (at most deltaResyncLines on in each, fewest lines
// first) from which the two agree for n >= deltaResync bytes or to both
// ends (n may then be 0: the last lines differ); ok is false when there
// is none.
func resyncAt(base, target []byte, bp, tp int) (b, t, n int, ok bool) {
	var bs, ts [deltaResyncLines + 1]int
	nb, nt := lineStartsAfter(base, bp, bs[:]), lineStartsAfter(target, tp, ts[:])
	for sum := 1; sum <= 2*deltaResyncLines; sum++ {
		for i := max(0, sum-deltaResyncLines); i <= min(sum, deltaResyncLines); i++ {
			j := sum - i
			if i >= nb || j >= nt {
				continue
			}
			b, t := bs[i], ts[j]
			m := matchForward(base[b:], target[t:])
			if m >= deltaResync || b+m == len(base) && t+m == len(target) {
				return b, t, m, true
			}
		}
	}
	return 0, 0, 0, false
}

// lineStartsAfter fills starts with p and the starts of the lines after
// the one holding p, len(b) counting as the start of the line after the
// last, and returns how many it filled.
func lineStartsAfter(b []byte, p int, starts []int) int {
	starts[0] = p
	k := 1
	for ; k < len(starts) && p < len(b); k++ {
		if i := bytes.IndexByte(b[p:], '\n'); i >= 0 {
			p += i + 1
		} else {
			p = len(b)
		}
		starts[k] = p
	}
	return k
}

// extendBack extends the match of n bytes at target[tp:] and base[bp:]
// backward, no further than lit in the target.
func extendBack(base, target []byte, lit, tp, bp, n int) (int, int, int) {
	for tp > lit && bp > 0 && target[tp-1] == base[bp-1] {
		tp, bp, n = tp-1, bp-1, n+1
	}
	return tp, bp, n
}

// deltaWriter appends a delta's ops.
type deltaWriter struct {
	out  []byte
	next int // the base offset after the last copy
}

func (w *deltaWriter) insert(lit []byte) {
	if len(lit) == 0 {
		return
	}
	w.out = binary.AppendUvarint(w.out, uint64(len(lit))<<1)
	w.out = append(w.out, lit...)
}

func (w *deltaWriter) copy(off, n int) {
	if n == 0 {
		return
	}
	w.out = binary.AppendUvarint(w.out, uint64(n)<<1|1)
	w.out = binary.AppendVarint(w.out, int64(off-w.next))
	w.next = off + n
}

// blockIndex finds the blocks of a base by their hash: the block starting
// at lo+k*deltaBlock is block k. Positions are grouped by hash bucket,
// ascending within each bucket (a bucket's blocks are start[b]:start[b+1]
// of pos).
type blockIndex struct {
	shift uint // the bucket of hash h is h >> shift
	start []int32
	pos   []int32
}

// blockHash mixes the deltaBlock bytes at b[0:].
func blockHash(b []byte) uint64 {
	x := binary.LittleEndian.Uint64(b)
	y := binary.LittleEndian.Uint64(b[8:])
	return (x*0x9E3779B97F4A7C15 ^ bits.RotateLeft64(y*0xC2B2AE3D27D4EB4F, 31)) * 0x165667B19E3779F9
}

func newBlockIndex(base []byte, lo int) *blockIndex {
	n := (len(base) - lo) / deltaBlock
	nb := max(0, bits.Len(uint(n))-1) // 2^nb buckets: more than n/2, at most n
	idx := &blockIndex{shift: uint(64 - nb), start: make([]int32, 1<<nb+1), pos: make([]int32, n)}
	bucket := func(k int) uint64 { return blockHash(base[lo+k*deltaBlock:]) >> idx.shift }
	// A counting sort: the blocks of each bucket counted, each bucket's
	// end found, then the blocks placed from the end, last first, so that
	// start[b] ends at the bucket's beginning and its positions ascend.
	for k := range n {
		idx.start[bucket(k)]++
	}
	for b := 1; b < 1<<nb; b++ {
		idx.start[b] += idx.start[b-1]
	}
	idx.start[1<<nb] = int32(n)
	for k := n - 1; k >= 0; k-- {
		b := bucket(k)
		idx.start[b]--
		idx.pos[idx.start[b]] = int32(lo + k*deltaBlock)
	}
	return idx
}

// best returns the base offset and length of the longest match for
// target[tp:] among the indexed blocks with the hash of the block at tp
// (length 0: none), trying those nearest after next first.
func (idx *blockIndex) best(base, target []byte, tp, next int) (int, int) {
	h := blockHash(target[tp:]) >> idx.shift
	cands := idx.pos[idx.start[h]:idx.start[h+1]]
	if len(cands) == 0 {
		return 0, 0
	}
	// The first candidate at or after next.
	i, j := 0, len(cands)
	for i < j {
		m := int(uint(i+j) >> 1)
		if int(cands[m]) < next {
			i = m + 1
		} else {
			j = m
		}
	}
	bestOff, bestLen := 0, 0
	try := func(c int32) {
		off := int(c)
		if n := matchForward(base[off:], target[tp:]); n > bestLen {
			bestOff, bestLen = off, n
		}
	}
	for _, c := range cands[i:min(len(cands), i+deltaCandidatesAfter)] {
		try(c)
	}
	for _, c := range cands[max(0, i-deltaCandidatesBefore):i] {
		try(c)
	}
	// A block the base repeats is a weak anchor: a short match of it is
	// likely the wrong copy of the block (the line after a changed one,
	// found in another line), so it is passed over for a rarer block a
	// few bytes on, from which the match extends backward over this one.
	if len(cands) > deltaCandidatesAfter+deltaCandidatesBefore && bestLen < deltaRepeatedMin {
		return 0, 0
	}
	return bestOff, bestLen
}

// matchRun is the stride in which matchForward and matchBackward compare
// long runs (bytes.Equal's vector loop), before they find the first
// difference eight bytes at a time.
const matchRun = 256

// matchForward is the length of the common prefix of a and b.
func matchForward(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+matchRun <= n && bytes.Equal(a[i:i+matchRun], b[i:i+matchRun]); i += matchRun {
	}
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for ; i < n && a[i] == b[i]; i++ {
	}
	return i
}

// matchBackward is the length of the common suffix of a and b.
func matchBackward(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+matchRun <= n && bytes.Equal(a[len(a)-i-matchRun:len(a)-i], b[len(b)-i-matchRun:len(b)-i]); i += matchRun {
	}
	for ; i+8 <= n; i += 8 {
		x := binary.LittleEndian.Uint64(a[len(a)-i-8:]) ^ binary.LittleEndian.Uint64(b[len(b)-i-8:])
		if x != 0 {
			return i + bits.LeadingZeros64(x)/8
		}
	}
	for ; i < n && a[len(a)-1-i] == b[len(b)-1-i]; i++ {
	}
	return i
}

// deltaSizes returns the base and target lengths a delta names.
func deltaSizes(delta []byte) (baseLen, targetLen uint64, rest []byte, err error) {
	baseLen, n := binary.Uvarint(delta)
	if n <= 0 {
		return 0, 0, nil, fmt.Errorf("%w: no base length", errDelta)
	}
	targetLen, m := binary.Uvarint(delta[n:])
	if m <= 0 {
		return 0, 0, nil, fmt.Errorf("%w: no target length", errDelta)
	}
	return baseLen, targetLen, delta[n+m:], nil
}

// applyDelta rebuilds the target of delta from base, appending it to
// dst[:0] (grown when too small).
func applyDelta(dst, base, delta []byte) ([]byte, error) {
	baseLen, targetLen, ops, err := deltaSizes(delta)
	if err != nil {
		return nil, err
	}
	if baseLen != uint64(len(base)) {
		return nil, fmt.Errorf("%w: made against %d bytes, given %d", errDelta, baseLen, len(base))
	}
	if targetLen > maxDeltaTarget {
		return nil, fmt.Errorf("%w: its length %d is beyond any content kept", errDelta, targetLen)
	}
	// A length that copies cannot reach is found out by the ops, before
	// they write past what the base and the literals can make.
	out := dst[:0]
	if want := min(targetLen, uint64(len(base))+uint64(len(delta))); uint64(cap(out)) < want {
		out = make([]byte, 0, want)
	}
	next := 0
	for len(ops) > 0 {
		op, k := binary.Uvarint(ops)
		if k <= 0 {
			return nil, fmt.Errorf("%w: a bad op", errDelta)
		}
		ops = ops[k:]
		n := op >> 1
		if n > targetLen-uint64(len(out)) {
			return nil, fmt.Errorf("%w: ops beyond its length", errDelta)
		}
		if op&1 == 0 {
			if n > uint64(len(ops)) {
				return nil, fmt.Errorf("%w: a literal past its end", errDelta)
			}
			out = append(out, ops[:n]...)
			ops = ops[n:]
			continue
		}
		rel, k := binary.Varint(ops)
		if k <= 0 {
			return nil, fmt.Errorf("%w: a bad copy offset", errDelta)
		}
		ops = ops[k:]
		off := int64(next) + rel
		if off < 0 || uint64(off) > uint64(len(base)) || n > uint64(len(base))-uint64(off) {
			return nil, fmt.Errorf("%w: a copy outside its base", errDelta)
		}
		out = append(out, base[off:off+int64(n)]...)
		next = int(off) + int(n)
	}
	if uint64(len(out)) != targetLen {
		return nil, fmt.Errorf("%w: %d bytes made of %d", errDelta, len(out), targetLen)
	}
	return out, nil
}
