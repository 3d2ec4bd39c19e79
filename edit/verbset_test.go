// The second verb set (SWAP, DEL, INS.*), file ops (REM, MV) and the
// bracket header form, parsed and applied.

package edit

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseSecondVerbSet(t *testing.T) {
	v2 := func(h Hunk) Hunk { h.v2 = true; return h }
	tests := []struct {
		body string
		want []Hunk
	}{
		{"SWAP 2.=3:\n+x", []Hunk{v2(Hunk{Kind: OpReplace, Start: 2, End: 3, Rows: []string{"x"}, Line: 1})}},
		{"SWAP 2:\n+x", []Hunk{v2(Hunk{Kind: OpReplace, Start: 2, End: 2, Rows: []string{"x"}, Line: 1})}},
		{"SWAP 2..3\n+x", []Hunk{v2(Hunk{Kind: OpReplace, Start: 2, End: 3, Rows: []string{"x"}, Line: 1})}},
		{"SWAP 2-3:\n+x", []Hunk{v2(Hunk{Kind: OpReplace, Start: 2, End: 3, Rows: []string{"x"}, Line: 1})}},
		{"SWAP 2…3:\n+x", []Hunk{v2(Hunk{Kind: OpReplace, Start: 2, End: 3, Rows: []string{"x"}, Line: 1})}},
		{"SWAP 2..=3:\n+x", []Hunk{v2(Hunk{Kind: OpReplace, Start: 2, End: 3, Rows: []string{"x"}, Line: 1})}},
		{"SWAP 2.=3:", []Hunk{v2(Hunk{Kind: OpReplace, Start: 2, End: 3, Line: 1})}}, // empty: deletes
		{"DEL 4", []Hunk{v2(Hunk{Kind: OpDelete, Start: 4, End: 4, Line: 1})}},
		{"  DEL 4.=6", []Hunk{v2(Hunk{Kind: OpDelete, Start: 4, End: 6, Line: 1})}},
		{"DEL.BLK 7", []Hunk{v2(Hunk{Kind: OpDeleteBlock, Start: 7, End: 7, Line: 1})}},
		{"SWAP.BLK 7:\n+x", []Hunk{v2(Hunk{Kind: OpReplaceBlock, Start: 7, End: 7, Rows: []string{"x"}, Line: 1})}},
		{"INS.BLK.POST 7:\n+x", []Hunk{v2(Hunk{Kind: OpInsertAfterBlock, Start: 7, End: 7, Rows: []string{"x"}, Line: 1})}},
		{"INS.PRE 1:\n+x", []Hunk{v2(Hunk{Kind: OpInsertBefore, Start: 1, End: 1, Rows: []string{"x"}, Line: 1})}},
		{"INS.POST 1\n+x", []Hunk{v2(Hunk{Kind: OpInsertAfter, Start: 1, End: 1, Rows: []string{"x"}, Line: 1})}},
		{"INS.HEAD:\n+x\nINS.TAIL:\n+y", []Hunk{
			v2(Hunk{Kind: OpInsertHead, Rows: []string{"x"}, Line: 1}),
			v2(Hunk{Kind: OpInsertTail, Rows: []string{"y"}, Line: 3})}},
		// Mixed with the first verb set in one section.
		{"replace 1:\n+a\nDEL 3\ninsert after 4:\n+b", []Hunk{
			{Kind: OpReplace, Start: 1, End: 1, Rows: []string{"a"}, Line: 1},
			v2(Hunk{Kind: OpDelete, Start: 3, End: 3, Line: 3}),
			{Kind: OpInsertAfter, Start: 4, End: 4, Rows: []string{"b"}, Line: 4}}},
		// The first verb set also takes `.=`.
		{"replace 2.=3:\n+x", []Hunk{{Kind: OpReplace, Start: 2, End: 3, Rows: []string{"x"}, Line: 1}}},
		{"delete 2.=3", []Hunk{{Kind: OpDelete, Start: 2, End: 3, Line: 1}}},
	}
	for _, tt := range tests {
		p, err := ParseBody(tt.body)
		if err != nil {
			t.Errorf("%q: %v", tt.body, err)
			continue
		}
		if !reflect.DeepEqual(p.Hunks, tt.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tt.body, p.Hunks, tt.want)
		}
	}
}

