package edit

import (
	"strings"
	"testing"
)

// TestRepairsNeedABrokenEdit: each reference repair runs only on an edit
// that is broken as written, and is otherwise declined with a warning
// saying why; the edit then lands exactly as written. No parser is
// involved: the rules are the repairs' own.
func TestRepairsNeedABrokenEdit(t *testing.T) {
	tests := []struct {
		name     string
		file     []string
		ops      string
		want     []string
		repaired string // "Auto-repaired" or the landing warning's text, "" for none
		declined string // the declined repair the warning names, "" for none
	}{{
		// The reference's case: a body indented for after the if.
		name:     "landing/body shallower than the block it ends in",
		file:     []string{"function f() {", "    if (x) {", "        a();", "    }", "    b();", "}"},
		ops:      "insert after 3:\n+    c();",
		want:     []string{"function f() {", "    if (x) {", "        a();", "    }", "    c();", "    b();", "}"},
		repaired: "the landing was moved past 1 closing line",
	}, {
		// A body that is itself a block, ending in its own closer at the
		// depth of the closer below: two closers at one depth in a row.
		name:     "landing/block body",
		file:     []string{"function f() {", "    if (x) {", "        a();", "    }", "}"},
		ops:      "insert after 3:\n+    if (y) {\n+        d();\n+    }",
		want:     []string{"function f() {", "    if (x) {", "        a();", "    }", "    if (y) {", "        d();", "    }", "}"},
		repaired: "the landing was moved past 1 closing line",
	}, {
		// Real history (tmux format.c): a new function written by a line
		// diff as `insert after` the last statement of the previous one,
		// beginning with that function's `}`. It ends inside its own body,
		// deeper than the `}` that follows.
		name:     "landing/body begins with the closer it sits before",
		file:     []string{"static void", "f(void)", "{", "\tfree(cmd);", "}", "", "/* next */"},
		ops:      "insert after 4:\n+}\n+\n+static void\n+g(void)\n+{\n+\tfree(cwd);",
		want:     []string{"static void", "f(void)", "{", "\tfree(cmd);", "}", "", "static void", "g(void)", "{", "\tfree(cwd);", "}", "", "/* next */"},
		declined: "insert-after landing shift",
	}, {
		// Real history (cobra): the same with the body ending in a block.
		name:     "landing/body ending in a block of its own",
		file:     []string{"func f() {", "\tif a {", "\t\tx()", "\t}", "}"},
		ops:      "insert after 3:\n+\t}\n+\tif b {\n+\t\ty()",
		want:     []string{"func f() {", "\tif a {", "\t\tx()", "\t}", "\tif b {", "\t\ty()", "\t}", "}"},
		declined: "insert-after landing shift",
	}, {
		// Real history (tmux screen.c): preprocessor lines at column 0
		// claim no depth; the body is as deep as the line before it.
		name: "landing/preprocessor directives",
		file: []string{"void", "f(struct screen *s)", "{", "\tscreen_free_titles(s);", "}"},
		ops:  "insert after 4:\n+\n+#ifdef ENABLE_SIXEL\n+\timage_free_all(s);\n+#endif",
		want: []string{"void", "f(struct screen *s)", "{", "\tscreen_free_titles(s);", "", "#ifdef ENABLE_SIXEL", "\timage_free_all(s);", "#endif", "}"},
	}, {
		// Real history (CPython unicodeobject.h): a file whose style puts
		// a prototype's `);` at the depth of the line before it. The body
		// ends as deep as its anchor line, as the file does.
		name:     "landing/closer at the depth of the line before it",
		file:     []string{"PyAPI_FUNC(PyObject*) PyUnicode_AsUTF8String(", "    PyObject *unicode", "    );", ""},
		ops:      "insert after 2:\n+    );\n+\n+PyAPI_FUNC(PyObject*) PyUnicode_EncodeUTF8(\n+    const char *errors",
		want:     []string{"PyAPI_FUNC(PyObject*) PyUnicode_AsUTF8String(", "    PyObject *unicode", "    );", "", "PyAPI_FUNC(PyObject*) PyUnicode_EncodeUTF8(", "    const char *errors", "    );", ""},
		declined: "insert-after landing shift",
	}, {
		// A body ending in a line that opens the block the closer below
		// then closes.
		name:     "landing/body opens the block the closer closes",
		file:     []string{"func f() {", "\tif a {", "\t\tx()", "\t}", "}"},
		ops:      "insert after 3:\n+\t}\n+\tif b {",
		want:     []string{"func f() {", "\tif a {", "\t\tx()", "\t}", "\tif b {", "\t}", "}"},
		declined: "insert-after landing shift",
	}, {
		// The reference's case: a restated closer below the range.
		name:     "balance/duplicated closer",
		file:     []string{"it('a', () => {", "\tsetup();", "\trun();", "});", "after();"},
		ops:      "replace 2..3:\n+\tsetup2();\n+\trun2();\n+});",
		want:     []string{"it('a', () => {", "\tsetup2();", "\trun2();", "});", "after();"},
		repaired: "Auto-repaired a delimiter-balance mismatch",
	}, {
		// The same rows, but another hunk opens the block the restated
		// closer closes: the edit as a whole is balanced.
		name:     "balance/made up for by another hunk",
		file:     []string{"it('a', () => {", "\tsetup();", "\trun();", "});", "after();"},
		ops:      "replace 2..3:\n+\tsetup2();\n+\trun2();\n+});\ninsert after 4:\n+it('b', () => {",
		want:     []string{"it('a', () => {", "\tsetup2();", "\trun2();", "});", "});", "it('b', () => {", "after();"},
		declined: "delimiter balance",
	}, {
		// Closing a block early: the closer the range drops is the one
		// another hunk writes higher up.
		name:     "balance/closer moved up",
		file:     []string{"func f(a bool) {", "\tif a {", "\t\tx()", "\t\ty()", "\t}", "\tz()", "}"},
		ops:      "insert after 3:\n+\t}\nreplace 4..5:\n+\ty()",
		want:     []string{"func f(a bool) {", "\tif a {", "\t\tx()", "\t}", "\ty()", "\tz()", "}"},
		declined: "delimiter balance",
	}, {
		// Real history (Go's rangefunc/rewrite.go, between go1.22rc1 and
		// go1.23.0): pseudo-code in the package's /* */ comment, its
		// block replaced by a line that opens one. The brackets of a
		// comment that began above the range are text.
		name: "balance/inside a block comment",
		file: []string{"/*", "Return is rewritten:", "", "\t{", "\t\tf()", "\t}", "", "as above.", "*/", "package p"},
		ops:  "replace 4..6:\n+\t  func foo() (#rv1 A) {",
		want: []string{"/*", "Return is rewritten:", "", "\t  func foo() (#rv1 A) {", "", "as above.", "*/", "package p"},
	}, {
		// The reference's two-sided echo that drops bracket lines.
		name:     "echo/restated wrapper",
		file:     []string{"function f() {", "old();", "}"},
		ops:      "replace 2..2:\n+function f() {\n+fresh();\n+}",
		want:     []string{"function f() {", "fresh();", "}"},
		repaired: "Auto-repaired a replacement boundary echo",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			content := strings.Join(tt.file, "\n") + "\n"
			res, err := ApplySection(Section{Path: "f", Tag: Tag([]byte(content)), Body: tt.ops}, File{Path: "f", Bytes: []byte(content)}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.Join(tt.want, "\n") + "\n"; string(res.New) != want {
				t.Fatalf("got\n%s\nwant\n%s\nwarnings: %q", res.New, want, res.Warnings)
			}
			warns := strings.Join(res.Warnings, "\n")
			if tt.repaired != "" && !strings.Contains(warns, tt.repaired) {
				t.Errorf("no repair warning %q: %q", tt.repaired, res.Warnings)
			}
			if tt.repaired == "" && (strings.Contains(warns, "Auto-repaired") || strings.Contains(warns, "landing was moved")) {
				t.Errorf("a repair ran: %q", res.Warnings)
			}
			if tt.declined != "" && !strings.Contains(warns, "Declined the auto-repair ("+tt.declined+")") {
				t.Errorf("no declined %s warning: %q", tt.declined, res.Warnings)
			}
			if tt.declined == "" && strings.Contains(warns, "Declined") {
				t.Errorf("unexpected declined repair: %q", res.Warnings)
			}
		})
	}
}

