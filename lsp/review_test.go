package lsp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashls/hashls/internal/benchfile"
)

// reviewOf makes a review of text with the agent's change to next.
func reviewOf(text, next string) *fileReview {
	var ids int64
	f := newFileReview([]byte(text), &ids)
	f.agentChange([]byte(next), reviewAttr{Agent: "claude-code", Turn: "t1", Tool: "edit"})
	return f
}

// hunkText renders f's hunks as "old→new" per hunk, for comparisons.
func hunkText(f *fileReview) string {
	var b strings.Builder
	for i, h := range f.hunks {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(strings.ReplaceAll(string(h.old), "\n", "/") + "→" + strings.ReplaceAll(string(f.cur[h.s:h.e]), "\n", "/"))
	}
	return b.String()
}

// checkInvariants: hunks sorted, apart, inside cur, on line starts.
func checkInvariants(t *testing.T, f *fileReview) {
	t.Helper()
	prev := -1
	for _, h := range f.hunks {
		if h.s < prev || h.s > h.e || h.e > len(f.cur) {
			t.Fatalf("hunk [%d,%d) out of order or bounds (prev end %d, len %d)", h.s, h.e, prev, len(f.cur))
		}
		if h.s > 0 && f.cur[h.s-1] != '\n' && f.cur[h.s-1] != '\r' {
			t.Fatalf("hunk starts mid-line at %d in %q", h.s, f.cur)
		}
		if h.e > h.s && h.e < len(f.cur) && f.cur[h.e-1] != '\n' && f.cur[h.e-1] != '\r' {
			t.Fatalf("hunk ends mid-line at %d in %q", h.e, f.cur)
		}
		prev = h.e
	}
}

func TestReviewAgentHunks(t *testing.T) {
	base := "a\nb\nc\nd\ne\nf\ng\n"
	f := reviewOf(base, "A\nb\nc\nd\nE\nE2\nf\n")
	if got := hunkText(f); got != "a/→A/ | e/→E/E2/ | g/→" {
		t.Fatalf("hunks %q", got)
	}
	if string(f.base()) != base {
		t.Fatalf("base %q", f.base())
	}
	checkInvariants(t, f)

	// The person types on an unchanged line: the base follows, the hunks move.
	f.sync([]byte("x\nA\nb\nc!\nd\nE\nE2\nf\n"))
	if got := hunkText(f); got != "a/→A/ | e/→E/E2/ | g/→" || string(f.base()) != "x\na\nb\nc!\nd\ne\nf\ng\n" {
		t.Fatalf("after typing outside: %q base %q", got, f.base())
	}
	// Inside a hunk: absorbed, the hunk keeps its id and attribution.
	id := f.hunks[1].id
	f.sync([]byte("x\nA\nb\nc!\nd\nE\nE2 typed\nf\n"))
	if got := hunkText(f); got != "a/→A/ | e/→E/E2 typed/ | g/→" || f.hunks[1].id != id || f.hunks[1].attrs[0].Agent != "claude-code" {
		t.Fatalf("after typing inside: %q", got)
	}
	// Typing a hunk back to its old text drops it.
	f.sync([]byte("x\na\nb\nc!\nd\nE\nE2 typed\nf\n"))
	if got := hunkText(f); got != "e/→E/E2 typed/ | g/→" {
		t.Fatalf("after typing one back: %q", got)
	}
	checkInvariants(t, f)

	// Undo one hunk: the text gets the old lines back, the hunk is gone.
	text, picked := f.undone(func(h *rhunk) bool { return h == f.hunks[1] })
	if string(text) != "x\na\nb\nc!\nd\nE\nE2 typed\nf\ng\n" || len(picked) != 1 {
		t.Fatalf("undone %q", text)
	}
	f.undo([]int64{picked[0].id})
	if string(f.cur) != string(text) || hunkText(f) != "e/→E/E2 typed/" {
		t.Fatalf("after undo: %q %q", f.cur, hunkText(f))
	}
	// Keep the rest: the base is the text.
	f.keep(func(*rhunk) bool { return true })
	if string(f.base()) != string(f.cur) || len(f.hunks) != 0 {
		t.Fatalf("after keep: %q", f.base())
	}
}

