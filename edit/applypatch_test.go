package edit

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParsePatchShapes(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []PatchOp
	}{
		{"add", "*** Begin Patch\n*** Add File: a.txt\n+one\n+\n+three\n*** End Patch",
			[]PatchOp{{Kind: PatchAdd, Path: "a.txt", Content: "one\n\nthree\n", Line: 2}}},
		{"empty add", "*** Begin Patch\n*** Add File: e.txt\n*** End Patch",
			[]PatchOp{{Kind: PatchAdd, Path: "e.txt", Line: 2}}},
		{"delete", "*** Begin Patch\n*** Delete File: d.txt\n*** End Patch\n",
			[]PatchOp{{Kind: PatchDelete, Path: "d.txt", Line: 2}}},
		{"update with move and header-less first chunk", "*** Begin Patch\n*** Update File: a\n*** Move to: b/c\n x\n-y\n+z\n*** End Patch",
			[]PatchOp{{Kind: PatchUpdate, Path: "a", MoveTo: "b/c", Line: 2, Chunks: []PatchChunk{
				{Line: 4, Lines: []PatchLine{{' ', "x"}, {'-', "y"}, {'+', "z"}}}}}}},
		{"contexts, eof, blank line between chunks", "*** Begin Patch\n*** Update File: a\n@@ class A\n@@   def f():\n-a\n+b\n*** End of File\n\n@@\n+c\n*** End Patch",
			[]PatchOp{{Kind: PatchUpdate, Path: "a", Line: 2, Chunks: []PatchChunk{
				{Line: 3, Contexts: []string{"class A", "  def f():"}, Lines: []PatchLine{{'-', "a"}, {'+', "b"}}, EOF: true},
				{Line: 9, Lines: []PatchLine{{'+', "c"}}}}}}},
		{"unified-diff range header", "*** Begin Patch\n*** Update File: a\n@@ -1,2 +1,2 @@ func f()\n-a\n+b\n@@ -9 +9 @@\n-c\n+d\n*** End Patch",
			[]PatchOp{{Kind: PatchUpdate, Path: "a", Line: 2, Chunks: []PatchChunk{
				{Line: 3, Contexts: []string{"func f()"}, Lines: []PatchLine{{'-', "a"}, {'+', "b"}}},
				{Line: 6, Lines: []PatchLine{{'-', "c"}, {'+', "d"}}}}}}},
		{"bare empty line is empty context; indented marker is context", "*** Begin Patch\n*** Update File: a\n@@\n x\n\n *** Update File: b\n+y\n*** End Patch",
			[]PatchOp{{Kind: PatchUpdate, Path: "a", Line: 2, Chunks: []PatchChunk{
				{Line: 3, Lines: []PatchLine{{' ', "x"}, {' ', ""}, {' ', "*** Update File: b"}, {'+', "y"}}}}}}},
		{"whitespace around markers, CRLF", "  \r\n *** Begin Patch \r\n  *** Delete File: d.txt  \r\n *** End Patch \r\n\r\n",
			[]PatchOp{{Kind: PatchDelete, Path: "d.txt", Line: 2}}},
		{"heredoc", "<<\"EOF\"\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF",
			[]PatchOp{{Kind: PatchDelete, Path: "x", Line: 3}}},
		{"paths with spaces and unicode", "*** Begin Patch\n*** Delete File: dir with space/ünï.txt\n*** End Patch",
			[]PatchOp{{Kind: PatchDelete, Path: "dir with space/ünï.txt", Line: 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePatch(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Ops, tc.want) {
				t.Errorf("ops:\n got %#v\nwant %#v", p.Ops, tc.want)
			}
		})
	}
}

func TestParsePatchErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in, msg string
	}{
		{"empty", "", "The first line of the patch must be '*** Begin Patch'"},
		{"no begin", "*** Update File: a\n*** End Patch", "The first line of the patch must be '*** Begin Patch'"},
		{"no end", "*** Begin Patch\n*** Add File: a\n+x", "The last line of the patch must be '*** End Patch'"},
		{"only begin", "*** Begin Patch", "The last line of the patch must be '*** End Patch'"},
		{"heredoc mismatched", "<<\"EOF'\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF", "The first line of the patch must be '*** Begin Patch'"},
		{"heredoc without closer", "<<EOF\n*** Begin Patch\n*** Delete File: x\n*** End Patch", "The first line of the patch must be '*** Begin Patch'"},
		{"bad header", "*** Begin Patch\n*** Create File: a\n*** End Patch", "Invalid patch hunk on line 2: '*** Create File: a' is not a valid hunk header"},
		{"header without trailing space", "*** Begin Patch\n*** Add File:a\n*** End Patch", "is not a valid hunk header"},
		{"missing path", "*** Begin Patch\n*** Delete File: \n*** End Patch", "'*** Delete File:' needs a path"},
		{"empty update", "*** Begin Patch\n*** Update File: a\n*** End Patch", "Update file hunk for path 'a' is empty"},
		{"empty move", "*** Begin Patch\n*** Update File: a\n*** Move to: \n@@\n+x\n*** End Patch", "'*** Move to:' needs a path"},
		{"second chunk without @@", "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End of File\n-z\n*** End Patch", "Expected update hunk to start with a @@ context marker, got: '-z'"},
		{"bad line in update", "*** Begin Patch\n*** Update File: a\n@@\n-x\nfoo\n*** End Patch", "Unexpected line found in update hunk: 'foo'"},
		{"@@ without lines", "*** Begin Patch\n*** Update File: a\n@@\n*** End Patch", "Update hunk does not contain any lines"},
		{"eof first", "*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n*** End Patch", "'*** End of File' must follow"},
		{"bad @@", "*** Begin Patch\n*** Update File: a\n@@x\n-a\n*** End Patch", "Invalid chunk header '@@x'"},
		{"add line without +", "*** Begin Patch\n*** Add File: a\n+x\ny\n*** End Patch", "Every line of a new file must start with '+'"},
		{"blank inside add", "*** Begin Patch\n*** Add File: a\n+x\n\n+y\n*** End Patch", "Blank line inside Add File section"},
		{"body after delete", "*** Begin Patch\n*** Delete File: a\n-x\n*** End Patch", "A Delete File section has no body"},
		{"text after end", "*** Begin Patch\n*** Delete File: a\n*** End Patch\n*** Delete File: b\n*** End Patch", "unexpected text after '*** End Patch'"},
		{"no ops", "*** Begin Patch\n\n*** End Patch", "No files were modified."},
		{"empty environment id", "*** Begin Patch\n*** Environment ID:   \n*** Add File: h\n+h\n*** End Patch", "apply_patch environment_id cannot be empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePatch(tc.in)
			if err == nil {
				t.Fatal("no error")
			}
			e, ok := err.(*Error)
			if !ok || e.Kind != KindParse {
				t.Fatalf("error %T %v, want *Error KindParse", err, err)
			}
			if !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("error %q, want it to contain %q", e.Msg, tc.msg)
			}
		})
	}
}

func TestParsePatchEnvironmentID(t *testing.T) {
	p, err := ParsePatch("*** Begin Patch\n*** Environment ID: box-1\n*** Delete File: a\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	if p.EnvironmentID != "box-1" || len(p.Ops) != 1 {
		t.Errorf("got %+v", p)
	}
}

