package edit

import (
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hashls/hashls/internal/replaytest"
)

// diff3 is a small three-way merge written from the definition of diff3
// in Khanna, Kunal and Pierce, "A formal investigation of diff3" (2007),
// independent of the engine's merge: a longest common subsequence of o
// with each side (dynamic programming), then stable chunks (lines of o
// matched on both sides, in step) and the unstable chunks between them.
// An unstable chunk takes the side that changed it, either when both made
// the same change, and is a conflict otherwise (ok false).
func diff3(o, a, b []string) ([]string, bool) {
	return diff3With(o, a, b, lcsMatch(o, a), lcsMatch(o, b))
}

// diff3With is diff3 over given matchings of o with a and with b (for
// each line of o, the line of the side it is matched to, or -1), which
// must be common subsequences.
func diff3With(o, a, b []string, ma, mb []int) ([]string, bool) {
	var out []string
	lo, la, lb := 0, 0, 0 // lines consumed of o, a, b
	for {
		// The longest run of o lines matched, in step, on both sides.
		i := 0
		for lo+i < len(o) && ma[lo+i] == la+i && mb[lo+i] == lb+i {
			i++
		}
		if i > 0 {
			out = append(out, o[lo:lo+i]...)
			lo, la, lb = lo+i, la+i, lb+i
			continue
		}
		if lo == len(o) && la == len(a) && lb == len(b) {
			return out, true
		}
		// An unstable chunk, up to the next o line matched on both sides.
		j := lo
		for j < len(o) && (ma[j] < 0 || mb[j] < 0) {
			j++
		}
		ea, eb := len(a), len(b)
		if j < len(o) {
			ea, eb = ma[j], mb[j]
		}
		co, ca, cb := o[lo:j], a[la:ea], b[lb:eb]
		switch {
		case same(ca, co):
			out = append(out, cb...)
		case same(cb, co), same(ca, cb):
			out = append(out, ca...)
		default:
			return nil, false
		}
		lo, la, lb = j, ea, eb
	}
}

func same(x, y []string) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// lcsMatch returns, for each line of o, the line of x it is matched to in
// one longest common subsequence (-1 for none).
func lcsMatch(o, x []string) []int {
	n, m := len(o), len(x)
	dp := make([][]int32, n+1)
	for i := range dp {
		dp[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case o[i] == x[j]:
				dp[i][j] = dp[i+1][j+1] + 1
			case dp[i+1][j] >= dp[i][j+1]:
				dp[i][j] = dp[i+1][j]
			default:
				dp[i][j] = dp[i][j+1]
			}
		}
	}
	match := make([]int, n)
	for i := range match {
		match[i] = -1
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case o[i] == x[j] && dp[i][j] == dp[i+1][j+1]+1:
			match[i] = j
			i++
			j++
		case dp[i+1][j] >= dp[i][j+1]:
			i++
		default:
			j++
		}
	}
	return match
}

var (
	fuzzFilesOnce sync.Once
	fuzzFiles     [][]string
)

// realFiles are the merge-replay corpus's base files (Go, Python, C), the
// material the fuzz target cuts windows from and changes.
func realFiles(t testing.TB) [][]string {
	fuzzFilesOnce.Do(func() {
		cs, err := replaytest.LoadAll(replayCorpus)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			fuzzFiles = append(fuzzFiles, replaytest.Lines(c.Base))
		}
	})
	return fuzzFiles
}

// byteStream hands out the fuzzer's bytes as small numbers (zeros once
// they run out).
type byteStream []byte

func (s *byteStream) next(n int) int {
	if n <= 0 {
		return 0
	}
	if len(*s) == 0 {
		return 0
	}
	v := int((*s)[0])
	*s = (*s)[1:]
	return v % n
}

