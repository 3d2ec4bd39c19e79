// The seen-lines check, the lines it carries to the new content, and the
// lines a stale refusal shows.

package edit

import (
	"crypto/sha256"
	"reflect"
	"strings"
	"testing"
)

func TestSeenLines(t *testing.T) {
	file := []byte("l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n")
	sum := sha256.Sum256(file)
	f := File{Path: "a.txt", Key: "a", Bytes: file}
	seen := fixedSeen{sum: {{1, 4}, {9, 10}}}
	res := mapResolver{3: {3, 7}}
	tests := []struct {
		body string
		bad  string // "" : accepted
	}{
		{"replace 2..4:\n+x", ""},
		{"DEL 9.=10", ""},
		{"insert after 4:\n+x", ""},
		{"insert head:\n+x\nINS.TAIL:\n+y", ""},
		{"replace block 3:\n+x", ""}, // the opener was seen; the parser finds the end
		{"replace 4..5:\n+x", "line 5"},
		{"insert before 6:\n+x\ndelete 7..8", "lines 6-8"},
		{"INS.POST 5:\n+x", "line 5"},
	}
	for _, tt := range tests {
		r, err := ApplySection(Section{Path: "a.txt", Tag: Tag(file), Body: tt.body}, f, Options{Seen: seen, Resolver: res})
		if tt.bad == "" {
			if err != nil {
				t.Errorf("%q: %v", tt.body, err)
			} else if !r.SeenKnown || len(r.Seen) == 0 {
				t.Errorf("%q: no seen lines carried: %+v", tt.body, r.Seen)
			}
			continue
		}
		e, ok := err.(*Error)
		if !ok || e.Kind != KindUnseen || !strings.Contains(e.Msg, "showed you "+tt.bad+" ") {
			t.Errorf("%q: %v, want refusal naming %s", tt.body, err, tt.bad)
			continue
		}
		if !strings.Contains(e.Msg, "\n\n¶a.txt#"+Tag(file)+"\n") || len(e.Shown) == 0 {
			t.Errorf("%q: refusal lacks the header and rows: %q %+v", tt.body, e.Msg, e.Shown)
		}
		// Once the shown lines are recorded, the same edit succeeds.
		again := fixedSeen{sum: append(append([]LineRange(nil), seen[sum]...), e.Shown...)}
		if _, err := ApplySection(Section{Path: "a.txt", Tag: Tag(file), Body: tt.body}, f, Options{Seen: again, Resolver: res}); err != nil {
			t.Errorf("%q: retry after the refusal: %v", tt.body, err)
		}
	}
	// A snapshot with no record is not checked.
	if _, err := ApplySection(Section{Path: "a.txt", Tag: Tag(file), Body: "replace 6:\n+x"}, f, Options{Seen: fixedSeen{}}); err != nil {
		t.Errorf("unknown snapshot: %v", err)
	}
}

func TestMapSeen(t *testing.T) {
	old := newDoc([]byte("1\n2\n3\n4\n5\n6\n"))
	a, err := applyPlain(old, []Hunk{{Kind: OpInsertAfter, Start: 1, End: 1, Rows: []string{"x", "y"}}, {Kind: OpDelete, Start: 4, End: 5}})
	if err != nil {
		t.Fatal(err)
	}
	nd := newDoc(a.out) // 1 x y 2 3 6
	ch := diffRegions(old, nd, a.regions)
	got := mapSeen([]LineRange{{1, 1}, {3, 6}}, ch, displayLines(nd))
	// line 1 stays 1; x,y written (2-3); 3 → 5; 4,5 deleted; 6 → 6.
	if want := []LineRange{{1, 3}, {5, 6}}; !reflect.DeepEqual(got, want) {
		t.Errorf("mapSeen = %+v, want %+v", got, want)
	}
}

// TestStaleRefusalShowsTargetedRanges: a stale tag recovery cannot resolve
// is refused with the current content of the whole targeted ranges (a
// block as resolved on the snapshot read), the live tag, and the shown
// lines for the caller to record.
func TestStaleRefusalShowsTargetedRanges(t *testing.T) {
	snap := []byte("a\nf {\n  x\n  y\n}\nb\nc\nd\n")
	live := []byte("A\nf {\n  X\n  y\n}\nb\nc\nd\n")
	store := newMemStore()
	store.record("k", snap)
	_, err := ApplySection(Section{Path: "f.txt", Tag: Tag(snap), Body: "DEL.BLK 2"}, File{Path: "f.txt", Key: "k", Bytes: live},
		Options{Snapshots: store, Resolver: mapResolver{2: {2, 5}}})
	e, ok := err.(*Error)
	if !ok || e.Kind != KindStale {
		t.Fatalf("err %v", err)
	}
	if !strings.Contains(e.Msg, "the current file hashes to #"+Tag(live)) || !strings.HasSuffix(e.Msg, "\n\n 1:A\n*2:f {\n*3:  X\n*4:  y\n*5:}\n 6:b\n 7:c") {
		t.Errorf("message %q", e.Msg)
	}
	if want := []LineRange{{1, 7}}; !reflect.DeepEqual(e.Shown, want) {
		t.Errorf("shown %+v, want %+v", e.Shown, want)
	}
}

// fixedSeen answers Seen from a table keyed by sha256.
type fixedSeen map[[32]byte][]LineRange

func (s fixedSeen) Seen(_ string, sum [32]byte) ([]LineRange, bool, error) {
	rs, ok := s[sum]
	return rs, ok, nil
}
