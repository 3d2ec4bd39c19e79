package agent

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashls/hashls/edit"
)

// braceLang spells the scenarios in one brace language.
type braceLang struct {
	name, ext string
	prelude   []string // lines before the function (Go's package clause)
	ind       string   // one indentation step
	// swap branches
	fnRender, declMD, ifWorks, appendNone, forWorks, appendT, ret string
	// move an else / close a block early
	fnAB, ifA, ifB, callX, callY, callZ string
}

var braceLangs = []braceLang{
	{name: "typescript", ext: "ts", ind: "  ",
		fnRender: "function render(works: string[]): string {", declMD: `let md = "";`, ifWorks: "if (works.length > 0) {",
		appendNone: `md += "none";`, forWorks: "for (const t of works) {", appendT: "md += t;", ret: "return md;",
		fnAB: "function f(a: boolean, b: boolean): void {", ifA: "if (a) {", ifB: "if (b) {", callX: "x();", callY: "y();", callZ: "z();"},
	{name: "javascript", ext: "js", ind: "  ",
		fnRender: "function render(works) {", declMD: `let md = "";`, ifWorks: "if (works.length > 0) {",
		appendNone: `md += "none";`, forWorks: "for (const t of works) {", appendT: "md += t;", ret: "return md;",
		fnAB: "function f(a, b) {", ifA: "if (a) {", ifB: "if (b) {", callX: "x();", callY: "y();", callZ: "z();"},
	{name: "go", ext: "go", prelude: []string{"package p", ""}, ind: "\t",
		fnRender: "func render(works []string) string {", declMD: `md := ""`, ifWorks: "if len(works) > 0 {",
		appendNone: `md += "none"`, forWorks: "for _, t := range works {", appendT: "md += t", ret: "return md",
		fnAB: "func f(a, b bool) {", ifA: "if a {", ifB: "if b {", callX: "x()", callY: "y()", callZ: "z()"},
	{name: "rust", ext: "rs", ind: "    ",
		fnRender: "fn render(works: &[String]) -> String {", declMD: "let mut md = String::new();", ifWorks: "if !works.is_empty() {",
		appendNone: `md.push_str("none");`, forWorks: "for t in works {", appendT: "md.push_str(t);", ret: "md",
		fnAB: "fn f(a: bool, b: bool) {", ifA: "if a {", ifB: "if b {", callX: "x();", callY: "y();", callZ: "z();"},
}

// proofCase is one edit whose auto-repair the parser must decline: the
// file and the edit's ops use 1-based lines counted from the file's first
// line; want is the file after the edit exactly as written.
type proofCase struct {
	name     string
	path     string
	file     []string
	ops      string
	want     []string
	declined string // the repair the warning must name ("" : none fires)
}

func braceCases(l braceLang) []proofCase {
	i1, i2, i3 := l.ind, l.ind+l.ind, l.ind+l.ind+l.ind
	off := len(l.prelude)
	n := func(k int) string { return strconv.Itoa(k + off) }
	withPrelude := func(lines ...string) []string { return append(append([]string(nil), l.prelude...), lines...) }
	path := "src/f." + l.ext
	return []proofCase{{
		// The example: swap the branches of an if/else.
		name: l.name + "/swap-branches", path: path,
		file: withPrelude(l.fnRender, i1+l.declMD, i1+l.ifWorks, i2+l.appendNone, i1+"} else {",
			i2+l.forWorks, i3+l.appendT, i2+"}", i1+"}", i1+l.ret, "}"),
		ops: "delete " + n(4) + ".." + n(5) + "\ninsert after " + n(8) + ":\n+" + i1 + "} else {\n+" + i2 + l.appendNone,
		want: withPrelude(l.fnRender, i1+l.declMD, i1+l.ifWorks,
			i2+l.forWorks, i3+l.appendT, i2+"}", i1+"} else {", i2+l.appendNone, i1+"}", i1+l.ret, "}"),
		declined: "insert-after landing shift",
	}, {
		// Move an else from the inner if to the outer one.
		name: l.name + "/move-else", path: path,
		file:     withPrelude(l.fnAB, i1+l.ifA, i2+l.ifB, i3+l.callX, i2+"}", i1+"}", i1+l.callY, "}"),
		ops:      "insert after " + n(5) + ":\n+" + i1 + "} else {\n+" + i2 + l.callZ,
		want:     withPrelude(l.fnAB, i1+l.ifA, i2+l.ifB, i3+l.callX, i2+"}", i1+"} else {", i2+l.callZ, i1+"}", i1+l.callY, "}"),
		declined: "insert-after landing shift",
	}, {
		// Close a block early: y() leaves the if, whose old closer goes.
		name: l.name + "/close-block-early", path: path,
		file:     withPrelude(l.fnAB, i1+l.ifA, i2+l.callX, i2+l.callY, i1+"}", i1+l.callZ, "}"),
		ops:      "insert after " + n(3) + ":\n+" + i1 + "}\nreplace " + n(4) + ".." + n(5) + ":\n+" + i1 + l.callY,
		want:     withPrelude(l.fnAB, i1+l.ifA, i2+l.callX, i1+"}", i1+l.callY, i1+l.callZ, "}"),
		declined: "delimiter balance",
	}}
}

