package edit

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hashls/hashls/internal/replaytest"
)

// TestRecoveryMergesAsGit: a stale edit lands as git merge-file merges the
// edit (ours) with what changed since the read (theirs), or is refused
// with the file untouched. Each want was checked with `git merge-file -p`.
func TestRecoveryMergesAsGit(t *testing.T) {
	lines := func(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
	tests := []struct {
		name       string
		base, live string // what the tag names; the file now
		ops        string
		want       string // "" : refused
		warn       string
	}{{
		name: "changes apart are kept in order",
		base: lines("a", "b", "c", "d", "e"),
		live: lines("a", "B", "c", "d", "e"),
		ops:  "replace 4..4:\n+D",
		want: lines("a", "B", "c", "D", "e"),
		warn: warnRecoverExternal,
	}, {
		name: "a change next to theirs, with no unchanged line between, conflicts",
		base: lines("a", "b", "c", "d", "e"),
		live: lines("a", "B", "c", "d", "e"),
		ops:  "replace 3..3:\n+C",
	}, {
		name: "inserts at one place conflict",
		base: lines("a", "b", "c"),
		live: lines("a", "b", "x", "c"),
		ops:  "insert after 2:\n+y",
	}, {
		name: "the same change on both sides is applied once",
		base: lines("package p", "", "func a() {}", "", "func z() {}"),
		live: lines("package p", "", "func a() {}", "", "func b() {}", "", "func z() {}"),
		ops:  "insert after 4:\n+func b() {}\n+",
		want: lines("package p", "", "func a() {}", "", "func b() {}", "", "func z() {}"),
		warn: warnRecoverPresent,
	}, {
		name: "the same change plus one of ours elsewhere",
		base: lines("package p", "", "func a() {}", "", "func z() {}", "", "// end"),
		live: lines("package p", "", "func a() {}", "", "func b() {}", "", "func z() {}", "", "// end"),
		ops:  "insert after 4:\n+func b() {}\n+\nreplace 7..7:\n+// the end",
		want: lines("package p", "", "func a() {}", "", "func b() {}", "", "func z() {}", "", "// the end"),
		warn: warnRecoverExternal,
	}, {
		// The body's lines repeat nearby (`}`), and the live file moved
		// them: nothing is searched for, the edit lands where the base
		// lines are, or not at all.
		name: "repeated closers do not relocate a change",
		base: lines("func a() {", "\tif x {", "\t\ty()", "\t}", "}", "", "func b() {", "\tif x {", "\t\ty()", "\t}", "}"),
		live: lines("func a() {", "\tif x {", "\t\tw()", "\t}", "}", "", "func b() {", "\tif x {", "\t\ty()", "\t}", "}"),
		ops:  "replace 3..3:\n+\t\tz()",
	}, {
		name: "theirs deleted the lines ours changed",
		base: lines("a", "b", "c", "d"),
		live: lines("a", "d"),
		ops:  "replace 2..2:\n+B",
	}, {
		name: "lines added above shift the edit",
		base: lines("L1", "L2", "L3"),
		live: lines("H1", "H2", "L1", "L2", "L3"),
		ops:  "replace 2..2:\n+L2-MODEL",
		want: lines("H1", "H2", "L1", "L2-MODEL", "L3"),
		warn: warnRecoverExternal,
	}, {
		name: "insert head with the first line changed conflicts",
		base: lines("a", "b", "c"),
		live: lines("A", "b", "c"),
		ops:  "insert head:\n+top",
	}, {
		name: "insert tail with the file changed elsewhere",
		base: lines("a", "b", "c"),
		live: lines("A", "b", "c"),
		ops:  "insert tail:\n+end",
		want: lines("A", "b", "c", "end"),
		warn: warnRecoverExternal,
	}, {
		name: "a deletion in ours, a change two lines off in theirs",
		base: lines("a", "b", "c", "d", "e", "f"),
		live: lines("a", "b", "c", "d", "E", "f"),
		ops:  "delete 2..3",
		want: lines("a", "d", "E", "f"),
		warn: warnRecoverExternal,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newMemStore()
			st.record("k", []byte(tt.base))
			res, err := ApplySection(Section{Path: "f", Tag: Tag([]byte(tt.base)), Body: tt.ops},
				File{Path: "f", Key: "k", Bytes: []byte(tt.live)}, Options{Snapshots: st})
			if tt.want == "" {
				var e *Error
				if err == nil {
					t.Fatalf("landed %q, want a refusal", res.New)
				}
				if !errorsAs(err, &e) || e.Kind != KindStale {
					t.Fatalf("error %v, want a stale refusal", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(res.New) != tt.want {
				t.Fatalf("got\n%s\nwant\n%s", res.New, tt.want)
			}
			if len(res.Warnings) == 0 || res.Warnings[0] != tt.warn {
				t.Errorf("warnings %q, want %q first", res.Warnings, tt.warn)
			}
			if tt.warn == warnRecoverPresent && !res.NoOp {
				t.Errorf("an edit already in the file is not a no-op")
			}
		})
	}
}

// everyLCS lists every longest common subsequence of a and b, by brute
// force, as matchings: for each line of a, the line of b it is paired
// with, or -1.
func everyLCS[T comparable](a, b []T) [][]int {
	n, m := len(a), len(b)
	dp := make([][]int, n+1) // dp[i][j]: the LCS length of a[i:], b[j:]
	for i := range dp {
		dp[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	var out [][]int
	cur := make([]int, n)
	for i := range cur {
		cur[i] = -1
	}
	var walk func(i, j int)
	walk = func(i, j int) {
		if dp[i][j] == 0 {
			out = append(out, append([]int(nil), cur...))
			return
		}
		// Each choice of the next pair that a longest one can continue with.
		for ii := i; ii < n; ii++ {
			for jj := j; jj < m; jj++ {
				if a[ii] == b[jj] && dp[ii+1][jj+1] == dp[i][j]-1 {
					cur[ii] = jj
					walk(ii+1, jj+1)
					cur[ii] = -1
				}
			}
		}
	}
	walk(0, 0)
	return out
}

func errorsAs(err error, e **Error) bool {
	x, ok := err.(*Error)
	if ok {
		*e = x
	}
	return ok
}

// TestSureMatches checks sureMatches against every longest common
// subsequence of small random sequences (over a three-letter alphabet, so
// repeats abound): a line is paired only when all of them pair it, with
// the same line.
func TestSureMatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 3000; iter++ {
		a := make([]int32, rng.IntN(8))
		b := make([]int32, rng.IntN(8))
		for i := range a {
			a[i] = int32(rng.IntN(3))
		}
		for j := range b {
			b[j] = int32(rng.IntN(3))
		}
		every := everyLCS(a, b)
		bestLen := 0
		for _, p := range every[0] {
			if p >= 0 {
				bestLen++
			}
		}
		want := make([]int32, len(a))
		for i := range want {
			want[i] = int32(every[0][i])
			for _, m := range every {
				if m[i] != every[0][i] {
					want[i] = -1
				}
			}
		}
		// The shortest edit script's length, and a longer one (delete
		// all, insert all): the band is as wide as the bound says.
		for _, d := range []int{len(a) + len(b) - 2*bestLen, len(a) + len(b)} {
			got, ok := sureMatches(a, b, d)
			if !ok {
				t.Fatalf("%v %v: table refused", a, b)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("a=%v b=%v d=%d: got %v, want %v", a, b, d, got, want)
				}
			}
		}
	}
}

// TestRecoveryDecidesAsEveryAlignment proves the recovery's rule on every
// small case: a stale edit lands exactly when every choice of longest
// common subsequences (of the base with ours, and with theirs) gives diff3
// the same clean merge, and then lands that merge; it is refused exactly
// when some choice conflicts or merges differently. So it refuses no more
// than the ambiguity of alignment forces, whichever alignment git or
// another diff3 picks. One proviso: where both sides wrote the same lines
// between two lines both surely keep, the two sides are aligned alike
// there (any deterministic diff aligns equal inputs alike).
//
// Every base, ours and theirs of up to 4 lines over two distinct lines,
// then random ones of up to 6 lines over three.
func TestRecoveryDecidesAsEveryAlignment(t *testing.T) {
	var seqs [][]string
	var gen func(cur []string, n int, alphabet []string)
	gen = func(cur []string, n int, alphabet []string) {
		seqs = append(seqs, append([]string(nil), cur...))
		if len(cur) == n {
			return
		}
		for _, l := range alphabet {
			gen(append(cur, l), n, alphabet)
		}
	}
	gen(nil, 4, []string{"a", "b"})
	check := func(base, ours, theirs []string) {
		text := func(ls []string) string {
			if len(ls) == 0 {
				return ""
			}
			return strings.Join(ls, "\n") + "\n"
		}
		bt, ot, tt := text(base), text(ours), text(theirs)
		if len(base) == 0 || ot == bt || tt == bt {
			return // an empty file is edited whole; nothing to merge
		}
		// Every alignment's merge.
		ao, at := everyLCS(base, ours), everyLCS(base, theirs)
		sure := func(all [][]int, i int) int {
			for _, m := range all {
				if m[i] != all[0][i] {
					return -1
				}
			}
			return all[0][i]
		}
		// The regions between lines both sides surely keep in which both
		// wrote the same lines: a pair of alignments must agree there.
		type region struct{ b0, b1, o0, t0 int } // base lines [b0, b1); ours from o0, theirs from t0
		var same []region
		pb, po, pt := 0, 0, 0
		for i := 0; i <= len(base); i++ {
			eb, eo, et := len(base), len(ours), len(theirs)
			if i < len(base) {
				so, st := sure(ao, i), sure(at, i)
				if so < 0 || st < 0 {
					continue
				}
				eb, eo, et = i, so, st
			}
			if slices.Equal(ours[po:eo], theirs[pt:et]) && !slices.Equal(ours[po:eo], base[pb:eb]) {
				same = append(same, region{pb, eb, po, pt})
			}
			pb, po, pt = eb+1, eo+1, et+1
		}
		alike := func(mo, mt []int) bool {
			for _, r := range same {
				for i := r.b0; i < r.b1; i++ {
					if (mo[i] < 0) != (mt[i] < 0) || (mo[i] >= 0 && mo[i]-r.o0 != mt[i]-r.t0) {
						return false
					}
				}
			}
			return true
		}
		var want []string
		robust, first := true, true
		for _, mo := range ao {
			for _, mt := range at {
				if !alike(mo, mt) {
					continue
				}
				got, clean := diff3With(base, ours, theirs, mo, mt)
				if !clean || (!first && !slices.Equal(got, want)) {
					robust = false
				}
				want, first = got, false
			}
		}
		st := newMemStore()
		st.record("k", []byte(bt))
		sec := Section{Path: "f", Tag: Tag([]byte(bt)), Body: replaytest.Ops(bt, ot)}
		fresh, err := ApplySection(sec, File{Path: "f", Key: "k", Bytes: []byte(bt)}, Options{Snapshots: st})
		if err != nil || string(fresh.New) != ot {
			t.Fatalf("base %q ours %q: the fresh edit gave %q, %v", base, ours, fresh.New, err)
		}
		res, err := ApplySection(sec, File{Path: "f", Key: "k", Bytes: []byte(tt)}, Options{Snapshots: st})
		switch {
		case err != nil && robust:
			t.Fatalf("base %q ours %q theirs %q: refused, but every alignment merges to %q", base, ours, theirs, want)
		case err == nil && !robust:
			t.Fatalf("base %q ours %q theirs %q: landed %q, but alignments conflict or differ", base, ours, theirs, res.New)
		case err == nil && string(res.New) != text(want):
			t.Fatalf("base %q ours %q theirs %q: landed %q, want %q", base, ours, theirs, res.New, text(want))
		}
	}
	for _, b := range seqs {
		for _, o := range seqs {
			for _, th := range seqs {
				check(b, o, th)
			}
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	mk := func() []string {
		s := make([]string, rng.IntN(7))
		for i := range s {
			s[i] = []string{"a", "b", ""}[rng.IntN(3)]
		}
		return s
	}
	for iter := 0; iter < 20000; iter++ {
		check(mk(), mk(), mk())
	}
}