// TestLineStateIsTheScanners: lineState (the state-only walk stateAt runs
// over every line of a file) leaves the state balScanner.line leaves, from
// every state, on lines made of the bytes that change it.
func TestLineStateIsTheScanners(t *testing.T) {
	alphabet := []byte("/*\"'`\\(){}[] ax")
	seed := uint64(1)
	next := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % n
	}
	for range 20000 {
		l := make([]byte, next(12))
		for i := range l {
			l[i] = alphabet[next(len(alphabet))]
		}
		checkLineState(t, l)
	}
	// Whole files, with every kind of line break: stateAt (which skips
	// the lines in code without such bytes) against the scanner run over
	// every line.
	alphabet = append(alphabet, '\n', '\n', '\r')
	for range 3000 {
		b := make([]byte, next(200))
		for i := range b {
			b[i] = alphabet[next(len(alphabet))]
		}
		checkStates(t, b)
	}
}

func checkStates(t *testing.T, b []byte) {
	t.Helper()
	d := newDoc(b)
	s := balScanner{}
	for k := 0; k <= d.n(); k++ {
		if got := d.stateAt(k); got != s.state {
			t.Fatalf("stateAt(%d) of %q = %d, the scanner's %d", k, b, got, s.state)
		}
		if k < d.n() {
			s.line(string(d.line(k)))
		}
	}
}

func checkLineState(t *testing.T, l []byte) {
	t.Helper()
	for _, st := range []int{scanCode, scanBlockComment, scanDQ, scanSQ, scanTemplate} {
		s := balScanner{state: st}
		s.line(string(l))
		if got := lineState(st, l); got != s.state {
			t.Fatalf("lineState(%d, %q) = %d, balScanner.line leaves %d", st, l, got, s.state)
		}
	}
}

// FuzzLineState: lineState agrees with balScanner.line on any line, and
// stateAt with the scanner run over every line of any file.
func FuzzLineState(f *testing.F) {
	f.Add([]byte(`a("/*", '\'', x) // }`))
	f.Add([]byte("`x\\` */ /* \"y"))
	f.Fuzz(func(t *testing.T, l []byte) {
		checkLineState(t, l)
		checkStates(t, l)
	})
}
