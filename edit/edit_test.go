package edit

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseBodyShapes(t *testing.T) {
	tests := []struct {
		body string
		want []Hunk
	}{
		{"replace 2..3:\n+x", []Hunk{{Kind: OpReplace, Start: 2, End: 3, Rows: []string{"x"}, Line: 1}}},
		{"replace 2:\n+x", []Hunk{{Kind: OpReplace, Start: 2, End: 2, Rows: []string{"x"}, Line: 1}}},
		{"replace 2-3\n+x", []Hunk{{Kind: OpReplace, Start: 2, End: 3, Rows: []string{"x"}, Line: 1}}},
		{"replace 2…3:\n+x", []Hunk{{Kind: OpReplace, Start: 2, End: 3, Rows: []string{"x"}, Line: 1}}},
		{"replace 2 .. 3 :\n+x", []Hunk{{Kind: OpReplace, Start: 2, End: 3, Rows: []string{"x"}, Line: 1}}},
		{"  delete 4", []Hunk{{Kind: OpDelete, Start: 4, End: 4, Line: 1}}},
		{"delete block 7", []Hunk{{Kind: OpDeleteBlock, Start: 7, End: 7, Line: 1}}},
		{"replace block 7\n+x", []Hunk{{Kind: OpReplaceBlock, Start: 7, End: 7, Rows: []string{"x"}, Line: 1}}},
		{"insert after block 7:\n+x", []Hunk{{Kind: OpInsertAfterBlock, Start: 7, End: 7, Rows: []string{"x"}, Line: 1}}},
		{"insert before 1\n+x", []Hunk{{Kind: OpInsertBefore, Start: 1, End: 1, Rows: []string{"x"}, Line: 1}}},
		{"insert head\n+x\ninsert tail :\n+y", []Hunk{
			{Kind: OpInsertHead, Rows: []string{"x"}, Line: 1},
			{Kind: OpInsertTail, Rows: []string{"y"}, Line: 3}}},
		{"replace 1:\n+a\n\n+b\n\n", []Hunk{{Kind: OpReplace, Start: 1, End: 1, Rows: []string{"a", "", "b"}, Line: 1}}},
		{"replace 1:\n+\n++x\n+-y", []Hunk{{Kind: OpReplace, Start: 1, End: 1, Rows: []string{"", "+x", "-y"}, Line: 1}}},
		{"# note\nreplace 1:\n+a", []Hunk{{Kind: OpReplace, Start: 1, End: 1, Rows: []string{"a"}, Line: 2}}},
		{"replace 1:\r\n+a\r\n", []Hunk{{Kind: OpReplace, Start: 1, End: 1, Rows: []string{"a"}, Line: 1}}},
		{"replace 2..3:\n>>2:a\n3:b", []Hunk{{Kind: OpReplace, Start: 2, End: 3, Rows: []string{"a", "b"}, Line: 1}}},
		{"replace 2:\n", []Hunk{{Kind: OpReplace, Start: 2, End: 2, Line: 1}}},
		{"replace 1:\n+a\n  \n+b\n \n", []Hunk{{Kind: OpReplace, Start: 1, End: 1, Rows: []string{"a", "  ", "b"}, Line: 1}}},
		{"replace 1:\n# kept as a bare row\nreplace 2:\n+b", []Hunk{
			{Kind: OpReplace, Start: 1, End: 1, Rows: []string{"# kept as a bare row"}, Line: 1},
			{Kind: OpReplace, Start: 2, End: 2, Rows: []string{"b"}, Line: 3}}},
		{"insert after 1:\n+x\n*** Abort\ndelete 9", []Hunk{{Kind: OpInsertAfter, Start: 1, End: 1, Rows: []string{"x"}, Line: 1}}},
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

func TestParseBodyErrors(t *testing.T) {
	tests := []struct{ body, want string }{
		{"replace 3..2:\n+x", "line 1: range 3..2 ends before it starts."},
		{"replace 0:\n+x", "line 1: payload line has no preceding hunk header"},
		{"delete 2\n  stray", "line 2: `delete N..M` does not take body rows"},
		{"replace 2:\n  - item", "line 2: `-` rows are not valid"},
		{"@@ foo @@", "line 1: `@@`-bracketed hunk header \"@@ foo @@\" is not valid"},
		{"delete 1\ndelete 1", "line 2: anchor line 1 is already targeted by another hunk on line 1."},
		{"replace 1..5:\n+x\ndelete 7\nreplace 4..9:\n+y", "line 4: anchor line 4 is already targeted by another hunk on line 1."},
		{"insert head:", "line 1: `insert` needs at least one `+TEXT` body row."},
	}
	for _, tt := range tests {
		_, err := ParseBody(tt.body)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want prefix %q", tt.body, err, tt.want)
		}
	}
}

func TestSplitInputShapes(t *testing.T) {
	secs, err := SplitInput("\ufeff\n*** Begin Patch\n[a b.txt#abcd]\nreplace 1:\n+x\n¶c.txt#1A2B\ndelete 1\n[a b.txt]\ninsert tail:\n+y\n*** End Patch\n¶d.txt#0000\ndelete 1")
	if err != nil {
		t.Fatal(err)
	}
	want := []Section{
		{Path: "a b.txt", Tag: "ABCD", Body: "replace 1:\n+x\ninsert tail:\n+y", Bracket: true},
		{Path: "c.txt", Tag: "1A2B", Body: "delete 1"},
	}
	if !reflect.DeepEqual(secs, want) {
		t.Fatalf("got %+v", secs)
	}
	for in, msg := range map[string]string{
		"":                       "No hashline sections found in input.",
		"¶a.txt#1A2B\n\n  \n":    "No hashline sections found in input.",
		"[]\ndelete 1":           `Input header "[]" is empty; provide a file path.`,
		"¶a#1\ndelete 1":         "Input header must be",
		"hello":                  `input must begin with the "¶PATH#TAG" header`,
		"¶a#0001\n¶a#0002\nx":    "No hashline sections", // empty first section dropped, second has a body
		"¶a#0001\nx\n¶a#0002\ny": "Conflicting hashline snapshot tags for a: #0001 and #0002.",
	} {
		_, err := SplitInput(in)
		if in == "¶a#0001\n¶a#0002\nx" {
			if err != nil {
				t.Errorf("%q: %v", in, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindParse || !strings.Contains(e.Msg, msg) {
			t.Errorf("%q: got %v, want %q", in, err, msg)
		}
	}
}

func apply1(t *testing.T, file, body string) *Result {
	t.Helper()
	res, err := ApplySection(Section{Path: "f.txt", Tag: Tag([]byte(file)), Body: body}, File{Path: "f.txt", Key: "f.txt", Bytes: []byte(file)}, Options{})
	if err != nil {
		t.Fatalf("%q / %q: %v", file, body, err)
	}
	return res
}

func TestLineEndingsBOMFinalNewline(t *testing.T) {
	tests := []struct{ name, file, body, want string }{
		{"mixed stays mixed, replacement takes replaced ending", "a\r\nb\nc\r\nd\n", "replace 3:\n+C\n+C2", "a\r\nb\nC\r\nC2\r\nd\n"},
		{"insert after takes neighbour ending", "a\r\nb\nc\r\n", "insert after 2:\n+x", "a\r\nb\nx\nc\r\n"},
		{"insert before takes neighbour ending", "a\r\nb\nc\r\n", "insert before 1:\n+x", "x\r\na\r\nb\nc\r\n"},
		{"crlf file tail", "a\r\nb\r\n", "insert tail:\n+t", "a\r\nb\r\nt\r\n"},
		{"crlf no final newline tail", "a\r\nb", "insert tail:\n+t", "a\r\nb\r\nt"},
		{"bom kept", "\ufeffa\nb\n", "replace 1:\n+A", "\ufeffA\nb\n"},
		{"bom kept on head insert", "\ufeffa\r\n", "insert head:\n+h", "\ufeffh\r\na\r\n"},
		{"insert after sentinel is tail", "a\nb\n", "insert after 3:\n+t\ninsert tail:\n+u", "a\nb\nt\nu\n"},
		{"no final newline stays without", "a\nb", "replace 2:\n+B", "a\nB"},
		{"delete last line of unterminated file", "a\r\nb\r\nc", "delete 3", "a\r\nb"},
		{"delete all keeps empty", "a\nb\n", "delete 1..2", ""},
		{"empty file head", "", "insert head:\n+x\n+y", "x\ny"},
		{"empty file tail", "", "insert tail:\n+x", "x"},
		{"empty file with anchored insert keeps its line for tail", "", "insert before 1:\n+a\ninsert tail:\n+t\ninsert head:\n+h", "h\na\nt\n"},
		{"empty file insert after then tail", "", "insert after 1:\n+x\ninsert tail:\n+t", "\nx\nt"},
		{"lone CR normalised to first style", "a\r\nb\rc\r\n", "replace 3:\n+C", "a\r\nb\r\nC\r\n"},
		{"untouched CRLF lines byte-identical", "x\r\ny\r\nz\n", "delete 3", "x\r\ny\r\n"},
	}
	for _, tt := range tests {
		res := apply1(t, tt.file, tt.body)
		if string(res.New) != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, res.New, tt.want)
		}
	}
	// An identical replacement on a CRLF line is a no-op with untouched bytes.
	res := apply1(t, "a\r\nb\r\n", "replace 2:\n+b")
	if !res.NoOp || string(res.New) != "a\r\nb\r\n" || !strings.Contains(res.Text, "produced no change") {
		t.Errorf("identical CRLF replacement: %+v", res)
	}
}

// collide finds content with the same 16-bit tag as base but other bytes.
func collide(t *testing.T, base string, mk func(i int) string) string {
	t.Helper()
	want := Tag([]byte(base))
	for i := 0; i < 1<<22; i++ {
		if s := mk(i); s != base && Tag([]byte(s)) == want {
			return s
		}
	}
	t.Fatal("no collision found")
	return ""
}

func TestSHA256CollisionTakesStalePath(t *testing.T) {
	var lines []string
	for i := 1; i <= 20; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	read := strings.Join(lines, "\n") + "\n"
	live := collide(t, read, func(i int) string {
		return strings.Join(lines[:19], "\n") + fmt.Sprintf("\nchanged %d\n", i)
	})
	tag := Tag([]byte(read))
	if Tag([]byte(live)) != tag {
		t.Fatal("not a collision")
	}
	store := newMemStore()
	store.record("k", []byte(read))
	opts := Options{Snapshots: store}
	f := File{Path: "c.txt", Key: "k", Bytes: []byte(live)}

	// The store knows the tag, the sha256 differs: stale, recovered by diff.
	res, err := ApplySection(Section{Path: "c.txt", Tag: tag, Body: "replace 2:\n+LINE 2"}, f, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0], "Recovered from a stale file hash using a previous read snapshot") {
		t.Errorf("warnings %q", res.Warnings)
	}
	if !strings.Contains(string(res.New), "\nLINE 2\n") || !strings.HasSuffix(string(res.New), live[strings.LastIndex(live[:len(live)-1], "\n"):]) {
		t.Errorf("result %q", res.New)
	}

	// An edit on the drifted line cannot be recovered: mismatch, never an
	// apply on 16 matching bits.
	_, err = ApplySection(Section{Path: "c.txt", Tag: tag, Body: "replace 20:\n+x"}, f, opts)
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindStale || !strings.Contains(e.Msg, "file changed between read and edit") ||
		!strings.Contains(e.Msg, "*20:changed") {
		t.Fatalf("got %v", err)
	}

	// Without a record, the tag validates purely by hash (reference rule).
	if _, err := ApplySection(Section{Path: "c.txt", Tag: tag, Body: "replace 20:\n+x"}, f, Options{Snapshots: newMemStore()}); err != nil {
		t.Fatalf("pure-hash validation: %v", err)
	}
}

func TestStaleSnapshotWithoutContent(t *testing.T) {
	read, live := "a\nb\nc\n", "a\nB\nc\n"
	snap := Snapshot{Tag: Tag([]byte(read)), SHA256: sha256.Sum256([]byte(read)), Head: true}
	store := lookupFunc(func(key, tag string) (Snapshot, bool, error) { return snap, tag == snap.Tag, nil })
	_, err := ApplySection(Section{Path: "a.txt", Tag: snap.Tag, Body: "replace 3:\n+C"},
		File{Path: "a.txt", Key: "a", Bytes: []byte(live)}, Options{Snapshots: store})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindStale || !strings.Contains(e.Msg, "file changed between read and edit") {
		t.Fatalf("got %v", err)
	}
}

type lookupFunc func(key, tag string) (Snapshot, bool, error)

func (f lookupFunc) Lookup(key, tag string) (Snapshot, bool, error) { return f(key, tag) }

func TestBlockOps(t *testing.T) {
	file := "function f() {\n  a();\n}\nx();\n"
	sec := Section{Path: "f.ts", Tag: Tag([]byte(file)), Body: "replace block 1:\n+function f() {}"}
	f := File{Path: "f.ts", Bytes: []byte(file)}
	_, err := ApplySection(sec, f, Options{})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindApply || e.Msg != NoResolverMessage {
		t.Fatalf("nil resolver: %v", err)
	}
	res, err := ApplySection(sec, f, Options{Resolver: mapResolver{1: {1, 3}}})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.New) != "function f() {}\nx();\n" || !strings.Contains(res.Text, "replace block 1 → resolved lines 1-3 (3 lines)") {
		t.Fatalf("got %q / %q", res.New, res.Text)
	}
	_, err = ApplySection(Section{Path: "f.ts", Tag: sec.Tag, Body: "delete block 9"}, f, Options{Resolver: mapResolver{}})
	if !errors.As(err, &e) || e.Kind != KindApply || !strings.HasSuffix(e.Msg, "Use `delete 9..M` instead.") {
		t.Fatalf("out-of-range unresolved block: %v", err)
	}

	// Stale tag with a block op: resolved against the tagged snapshot's
	// text, then recovered onto the live text (whose change is one
	// unchanged line away from the block: no conflict).
	read := "// a\n\n" + file + "1\n2\n3\n4\n"
	live := "// header\n\n" + file + "1\n2\n3\n4\n"
	store := newMemStore()
	store.record("k", []byte(read))
	onlySnapshot := resolverFunc(func(_, text string, line int) (int, int, bool) {
		if strings.HasPrefix(text, "// a\n") && line == 3 {
			return 3, 5, true
		}
		return 0, 0, false
	})
	res, err = ApplySection(Section{Path: "f.ts", Tag: Tag([]byte(read)), Body: "delete block 3"},
		File{Path: "f.ts", Key: "k", Bytes: []byte(live)}, Options{Resolver: onlySnapshot, Snapshots: store})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.New) != "// header\n\nx();\n1\n2\n3\n4\n" || len(res.Blocks) != 0 {
		t.Fatalf("stale block: %q %+v", res.New, res.Blocks)
	}
}