var pythonProofCases = []proofCase{{
	// Remove a call wrapper by a line continuation: the old `)` goes.
	name: "python/unwrap-call", path: "src/f.py",
	file:     []string{"def f(x):", "    value = outer(", "        inner(x)", "    )", "    return value"},
	ops:      "replace 2..2:\n+    value = \\\nreplace 3..4:\n+        inner(x)",
	want:     []string{"def f(x):", "    value = \\", "        inner(x)", "    return value"},
	declined: "delimiter balance",
}, {
	// Swapping branches in Python: no repair fires (no closers), the edit
	// lands as written.
	name: "python/swap-branches", path: "src/f.py",
	file: []string{"def render(works):", "    md = \"\"", "    if works:", "        md += \"none\"", "    else:",
		"        for t in works:", "            md += t", "    return md"},
	ops: "delete 4..5\ninsert after 7:\n+    else:\n+        md += \"none\"",
	want: []string{"def render(works):", "    md = \"\"", "    if works:",
		"        for t in works:", "            md += t", "    else:", "        md += \"none\"", "    return md"},
}}

// TestRepairsNeedTheParser runs the example and its kin in five
// languages through the edit tool: the heuristic repair would break code
// that parses as written, so it is declined, the edit lands as written,
// and the warning names the declined repair.
func TestRepairsNeedTheParser(t *testing.T) {
	var cases []proofCase
	for _, l := range braceLangs {
		cases = append(cases, braceCases(l)...)
	}
	cases = append(cases, pythonProofCases...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := newTestEnv(t)
			content := strings.Join(c.file, "\n") + "\n"
			writeRootFile(t, env, c.path, content)
			if _, err := runTool(env, "read", map[string]string{"path": c.path}); err != nil {
				t.Fatal(err)
			}
			input := "¶" + c.path + "#" + edit.Tag([]byte(content)) + "\n" + c.ops
			res, err := runTool(env, "edit", map[string]string{"input": input})
			if err != nil {
				t.Fatalf("edit: %v", err)
			}
			got, _ := os.ReadFile(filepath.Join(env.WS.Root(), c.path))
			if want := strings.Join(c.want, "\n") + "\n"; string(got) != want {
				t.Fatalf("result\n%s\nwant (the edit as written)\n%s\nresponse:\n%s", got, want, res.Text)
			}
			if strings.Contains(res.Text, "Auto-repaired") {
				t.Errorf("a repair was applied:\n%s", res.Text)
			}
			if strings.Contains(res.Text, "syntax errors at") {
				t.Errorf("the as-written result was reported broken:\n%s", res.Text)
			}
			if c.declined == "" {
				if strings.Contains(res.Text, "Declined") {
					t.Errorf("unexpected declined repair:\n%s", res.Text)
				}
				return
			}
			if !strings.Contains(res.Text, "Declined the auto-repair ("+c.declined+")") {
				t.Errorf("warning does not name the declined %s:\n%s", c.declined, res.Text)
			}
		})
	}
}

// TestRepairsTheParserAgreesWith checks that a repair the parser proves
// right still runs (a restated closing brace).
func TestRepairsTheParserAgreesWith(t *testing.T) {
	env := newTestEnv(t)
	content := "function f() {\n  if (a) {\n    x();\n  }\n  y();\n}\n"
	writeRootFile(t, env, "a.ts", content)
	if _, err := runTool(env, "read", map[string]string{"path": "a.ts"}); err != nil {
		t.Fatal(err)
	}
	// The payload restates the if's closing line below the range.
	res, err := runTool(env, "edit", map[string]string{"input": "¶a.ts#" + edit.Tag([]byte(content)) + "\nreplace 3..3:\n+    x(1);\n+  }"})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(env.WS.Root(), "a.ts"))
	if want := "function f() {\n  if (a) {\n    x(1);\n  }\n  y();\n}\n"; string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s\n%s", got, want, res.Text)
	}
	if !strings.Contains(res.Text, "Auto-repaired a delimiter-balance mismatch") {
		t.Errorf("repair warning missing:\n%s", res.Text)
	}
}

// TestSyntaxWarningNamesNewErrors: an edit that leaves a syntax error in
// the lines it changed succeeds with a warning naming them.
func TestSyntaxWarningNamesNewErrors(t *testing.T) {
	env := newTestEnv(t)
	content := "package p\n\nfunc f() {\n\tx := 1\n\t_ = x\n}\n"
	writeRootFile(t, env, "a.go", content)
	if _, err := runTool(env, "read", map[string]string{"path": "a.go"}); err != nil {
		t.Fatal(err)
	}
	res, err := runTool(env, "edit", map[string]string{"input": "¶a.go#" + edit.Tag([]byte(content)) + "\nreplace 4..4:\n+\tx := (1 +"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "The edited file has syntax errors at line") {
		t.Fatalf("no syntax warning:\n%s", res.Text)
	}
	// A file that was broken there already gets no new warning.
	content2, _ := os.ReadFile(filepath.Join(env.WS.Root(), "a.go"))
	res, err = runTool(env, "edit", map[string]string{"input": "¶a.go#" + edit.Tag(content2) + "\ninsert after 2:\n+// note"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Text, "syntax errors") {
		t.Errorf("warned about an old error:\n%s", res.Text)
	}
}