func TestParseFileOps(t *testing.T) {
	tests := []struct {
		body       string
		remove     bool
		moveTo     string
		hunks, err string
	}{
		{body: "REM", remove: true},
		{body: "  REM  ", remove: true},
		{body: "MV src/new.ts", moveTo: "src/new.ts"},
		{body: `MV "dir with space/new name.ts"`, moveTo: "dir with space/new name.ts"},
		{body: "SWAP 1:\n+x\nMV b.ts", moveTo: "b.ts", hunks: "SWAP 1:"},
		{body: "MV b.ts\nreplace 1:\n+x", moveTo: "b.ts", hunks: "replace 1:"},
		{body: "REM\nDEL 1", err: "`REM` deletes the section's file, so it cannot be combined"},
		{body: "REM\nMV b.ts", err: "`REM` deletes the section's file"},
		{body: "MV a\nMV b", err: "line 2: `MV` is given twice"},
		{body: "REM\nREM", err: "line 2: `REM` is given twice"},
		{body: `MV ""`, err: "line 1: `MV` needs a destination path"},
	}
	for _, tt := range tests {
		p, err := ParseBody(tt.body)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err %v, want %q", tt.body, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.body, err)
			continue
		}
		var hs []string
		for _, h := range p.Hunks {
			hs = append(hs, h.Written())
		}
		if p.Remove != tt.remove || p.MoveTo != tt.moveTo || strings.Join(hs, ";") != tt.hunks {
			t.Errorf("%q: remove %v move %q hunks %q", tt.body, p.Remove, p.MoveTo, hs)
		}
	}
}

func TestParseErrorsNameTheOpAsWritten(t *testing.T) {
	tests := []struct{ body, want string }{
		{"delete 2:\n+X", "line 1: `delete N..M` has no colon and no body."},
		{"delete block 5:", "line 1: `delete block 5` has no colon and no body. Remove the colon and body rows, or use `replace block 5:` to replace the block."},
		{"DEL 4.=5:", "line 1: `DEL N.=M` has no colon and no body."},
		{"DEL.BLK 5:", "line 1: `DEL.BLK 5` has no colon and no body. Remove the colon and body rows, or use `SWAP.BLK 5:` to replace the block."},
		{"DEL 2.=3\n  stray", "line 2: `DEL 2.=3` does not take body rows. Remove the body, or use `SWAP 2.=3:`."},
		{"DEL.BLK 2\n  stray", "line 2: `DEL.BLK 2` does not take body rows. Remove the body, or use `SWAP.BLK 2:` to replace the block."},
		{"INS.POST 3:", "line 1: `INS.POST 3:` needs at least one `+TEXT` body row."},
		{"SWAP.BLK 3:", "line 1: `SWAP.BLK 3:` needs at least one `+TEXT` body row. To delete the block, use `DEL.BLK 3`."},
		{"SWAP 3.=2:\n+x", "line 1: range 3..2 ends before it starts."},
		{"2.=3", "line 1: bare range hunk header \"2.=3\" is not valid."},
		{"DEL 1\nSWAP 1:\n+x", "line 2: anchor line 1 is already targeted by another hunk on line 1."},
	}
	for _, tt := range tests {
		_, err := ParseBody(tt.body)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want prefix %q", tt.body, err, tt.want)
		}
	}
}