type resolverFunc func(path, text string, line int) (int, int, bool)

func (f resolverFunc) BlockRange(path, text string, line int) (int, int, bool) {
	return f(path, text, line)
}

func TestApplyAllMulti(t *testing.T) {
	a, b := []byte("a\n"), []byte("b\n")
	secs := []Section{
		{Path: "a", Tag: Tag(a), Body: "replace 1:\n+a"},
		{Path: "b", Tag: Tag(b), Body: "replace 1:\n+B"},
	}
	files := []File{{Path: "a", Key: "A", Bytes: a}, {Path: "b", Key: "B", Bytes: b}}
	_, err := ApplyAll(secs, files, Options{})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindNoChange || !strings.Contains(e.Msg, "produced no change") {
		t.Fatalf("multi no-op: %v", err)
	}
	files[1].Key = "A"
	_, err = ApplyAll(secs, files, Options{})
	if err == nil || err.Error() != MultipleSectionsSameFileMessage("a", "b") {
		t.Fatalf("same file: %v", err)
	}
	_, err = ApplySection(Section{Path: "a", Body: "insert tail:\n+x"}, File{Path: "a", Bytes: a}, Options{})
	if err == nil || err.Error() != MissingTagMessage("a", false) {
		t.Fatalf("missing tag: %v", err)
	}
	if !strings.HasPrefix(NoopLoopMessage("a", 3), "STOP. Edits to a have been a byte-identical no-op 3 times in a row") {
		t.Fatal(NoopLoopMessage("a", 3))
	}
}

