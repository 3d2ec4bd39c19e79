package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/hashls/hashls/internal/replaytest"
)

// ompMeta is the part of an omp edit-benchmark fixture's metadata.json the
// fix is derived from.
type ompMeta struct {
	MutationType     string `json:"mutation_type"`
	MutationCategory string `json:"mutation_category"`
	LineNumber       int    `json:"line_number"`
	OriginalSnippet  string `json:"original_snippet"`
	MutatedSnippet   string `json:"mutated_snippet"`
	FilePath         string `json:"file_path"`
	Context          struct {
		FileLines  int `json:"file_lines"`
		LineIndent int `json:"line_indent"`
	} `json:"context"`
}

// ompFixture is one fixture of testdata/omp-edit-bench: the mutated file
// and its metadata.
type ompFixture struct {
	Name, File, Input string
	Meta              ompMeta
}

func loadOmpFixtures(t testing.TB, dir string) []ompFixture {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []ompFixture
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		f := ompFixture{Name: e.Name()}
		raw, err := os.ReadFile(filepath.Join(dir, f.Name, "metadata.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &f.Meta); err != nil {
			t.Fatalf("%s: metadata.json: %v", f.Name, err)
		}
		ins, err := os.ReadDir(filepath.Join(dir, f.Name, "input"))
		if err != nil || len(ins) != 1 {
			t.Fatalf("%s: want one file under input/ (%v)", f.Name, err)
		}
		f.File = ins[0].Name()
		b, err := os.ReadFile(filepath.Join(dir, f.Name, "input", f.File))
		if err != nil {
			t.Fatal(err)
		}
		f.Input = string(b)
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ompExpected derives the file before the mutation from the mutated input
// and the metadata alone, undoing the mutation as the README of
// testdata/omp-edit-bench says; an error says why it cannot be derived
// (the metadata leaves the place ambiguous).
func ompExpected(input string, m ompMeta) (string, error) {
	lines := strings.Split(input, "\n") // a final "" keeps the last newline
	n := m.LineNumber
	if n < 1 || n > len(lines) {
		return "", fmt.Errorf("line_number %d outside the file's %d lines", n, len(lines))
	}
	at := func(i int, ins ...string) string {
		out := append(append(append([]string(nil), lines[:i]...), ins...), lines[i:]...)
		return strings.Join(out, "\n")
	}
	switch m.MutatedSnippet {
	case "[swapped]":
		if m.MutationType == "swap-if-else" {
			return ompSwapIfElse(lines, n-1)
		}
		var a, b int
		if _, err := fmt.Sscanf(m.OriginalSnippet, "[lines %d-%d]", &a, &b); err != nil || a != n || b != a+1 || b > len(lines) {
			return "", fmt.Errorf("swapped lines %q: not two adjacent lines at line_number", m.OriginalSnippet)
		}
		lines[a-1], lines[b-1] = lines[b-1], lines[a-1]
		return strings.Join(lines, "\n"), nil
	case "[deleted]", "[removed]":
		// The statement is put back at line_number, indented by line_indent
		// and, inside its own braces, two more spaces a level (the files'
		// style); the snippet's lines carry no indentation of their own.
		var rows []string
		depth := 0
		for _, s := range strings.Split(m.OriginalSnippet, "\n") {
			s = strings.TrimSpace(s)
			if strings.HasPrefix(s, "}") && depth > 0 {
				depth--
			}
			rows = append(rows, strings.Repeat(" ", m.Context.LineIndent+2*depth)+s)
			if strings.HasSuffix(s, "{") {
				depth++
			}
		}
		return at(n-1, rows...), nil
	}
	if m.MutationType == "identifier-multi-edit" {
		// The identifier was misspelled at line_number and elsewhere (the
		// metadata names one place; the fixture's prompt says "in multiple
		// separate locations"): every whole-word occurrence of the
		// misspelling is put back, and there must be one at line_number.
		if !ompHasWord(lines[n-1], m.MutatedSnippet) {
			return "", fmt.Errorf("%q is not a word on line %d", m.MutatedSnippet, n)
		}
		count := 0
		for i, l := range lines {
			var sb strings.Builder
			last := 0
			for _, k := range ompWords(l, m.MutatedSnippet) {
				sb.WriteString(l[last:k] + m.OriginalSnippet)
				last = k + len(m.MutatedSnippet)
				count++
			}
			lines[i] = sb.String() + l[last:]
		}
		if count < 2 {
			return "", fmt.Errorf("%q occurs once: not the multiple places the mutation names", m.MutatedSnippet)
		}
		return strings.Join(lines, "\n"), nil
	}
	// A token changed on line_number: put the original back where the
	// mutated snippet is; it must be there exactly once (as a whole word
	// when it is one, and not as part of the original snippet still in the
	// line: the "." of a "?." was not mutated).
	line := lines[n-1]
	if m.MutatedSnippet == "" {
		return "", fmt.Errorf("mutated_snippet is empty: the metadata does not say where on line %d %q was removed", n, m.OriginalSnippet)
	}
	var hits []int
	for _, k := range ompWords(line, m.MutatedSnippet) {
		if !ompInside(line, k, k+len(m.MutatedSnippet), m.OriginalSnippet) {
			hits = append(hits, k)
		}
	}
	if len(hits) != 1 {
		return "", fmt.Errorf("%q occurs %d times on line %d (%q): the metadata does not say which one was mutated", m.MutatedSnippet, len(hits), n, strings.TrimSpace(line))
	}
	k := hits[0]
	lines[n-1] = line[:k] + m.OriginalSnippet + line[k+len(m.MutatedSnippet):]
	return strings.Join(lines, "\n"), nil
}

// ompWords lists the offsets in line where snip occurs as a whole word
// (ompWholeWord), left to right, not overlapping.
func ompWords(line, snip string) []int {
	var out []int
	for i := 0; snip != ""; {
		k := strings.Index(line[i:], snip)
		if k < 0 {
			break
		}
		k += i
		if ompWholeWord(line, k, k+len(snip)) {
			out = append(out, k)
			i = k + len(snip)
		} else {
			i = k + 1
		}
	}
	return out
}

func ompHasWord(line, snip string) bool { return len(ompWords(line, snip)) > 0 }

// ompWholeWord reports whether line[i:j] is not part of a longer word: a
// snippet that begins (ends) with a letter, digit or _ must not have one
// just before (after) it.
func ompWholeWord(line string, i, j int) bool {
	word := func(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	first, _ := utf8.DecodeRuneInString(line[i:])
	last, _ := utf8.DecodeLastRuneInString(line[:j])
	if before, _ := utf8.DecodeLastRuneInString(line[:i]); i > 0 && word(first) && word(before) {
		return false
	}
	if after, _ := utf8.DecodeRuneInString(line[j:]); j < len(line) && word(last) && word(after) {
		return false
	}
	return true
}

// ompInside reports whether line[i:j] lies within an occurrence of orig in
// line.
func ompInside(line string, i, j int, orig string) bool {
	for o := 0; o < len(line); {
		k := strings.Index(line[o:], orig)
		if k < 0 || orig == "" {
			return false
		}
		k += o
		if k <= i && j <= k+len(orig) {
			return true
		}
		o = k + 1
	}
	return false
}

// ompSwapIfElse swaps back the bodies the mutation swapped: from the `if
// (...) {` on line i (0-based), the first `} else {` line after it, and the
// first `}` line after that at the `} else {` line's indentation (the
// files are formatted, so indentation marks the blocks; counting braces
// would not do: the mutation may pair an if with an inner else), `if
// (...) {` A `} else {` B `}` becomes `if (...) {` B `} else {` A `}`.
func ompSwapIfElse(lines []string, i int) (string, error) {
	if !strings.HasPrefix(strings.TrimSpace(lines[i]), "if") || !strings.HasSuffix(lines[i], "{") {
		return "", fmt.Errorf("line %d is not an `if (...) {` line: %q", i+1, strings.TrimSpace(lines[i]))
	}
	indent := func(l string) string { return l[:len(l)-len(strings.TrimLeft(l, " \t"))] }
	els := -1
	for j := i + 1; j < len(lines); j++ {
		if strings.TrimSpace(lines[j]) == "} else {" {
			els = j
			break
		}
	}
	if els < 0 {
		return "", fmt.Errorf("no `} else {` line after the if on line %d", i+1)
	}
	for j := els + 1; j < len(lines); j++ {
		if strings.TrimSpace(lines[j]) == "}" && indent(lines[j]) == indent(lines[els]) {
			out := append([]string(nil), lines[:i+1]...)
			out = append(out, lines[els+1:j]...)
			out = append(out, lines[els])
			out = append(out, lines[i+1:els]...)
			out = append(out, lines[j:]...)
			return strings.Join(out, "\n"), nil
		}
	}
	return "", fmt.Errorf("the else on line %d is not closed at its indentation", els+1)
}

// ompConcurrent is the other side's change for a stale play: one line away
// from the fix (at least four lines from it: git merges such changes
// cleanly), in the middle of the larger untouched part of the file, gets a
// comment appended. It returns the file with that change (theirs) and the
// fix with it too (git's merge), or ok false when the file has no such line.
func ompConcurrent(input, expected string) (theirs, merged string, ok bool) {
	a, b := replaytest.Lines(input), replaytest.Lines(expected)
	lo, hi := len(a), 0
	for _, op := range replaytest.Opcodes(a, b) {
		if op.Tag != 'e' {
			lo, hi = min(lo, op.I1), max(hi, op.I2)
		}
	}
	before, after := lo-4, len(a)-(hi+4)
	var k int
	switch {
	case before <= 0 && after <= 0:
		return "", "", false
	case before >= after:
		k = before / 2
	default:
		k = hi + 4 + after/2
	}
	kb := k
	if k >= hi {
		kb = k + len(b) - len(a)
	}
	if a[k] != b[kb] {
		return "", "", false
	}
	const note = " // changed by the other side"
	a = append([]string(nil), a...)
	b = append([]string(nil), b...)
	a[k] += note
	b[kb] += note
	return strings.Join(a, "\n") + "\n", strings.Join(b, "\n") + "\n", true
}

// TestOmpEditBenchCLI plays omp's edit benchmark (oh-my-pi's
// react-edit-benchmark: mutated React source files with one known bug each,
// testdata/omp-edit-bench) through the edit tool as the CLI runs it: the fix,
// derived from each fixture's metadata, written as hashline ops on a fresh
// tag, must leave the file before the mutation byte for byte; on a stale tag
// (another line changed after the read) it must land as git's merge or be
// refused with the file untouched. Fixtures whose fix the metadata does not
// determine are listed and not played.
func TestOmpEditBenchCLI(t *testing.T) {
	fx := loadOmpFixtures(t, "../testdata/omp-edit-bench")
	var cs []replaytest.Case
	var underivable []string
	same := map[string]string{} // file_path -> the file before its mutation, from another fixture
	for _, f := range fx {
		exp, err := ompExpected(f.Input, f.Meta)
		switch {
		case err != nil:
		case exp == f.Input:
			err = fmt.Errorf("the derived fix changes nothing")
		case strings.Count(exp, "\n")+1 != f.Meta.Context.FileLines:
			// file_lines counts the original's lines as split on "\n".
			err = fmt.Errorf("the derived original has %d lines, the metadata's file_lines says %d", strings.Count(exp, "\n")+1, f.Meta.Context.FileLines)
		}
		if err != nil {
			underivable = append(underivable, f.Name)
			t.Logf("%s: fix not derivable from metadata: %v", f.Name, err)
			continue
		}
		// Fixtures mutating the same React file must agree on its original.
		if prev, ok := same[f.Meta.FilePath]; ok && prev != exp {
			t.Errorf("%s: the derived original of %s differs from another fixture's", f.Name, f.Meta.FilePath)
		}
		same[f.Meta.FilePath] = exp
		theirs, merged, ok := ompConcurrent(f.Input, exp)
		if !ok {
			t.Fatalf("%s: no line far enough from the fix to change concurrently", f.Name)
		}
		cs = append(cs, replaytest.Case{
			Repo: f.Meta.MutationCategory, Merge: f.Name, Path: f.Name + "/" + f.File,
			Base: f.Input, Ours: exp, Theirs: theirs, Merged: merged,
		})
	}
	env := newTestEnv(t)
	env.Edit.AllowUnseen = true
	tally := replaytest.Run(t, cliPlayer{t, env}, cs)
	t.Logf("fixtures %d, played %d, not derivable %d %v", len(fx), len(cs), len(underivable), underivable)
	// The seven whose metadata does not fix the edit (testdata's README
	// says why each): any other is a fix the test failed to derive.
	if want := "access-remove-optional-chain-002 access-remove-optional-chain-003 literal-flip-boolean-003 literal-off-by-one-002 operator-remove-negation-001 operator-remove-negation-002 operator-remove-negation-003"; strings.Join(underivable, " ") != want {
		t.Errorf("not derivable: %v, want exactly %s", underivable, want)
	}
	t.Logf("fresh exact %d/%d; stale recovered %d, refused %d, misapplied %d",
		tally["all"].Exact, len(fx), tally["all"].Recovered, tally["all"].Refused, tally["all"].Misapplied)
}