// TestApplySecondVerbSet applies each op of the second verb set and checks
// it matches its first-set twin byte for byte.
func TestApplySecondVerbSet(t *testing.T) {
	file := "a\nb\nc\nd\ne\n"
	res := mapResolver{2: {2, 4}}
	tests := []struct{ v2, v1, want string }{
		{"SWAP 2.=3:\n+X", "replace 2..3:\n+X", "a\nX\nd\ne\n"},
		{"SWAP 2.=3:", "delete 2..3", "a\nd\ne\n"},
		{"DEL 2", "delete 2", "a\nc\nd\ne\n"},
		{"DEL 2.=4", "delete 2..4", "a\ne\n"},
		{"INS.PRE 2:\n+X", "insert before 2:\n+X", "a\nX\nb\nc\nd\ne\n"},
		{"INS.POST 2:\n+X", "insert after 2:\n+X", "a\nb\nX\nc\nd\ne\n"},
		{"INS.HEAD:\n+X", "insert head:\n+X", "X\na\nb\nc\nd\ne\n"},
		{"INS.TAIL:\n+X", "insert tail:\n+X", "a\nb\nc\nd\ne\nX\n"},
		{"SWAP.BLK 2:\n+X", "replace block 2:\n+X", "a\nX\ne\n"},
		{"DEL.BLK 2", "delete block 2", "a\ne\n"},
		{"INS.BLK.POST 2:\n+X", "insert after block 2:\n+X", "a\nb\nc\nd\nX\ne\n"},
	}
	for _, tt := range tests {
		var got [2]string
		for i, body := range []string{tt.v2, tt.v1} {
			r, err := ApplySection(Section{Path: "a.txt", Tag: Tag([]byte(file)), Body: body}, File{Path: "a.txt", Key: "a", Bytes: []byte(file)}, Options{Resolver: res})
			if err != nil {
				t.Fatalf("%q: %v", body, err)
			}
			got[i] = string(r.New)
		}
		if got[0] != tt.want || got[1] != tt.want {
			t.Errorf("%q: %q, twin %q: %q, want %q", tt.v2, got[0], tt.v1, got[1], tt.want)
		}
	}
	// Block echoes name the op as written.
	r, err := ApplySection(Section{Path: "a.txt", Tag: Tag([]byte(file)), Body: "DEL.BLK 2"}, File{Path: "a.txt", Key: "a", Bytes: []byte(file)}, Options{Resolver: res})
	if err != nil || !strings.Contains(r.Text, "DEL.BLK 2 → resolved lines 2-4 (3 lines)") {
		t.Errorf("echo: %v %q", err, r.Text)
	}
	_, err = ApplySection(Section{Path: "a.txt", Tag: Tag([]byte(file)), Body: "SWAP.BLK 3:\n+x"}, File{Path: "a.txt", Key: "a", Bytes: []byte(file)}, Options{Resolver: res})
	if err == nil || !strings.HasPrefix(err.Error(), "line 1: `SWAP.BLK 3:` could not resolve a syntactic block beginning on line 3.") || !strings.Contains(err.Error(), "Use `SWAP 3.=M:`") {
		t.Errorf("unresolved block: %v", err)
	}
}

func TestBracketHeaders(t *testing.T) {
	file := "a\nb\n"
	r, err := ApplySection(Section{Path: "a.txt", Tag: Tag([]byte(file)), Body: "SWAP 1:\n+x"}, File{Path: "a.txt", Key: "a", Bytes: []byte(file)}, Options{BracketHeaders: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[a.txt#" + Tag([]byte("x\nb\n")) + "]\n"; !strings.HasPrefix(r.Text, want) {
		t.Errorf("text %q, want prefix %q", r.Text, want)
	}
}

func TestApplyFileOps(t *testing.T) {
	file := []byte("a\nb\n")
	f := File{Path: "a.txt", Key: "a", Bytes: file}
	r, err := ApplySection(Section{Path: "a.txt", Tag: Tag(file), Body: "REM"}, f, Options{})
	if err != nil || !r.Remove || r.New != nil || !strings.HasPrefix(r.Text, "Removed a.txt") {
		t.Fatalf("REM: %+v %v", r, err)
	}
	r, err = ApplySection(Section{Path: "a.txt", Tag: Tag(file), Body: "MV b/c.txt"}, f, Options{})
	if err != nil || r.MoveTo != "b/c.txt" || string(r.New) != string(file) || r.NoOp || !strings.HasPrefix(r.Text, "¶b/c.txt#"+Tag(file)+"\nmoved from a.txt") {
		t.Fatalf("MV: %+v %v", r, err)
	}
	r, err = ApplySection(Section{Path: "a.txt", Tag: Tag(file), Body: "SWAP 1:\n+x\nMV b.txt"}, f, Options{})
	if err != nil || r.MoveTo != "b.txt" || string(r.New) != "x\nb\n" || !strings.HasPrefix(r.Text, "¶b.txt#"+Tag([]byte("x\nb\n"))+"\nmoved from a.txt") {
		t.Fatalf("SWAP+MV: %+v %v", r, err)
	}
	// A stale tag refuses REM and a bare MV: they need the content read.
	for _, body := range []string{"REM", "MV b.txt"} {
		_, err = ApplySection(Section{Path: "a.txt", Tag: "0000", Body: body}, f, Options{})
		if err == nil || err.(*Error).Kind != KindStale || !strings.Contains(err.Error(), "current file hashes to #"+Tag(file)) {
			t.Errorf("%s stale: %v", body, err)
		}
	}
}