func TestResponseText(t *testing.T) {
	var sb strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&sb, "l%d\n", i)
	}
	res := apply1(t, sb.String(), "replace 3:\n+A\n+B\n+C\n+D\n+E\n+F\ndelete 20\nreplace 25:\n  bare")
	want := "¶f.txt#" + res.NewTag + "\n1:l1\n2:l2\n3:A\n4:B\n…\n7:E\n8:F\n9:l4\n10:l5\n…\n23:l18\n24:l19\n25:l21\n26:l22\n27:l23\n28:l24\n29:  bare\n30:l26\n31:l27" +
		"\n\nWarnings:\n" + warnBare
	if res.Text != want {
		t.Errorf("text:\n%s\nwant:\n%s", res.Text, want)
	}
	if res.FirstChangedLine != 3 {
		t.Errorf("first changed line %d", res.FirstChangedLine)
	}
}

func TestIsCloser(t *testing.T) {
	for s, want := range map[string]bool{
		"}": true, "  });": true, "\t]),": true, ")": true, "} ": true,
		"": false, "  ": false, "};;": false, "} else {": false, "end": false, ";": false, "}x": false,
	} {
		if got := isCloser(s); got != want {
			t.Errorf("isCloser(%q) = %v", s, got)
		}
	}
}

// TestResultSumsLargeFile: the sums and tags a result carries are its
// contents', for a file large enough to be hashed beside the engine's
// other work (sumAsync), whether the store proves the tag (the live tag is
// then not computed, also for a tag written in lower case), the tag
// proves itself, or the edit is recovered from a stale tag, and for a
// no-op, a move and a removal.
func TestResultSumsLargeFile(t *testing.T) {
	var sb strings.Builder
	for i := 1; sb.Len() < 3*asyncSumMin; i++ {
		fmt.Fprintf(&sb, "line %d: some text\n", i)
	}
	read := []byte(sb.String())
	live := append([]byte("an inserted first line\n"), read...)
	readTag := Tag(read)
	store := newMemStore()
	store.record("k", read)
	line100 := strings.Split(string(read), "\n")[99]
	for _, c := range []struct {
		name, tag, body string
		file            []byte
		opts            Options
		want            func(*Result) bool
	}{
		{"store proves the tag", readTag, "replace 100:\n+changed", read, Options{Snapshots: store}, changed},
		{"store proves a lower-case tag", strings.ToLower(readTag), "replace 100:\n+changed", read, Options{Snapshots: store}, changed},
		{"the tag proves itself", readTag, "replace 100:\n+changed", read, Options{}, changed},
		{"recovered from a stale tag", readTag, "replace 100:\n+changed", live, Options{Snapshots: store}, changed},
		{"no-op", readTag, "replace 100:\n+" + line100, read, Options{Snapshots: store}, func(r *Result) bool { return r.NoOp }},
		{"move", readTag, "MV b.txt", read, Options{Snapshots: store}, func(r *Result) bool { return r.MoveTo == "b.txt" }},
		{"removal", readTag, "REM", read, Options{Snapshots: store}, func(r *Result) bool { return r.Remove && r.New == nil }},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := ApplySection(Section{Path: "a.txt", Tag: c.tag, Body: c.body}, File{Path: "a.txt", Key: "k", Bytes: c.file}, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !c.want(res) {
				t.Fatalf("not the result wanted: %+v", res)
			}
			if res.OldSHA256 != sha256.Sum256(res.Old) || res.OldTag != Tag(res.Old) {
				t.Errorf("OldSHA256/OldTag %x/%s are not Old's", res.OldSHA256, res.OldTag)
			}
			if res.Remove {
				return
			}
			if res.NewSHA256 != sha256.Sum256(res.New) || res.NewTag != Tag(res.New) {
				t.Errorf("NewSHA256/NewTag %x/%s are not New's", res.NewSHA256, res.NewTag)
			}
		})
	}
}