// change applies up to a few random line changes to lines: deletions,
// insertions and replacements whose new lines are copies of lines of the
// file (so repeated lines abound, as `}` and blank lines do in code) or
// new text.
func (s *byteStream) change(lines, pool []string, tag string) []string {
	out := append([]string(nil), lines...)
	for k, ops := 0, 1+s.next(4); k < ops; k++ {
		p := s.next(len(out) + 1)
		n := s.next(4)
		var rows []string
		for r, nr := 0, s.next(4); r < nr; r++ {
			if s.next(3) == 0 || len(pool) == 0 {
				rows = append(rows, tag+strconv.Itoa(k)+"."+strconv.Itoa(r))
			} else {
				rows = append(rows, pool[s.next(len(pool))])
			}
		}
		e := min(len(out), p+n)
		if p == e && len(rows) == 0 {
			continue
		}
		out = append(out[:p:p], append(rows, out[e:]...)...)
	}
	return out
}

// FuzzRecovery: a stale edit built from a real file with random changes
// on both sides either lands as the diff3 checker merges it or is
// refused, leaving the file as it was.
func FuzzRecovery(f *testing.F) {
	f.Add([]byte{0, 10, 40, 1, 5, 0, 2, 1, 2, 1, 20, 1, 1, 1})
	f.Add([]byte{3, 0, 60, 2, 7, 1, 1, 2, 0, 8, 2, 0, 3, 1, 1, 9})
	f.Add([]byte{7, 200, 80, 3, 30, 2, 2, 1, 1, 33, 0, 1, 4, 31, 2, 1, 2})
	f.Add([]byte{1, 5, 25, 0, 3, 0, 1, 2, 1, 0, 4, 0, 1, 2, 3, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		files := realFiles(t)
		s := byteStream(data)
		file := files[s.next(len(files))]
		start := (s.next(256)*256 + s.next(256)) % max(len(file), 1)
		size := 1 + s.next(120)
		base := file[start:min(len(file), start+size)]
		if len(base) == 0 {
			return
		}
		ours := s.change(base, base, "ours")
		theirs := s.change(base, base, "theirs")
		eol := "\n"
		if s.next(4) == 0 {
			eol = "\r\n" // every file with CRLF line breaks
		}
		text := func(ls []string, eol string) string {
			if len(ls) == 0 {
				return ""
			}
			return strings.Join(ls, eol) + eol
		}
		lf := func(b []byte) string { return strings.ReplaceAll(string(b), "\r\n", "\n") }
		bt, ot, tt := text(base, eol), text(ours, eol), text(theirs, eol)
		if ot == bt || tt == bt {
			return
		}
		in := replaytest.Ops(text(base, "\n"), text(ours, "\n"))
		tag := Tag([]byte(bt))
		st := newMemStore()
		st.record("k", []byte(bt))
		sec := Section{Path: "f", Tag: tag, Body: in}
		fresh, err := ApplySection(sec, File{Path: "f", Key: "k", Bytes: []byte(bt)}, Options{Snapshots: st})
		if err != nil {
			t.Fatalf("fresh edit failed: %v\n%s", err, in)
		}
		applied := replaytest.Lines(lf(fresh.New))
		res, err := ApplySection(sec, File{Path: "f", Key: "k", Bytes: []byte(tt)}, Options{Snapshots: st})
		want, clean := diff3(base, applied, theirs)
		if err != nil {
			if e, ok := err.(*Error); !ok || e.Kind != KindStale {
				t.Fatalf("stale edit failed with %v", err)
			}
			return // refused: the file is untouched (nothing was returned)
		}
		if !clean {
			t.Fatalf("landed where diff3 conflicts\nbase:\n%s\nours:\n%s\ntheirs:\n%s\ngot:\n%s", bt, fresh.New, tt, res.New)
		}
		if got := string(res.New); got != text(want, eol) {
			t.Fatalf("landed differently from diff3\nbase:\n%s\nours:\n%s\ntheirs:\n%s\ngot:\n%q\nwant:\n%q", bt, fresh.New, tt, got, text(want, eol))
		}
	})
}