func TestReviewMerges(t *testing.T) {
	// A second agent change touching a hunk merges with it, and both
	// attributions stay.
	f := reviewOf("a\nb\nc\n", "a\nB\nc\n")
	f.agentChange([]byte("a\nB\nC\n"), reviewAttr{Agent: "codex", Turn: "t2"})
	if got := hunkText(f); got != "b/c/→B/C/" || len(f.hunks[0].attrs) != 2 || !f.hunks[0].hasTurn("t2") || !f.hunks[0].hasTurn("t1") {
		t.Fatalf("merged: %q %+v", got, f.hunks)
	}
	// Lines inserted where lines were deleted make one replacement.
	f = reviewOf("a\nb\nc\n", "a\nc\n")
	f.agentChange([]byte("a\nX\nc\n"), reviewAttr{Agent: "codex"})
	if got := hunkText(f); got != "b/→X/" {
		t.Fatalf("delete then insert: %q", got)
	}
	// The person deletes lines spanning a deletion hunk: absorbed.
	f = reviewOf("a\nb\nc\nd\n", "a\nb\nd\n")
	f.sync([]byte("a\n"))
	if got := hunkText(f); got != "b/c/d/→" || string(f.base()) != "a\nb\nc\nd\n" {
		t.Fatalf("deletion across: %q base %q", got, f.base())
	}
	// Inserting whole lines right before an added hunk moves it.
	f = reviewOf("a\nb\n", "a\nN\nb\n")
	f.sync([]byte("a\nP\nN\nb\n"))
	if got := hunkText(f); got != "→N/" || string(f.base()) != "a\nP\nb\n" {
		t.Fatalf("insert before: %q base %q", got, f.base())
	}
	// A file without a final line break.
	f = reviewOf("a\nb", "a\nB")
	if got := hunkText(f); got != "b→B" || string(f.base()) != "a\nb" {
		t.Fatalf("no final break: %q", got)
	}
	checkInvariants(t, f)
}

// FuzzReview: any sequence of agent and person changes keeps the hunks
// well formed and cur equal to the text; undoing every hunk gives the base;
// the person's changes alone never make a hunk.
func FuzzReview(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n", "x\na\nB!\nc\n", "a\nc\n", true)
	f.Add("", "new\n", "ne", "", false)
	f.Add("a\r\nb\r\n", "a\r\nB\r\n", "a\r\n", "q\rb", true)
	f.Fuzz(func(t *testing.T, t0, t1, t2, t3 string, agentLast bool) {
		var ids int64
		fr := newFileReview([]byte(t0), &ids)
		fr.sync([]byte(t1))
		if len(fr.hunks) != 0 {
			t.Fatalf("the person's change made hunks: %q", hunkText(fr))
		}
		fr.agentChange([]byte(t2), reviewAttr{Agent: "a"})
		if string(fr.cur) != t2 || string(fr.base()) != t1 {
			t.Fatalf("agent change: cur %q base %q", fr.cur, fr.base())
		}
		checkInvariants(t, fr)
		if agentLast {
			fr.agentChange([]byte(t3), reviewAttr{Agent: "b"})
		} else {
			fr.sync([]byte(t3))
		}
		if string(fr.cur) != t3 {
			t.Fatalf("cur %q, want %q", fr.cur, t3)
		}
		checkInvariants(t, fr)
		base := fr.base()
		var all []int64
		for _, h := range fr.hunks {
			all = append(all, h.id)
		}
		fr.undo(all)
		if string(fr.cur) != string(base) || len(fr.hunks) != 0 {
			t.Fatalf("undo all: %q, base %q", fr.cur, base)
		}
	})
}

// BenchmarkReviewTyping: the review's cost per keystroke of the person in a
// 5,000-line document with three hunks under review (the server pays it
// only while a document has hunks).
func BenchmarkReviewTyping(b *testing.B) {
	var sb strings.Builder
	for i := range 5000 {
		sb.WriteString("\tline number " + strings.Repeat("x", i%40) + "\n")
	}
	text := sb.String()
	agent := strings.Replace(strings.Replace(strings.Replace(text, "\tline number xx\n", "\tAGENT\n", 1), "\tline number xxxxx\n", "", 1), "\tline number xxxxxxxxxx\n", "\tA\n\tB\n", 1)
	f := reviewOf(text, agent)
	if len(f.hunks) != 3 {
		b.Fatalf("%d hunks", len(f.hunks))
	}
	mid := len(agent) / 2
	texts := [2][]byte{[]byte(agent[:mid] + "y" + agent[mid:]), []byte(agent)}
	b.ResetTimer()
	for i := range b.N {
		f.sync(texts[i%2])
	}
}

// BenchmarkReviewAgentEdit50: what the hub's review pays for
// bench/edit.sh's forwarded 50-hunk edit of the 10,000-line file: the
// file, under review with the last edit's 50 hunks, put back by the person
// (the bench restores it), then the agent's edit again.
func BenchmarkReviewAgentEdit50(b *testing.B) {
	orig := benchfile.Text()
	lines := strings.SplitAfter(string(orig), "\n")
	for i := 0; i < 50; i++ {
		lines[i*200] = fmt.Sprintf("changed %d\n", i)
	}
	edited := []byte(strings.Join(lines, ""))
	var ids int64
	f := newFileReview(orig, &ids)
	f.agentChange(edited, reviewAttr{Agent: "bench"})
	if len(f.hunks) != 50 {
		b.Fatalf("%d hunks", len(f.hunks))
	}
	for b.Loop() {
		f.sync(orig)
		f.agentChange(edited, reviewAttr{Agent: "bench"})
	}
}