func changed(r *Result) bool { return bytes.Contains(r.New, []byte("\nchanged\n")) }

// TestMessagesUseCallersHeaderForm: a refusal teaches the header form the
// caller wrote, whatever form results are printed in.
func TestMessagesUseCallersHeaderForm(t *testing.T) {
	live := []byte("a\nb\nc\n")
	for _, tc := range []struct {
		input, want, not string
	}{
		{"¶f.txt\ninsert tail:\n+x", "use `¶f.txt#TAG`", "[f.txt"},
		{"[f.txt]\ninsert tail:\n+x", "use `[f.txt#TAG]`", "¶"},
		{"¶f.txt#0000\nreplace 1:\n+x", "copy a current ¶PATH#TAG header", "[PATH"},
		{"[f.txt#0000]\nreplace 1:\n+x", "copy a current [PATH#TAG] header", "¶"},
		{"¶f.txt#12\nreplace 1:\n+x", `must be ¶PATH or ¶PATH#TAG with a 4-hex content-hash tag; got "¶f.txt#12"`, "[PATH"},
		{"[f.txt#12]\nreplace 1:\n+x", `must be [PATH] or [PATH#TAG] with a 4-hex content-hash tag; got "[f.txt#12]"`, "¶"},
		{"replace 1:\n+x", `input must begin with the "¶PATH#TAG" header`, "[PATH"},
	} {
		for _, bracketResults := range []bool{false, true} {
			secs, err := SplitInput(tc.input)
			if err == nil {
				_, err = ApplySection(secs[0], File{Path: "f.txt", Bytes: live}, Options{BracketHeaders: bracketResults})
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), tc.not) {
				t.Errorf("%q (bracket results %v): %v; want %q and no %q", tc.input, bracketResults, err, tc.want, tc.not)
			}
		}
	}
}
