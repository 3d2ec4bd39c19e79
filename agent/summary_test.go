package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hashls/hashls/edit"
)

type summaryConfCase struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Lines  int    `json:"lines"`
	File   string `json:"file"`
	Expect struct {
		Summary     string `json:"summary"`
		ElidedSpans int    `json:"elided_spans"`
		ElidedLines int    `json:"elided_lines"`
	} `json:"expect"`
}

func loadSummaryConfCases(t *testing.T) []summaryConfCase {
	t.Helper()
	f, err := os.Open("../testdata/conformance/summary/cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []summaryConfCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var c summaryConfCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

func TestSummarizeForReadConformance(t *testing.T) {
	cases := loadSummaryConfCases(t)
	if len(cases) != 8 {
		t.Fatalf("want 8 cases, got %d", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			content := []byte(c.File)
			tag := edit.Tag(content)
			text, details, ok := DefaultLimits().summarizeForRead(context.Background(), c.Path, tag, content)
			if !ok {
				t.Fatal("summarizeForRead declined")
			}
			if text != c.Expect.Summary {
				t.Errorf("summary mismatch\n%s", firstDiff(text, c.Expect.Summary))
			}
			want := map[string]any{"lines": c.Lines, "elidedSpans": c.Expect.ElidedSpans, "elidedLines": c.Expect.ElidedLines}
			if fmt.Sprint(details) != fmt.Sprint(want) {
				t.Errorf("details = %v, want %v", details, want)
			}
			// CRLF and a BOM change nothing but the bytes.
			crlf := []byte("\ufeff" + strings.ReplaceAll(c.File, "\n", "\r\n"))
			text2, _, ok := DefaultLimits().summarizeForRead(context.Background(), c.Path, tag, crlf)
			if !ok || text2 != text {
				t.Errorf("CRLF+BOM variant differs (ok=%v)\n%s", ok, firstDiff(text2, text))
			}
		})
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b || i >= len(g) || i >= len(w) {
			return fmt.Sprintf("line %d:\n got %q\nwant %q", i+1, a, b)
		}
	}
	return "(no difference)"
}

func TestSummarizeForReadDeclines(t *testing.T) {
	// goFile builds a Go file of at least n lines whose function bodies
	// can be elided; pad widens each body line.
	goFile := func(n, pad int) string {
		var b strings.Builder
		b.WriteString("package p\n\n")
		p := strings.Repeat("x", pad)
		for i, lines := 0, 2; lines < n; i, lines = i+1, lines+6 {
			fmt.Fprintf(&b, "func f%d() {\n\tx := %q\n\t_ = x\n\ty := 2\n\t_ = y\n}\n", i, p)
		}
		return b.String()
	}
	// padLines appends comment lines until s has exactly n lines.
	padLines := func(s string, n int) string {
		for c := strings.Count(s, "\n"); c < n; c++ {
			s += "// pad\n"
		}
		return s
	}
	tests := []struct {
		name, path, content string
		want                bool
	}{
		{"ok", "a.go", goFile(200, 1), true},
		{"short", "a.go", goFile(60, 1), false},
		{"markdown", "a.md", "# x\n" + strings.Repeat("text\n", 200), false},
		{"txt", "a.txt", goFile(200, 1), false},
		{"unknown ext", "a.unknownext", goFile(200, 1), false},
		{"syntax error", "a.go", goFile(200, 1) + "func broken( {\n", false},
		{"binary", "a.go", goFile(200, 1) + "\x00\x01", false},
		{"just under 2 MiB", "a.go", goFile(6000, 1900), true},
		{"over 2 MiB", "a.go", goFile(6000, 2200), false},
		{"20000 lines", "a.go", padLines(goFile(19990, 1), 20000), true},
		{"20001 lines", "a.go", padLines(goFile(19990, 1), 20001), false},
		{"nothing to elide", "a.go", "package p\n" + strings.Repeat("var _ = 1\n", 150), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, ok := DefaultLimits().summarizeForRead(context.Background(), tc.path, "ABCD", []byte(tc.content))
			if ok != tc.want {
				t.Errorf("ok = %v, want %v", ok, tc.want)
			}
		})
	}
}

func TestCanMergeBracePair(t *testing.T) {
	tests := []struct {
		head, tail string
		want       bool
	}{
		{"DEFAULTS = {", "}", true},
		{"f(", ")", true},
		{"x = [ ", "  ],", true},
		{"z.object({", "});", true},
		{"const LIMITS = {", "} as const;", false},
		{"if x {", "} else {", false},
		{"a {", ")", false},
		{"a", "}", false},
		{"", "}", false},
	}
	for _, tc := range tests {
		if got := canMergeBracePair(tc.head, tc.tail); got != tc.want {
			t.Errorf("canMergeBracePair(%q, %q) = %v, want %v", tc.head, tc.tail, got, tc.want)
		}
	}
}

// The summary of a huge file obeys the read caps: it ends before a
// declaration, says which lines it covers and how to read the rest, and
// the rest read from there continues where it stopped.
func TestSummaryObeysReadCaps(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n\n")
	for i := 0; i < 2400; i++ {
		fmt.Fprintf(&b, "// F%d does a thing with a rather long comment to take some room.\nfunc F%d(a, b int) int {\n\tx := a + %d\n\ty := b * x\n\treturn x + y\n}\n\n", i, i, i)
	}
	content := []byte(b.String())
	text, details, ok := DefaultLimits().summarizeForRead(context.Background(), "big.go", "ABCD", content)
	if !ok {
		t.Fatal("no summary")
	}
	if n := strings.Count(text, "\n"); n > DefaultLimits().ReadLines || len(text) > DefaultLimits().ReadBytes {
		t.Fatalf("summary is %d lines, %d bytes: over the read caps", n, len(text))
	}
	next, _ := details["nextLine"].(int)
	if next == 0 {
		t.Fatalf("no nextLine in %v", details)
	}
	lines := strings.Split(string(content), "\n")
	if l := lines[next-1]; l != "" && !strings.HasPrefix(l, "// F") && !strings.HasPrefix(l, "func F") {
		t.Fatalf("cut inside a declaration: line %d is %q", next, lines[next-1])
	}
	want := fmt.Sprintf("it covers lines 1-%d of %d. Read big.go:%d- for the rest", next-1, len(lines)-1, next)
	if !strings.Contains(text, want) {
		t.Fatalf("no %q in the footer:\n%s", want, text[len(text)-500:])
	}
	// Every row shown is before the cut.
	if strings.Contains(text, fmt.Sprintf("\n%d:", next)) {
		t.Fatalf("line %d shown past the cut", next)
	}
}
