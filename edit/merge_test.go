package edit

import (
	"math/rand/v2"
	"strings"
	"testing"
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
		// Every maximal matching, by brute force.
		var best [][][2]int
		bestLen := -1
		var walk func(i, j int, cur [][2]int)
		walk = func(i, j int, cur [][2]int) {
			if i == len(a) || j == len(b) {
				switch {
				case len(cur) > bestLen:
					bestLen, best = len(cur), [][][2]int{append([][2]int(nil), cur...)}
				case len(cur) == bestLen:
					best = append(best, append([][2]int(nil), cur...))
				}
				return
			}
			if a[i] == b[j] {
				walk(i+1, j+1, append(cur, [2]int{i, j}))
			}
			walk(i+1, j, cur)
			walk(i, j+1, cur)
		}
		walk(0, 0, nil)
		want := make([]int32, len(a))
		for i := range want {
			want[i] = -1
			partner := -2
			for _, m := range best {
				p := -1
				for _, pr := range m {
					if pr[0] == i {
						p = pr[1]
					}
				}
				if partner == -2 {
					partner = p
				} else if partner != p {
					partner = -1
				}
			}
			if partner >= 0 {
				want[i] = int32(partner)
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