func mustChunks(t *testing.T, body string) []PatchChunk {
	t.Helper()
	p, err := ParsePatch("*** Begin Patch\n*** Update File: f\n" + body + "\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	return p.Ops[0].Chunks
}

func TestApplyPatchChunks(t *testing.T) {
	for _, tc := range []struct {
		name, old, body, want string
	}{
		{"replace", "a\nb\nc\n", "@@\n a\n-b\n+B\n c", "a\nB\nc\n"},
		{"two chunks in order", "a\nb\nc\nd\n", "@@\n-a\n+A\n@@\n-d\n+D", "A\nb\nc\nD\n"},
		{"context header narrows the search", "def f():\n    x = 1\ndef g():\n    x = 1\n", "@@ def g():\n-    x = 1\n+    x = 2", "def f():\n    x = 1\ndef g():\n    x = 2\n"},
		{"two context headers", "class A:\n  def f():\n    r\nclass B:\n  def f():\n    r\n", "@@ class B:\n@@   def f():\n-    r\n+    s", "class A:\n  def f():\n    r\nclass B:\n  def f():\n    s\n"},
		{"pure addition appends", "a\n", "@@\n+b", "a\nb\n"},
		{"pure addition after a context header", "a\nb\nc\n", "@@ a\n+x", "a\nx\nb\nc\n"},
		{"eof anchors to the tail", "x\ny\nx\n", "@@\n-x\n+z\n*** End of File", "x\ny\nz\n"},
		{"rstrip pass", "foo   \nbar\t\n", "@@\n-foo\n-bar\n+baz", "baz\n"},
		{"trim pass keeps context text", "    foo\n  bar\n", "@@\n foo\n-bar\n+BAR", "    foo\nBAR\n"},
		{"unicode pass", "say “hi” — now\n", "@@\n-say \"hi\" - now\n+bye", "bye\n"},
		{"exact beats earlier fuzzy", "foo \nfoo\n", "@@\n-foo\n+bar", "foo \nbar\n"},
		{"trailing empty line retried", "a\nb\n", "@@\n-b\n+B\n", "a\nB\n"},
		{"no final newline gains one", "a\nb", "@@\n-a\n+A", "A\nb\n"},
		{"delete everything", "a\n", "@@\n-a", ""},
		{"empty file append", "", "@@\n+x", "x\n"},
		{"context-only chunk is unchanged", "a\n", "@@\n a", "a\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ApplyPatchChunks("f", []byte(tc.old), mustChunks(t, tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestApplyPatchChunksErrors(t *testing.T) {
	for _, tc := range []struct {
		name, old, body, msg string
	}{
		{"not found", "a\n", "@@\n-zz\n+b", "Failed to find expected lines in f:\nzz\n"},
		{"not found names the missing line", "a\nb\n", "@@\n-q\n a\n+b", "The line 'q' is not in the file"},
		{"lines exist but not as a block", "a\nx\nb\n", "@@\n-a\n-b\n+c", "The first 1 of its lines match at file line 1, but then the patch has 'b' where the file has 'x' (line 2)."},
		{"file ends early", "a\nb\n", "@@\n a\n b\n-c\n+d", "The first 2 of its lines match at file line 1, but the file ends before 'c'."},
		{"chunks out of order", "a\nb\n", "@@\n-b\n+B\n@@\n-a\n+A", "Failed to find expected lines in f:\na"},
		{"context header missing", "a\n", "@@ nope\n-a\n+b", "Failed to find context 'nope' in f"},
		{"ambiguous", "x\nx\n", "@@\n-x\n+y", "Ambiguous chunk 1 for f"},
		{"eof chunk not after previous chunk", "one\n", "@@\n-one\n+first\n@@\n-one\n+second\n*** End of File", "Failed to find expected lines"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ApplyPatchChunks("f", []byte(tc.old), mustChunks(t, tc.body))
			if err == nil {
				t.Fatal("no error")
			}
			e := err.(*Error)
			if e.Kind != KindApply || !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("error %s %q, want it to contain %q", e.Kind, e.Msg, tc.msg)
			}
		})
	}
}

func TestApplyPatchChunksLineEndings(t *testing.T) {
	for _, tc := range []struct {
		name, old, body, want string
	}{
		{"crlf", "one\r\ntwo\r\nthree\r\n", "@@\n-one\n+ONE\n two\n+between\n three", "ONE\r\ntwo\r\nbetween\r\nthree\r\n"},
		{"mixed keeps untouched endings", "one\r\ntwo\rthree\nfour\r\n", "@@\n one\n two\n-three\n+THREE\n four", "one\r\ntwo\rTHREE\r\nfour\r\n"},
		{"lone cr", "one\rtwo\rthree\r", "@@\n-one\n+uno\n@@\n two\n+\n+between\n three", "uno\rtwo\r\rbetween\rthree\r"},
		{"context keeps its own ending", "same\r\nsame\n", "@@\n-same\n same", "same\n"},
		{"missing final newline takes the file's", "one\r\ntwo", "@@\n-one\n+ONE", "ONE\r\ntwo\r\n"},
		{"bom kept", "\xEF\xBB\xBFa\r\nb\r\n", "@@\n-a\n+A", "\xEF\xBB\xBFA\r\nb\r\n"},
		{"append after blank crlf line", "a\r\n\r\n", "@@\n+new", "a\r\n\r\nnew\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ApplyPatchChunks("f", []byte(tc.old), mustChunks(t, tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAddFileContent(t *testing.T) {
	for _, tc := range []struct {
		content string
		old     []byte
		want    string
	}{
		{"a\nb\n", nil, "a\nb\n"},
		{"a\nb\n", []byte("x\n"), "a\nb\n"},
		{"a\nb\n", []byte("x\r\ny\n"), "a\r\nb\r\n"},
		{"a\n", []byte("\xEF\xBB\xBFx\n"), "\xEF\xBB\xBFa\n"},
		{"", []byte{}, ""},
	} {
		if got := string(AddFileContent(tc.content, tc.old)); got != tc.want {
			t.Errorf("AddFileContent(%q, %q) = %q, want %q", tc.content, tc.old, got, tc.want)
		}
	}
}

func TestSeekLines(t *testing.T) {
	lines := []string{"foo", "bar", "baz"}
	for _, tc := range []struct {
		pattern  []string
		start    int
		eof      bool
		idx, alt int
	}{
		{[]string{"bar", "baz"}, 0, false, 1, -1},
		{nil, 2, false, 2, -1},
		{[]string{"a", "b", "c", "d"}, 0, false, -1, -1}, // longer than the input
		{[]string{"foo"}, 1, false, -1, -1},
		{[]string{"baz"}, 0, true, 2, -1},
		{[]string{"foo"}, 0, true, 0, -1},    // eof falls back to the forward search
		{[]string{" baz "}, 0, false, 2, -1}, // trim pass
	} {
		idx, alt := seekLines(lines, tc.pattern, tc.start, tc.eof, true)
		if idx != tc.idx || alt != tc.alt {
			t.Errorf("seekLines(%q, %d, %v) = %d, %d; want %d, %d", tc.pattern, tc.start, tc.eof, idx, alt, tc.idx, tc.alt)
		}
	}
}

// benchPatch builds a file of n lines and an Update with one chunk every
// n/chunks lines (3 lines of context each side).
func benchPatch(n, chunks int) ([]byte, string) {
	var file, patch strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&file, "\tline %d of the file = value(%d)\r\n", i, i*7)
	}
	patch.WriteString("*** Begin Patch\n*** Update File: big.go\n")
	for c := 0; c < chunks; c++ {
		at := (c*n)/chunks + n/(2*chunks)
		patch.WriteString("@@\n")
		for i := at - 3; i < at; i++ {
			fmt.Fprintf(&patch, " \tline %d of the file = value(%d)\n", i, i*7)
		}
		fmt.Fprintf(&patch, "-\tline %d of the file = value(%d)\n+\tchanged %d\n", at, at*7, at)
		for i := at + 1; i <= at+3; i++ {
			fmt.Fprintf(&patch, " \tline %d of the file = value(%d)\n", i, i*7)
		}
	}
	patch.WriteString("*** End Patch\n")
	return []byte(file.String()), patch.String()
}

func BenchmarkParsePatch(b *testing.B) {
	_, patch := benchPatch(20000, 50)
	b.SetBytes(int64(len(patch)))
	for b.Loop() {
		if _, err := ParsePatch(patch); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkApplyPatchChunks(b *testing.B) {
	file, patch := benchPatch(20000, 50)
	p, err := ParsePatch(patch)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(file)))
	for b.Loop() {
		if _, err := ApplyPatchChunks("big.go", file, p.Ops[0].Chunks); err != nil {
			b.Fatal(err)
		}
	}
}
