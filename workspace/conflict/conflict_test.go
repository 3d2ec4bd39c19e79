package conflict

import (
	"strconv"
	"strings"
	"testing"
)

const merge = "a\n<<<<<<< HEAD\nours1\nours2\n=======\ntheirs\n>>>>>>> feature\nb\n"
const diff3 = "<<<<<<< ours\nx\n||||||| base\no\n=======\ny\n>>>>>>> theirs\n"

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []Region
	}{
		{"merge", merge, []Region{{ID: 1, Start: 2, End: 7, OursStart: 3, TheirsStart: 6, Ours: []string{"ours1", "ours2"}, Theirs: []string{"theirs"}, OursLabel: "HEAD", TheirsLabel: "feature"}}},
		{"diff3", diff3, []Region{{ID: 1, Start: 1, End: 7, OursStart: 2, BaseStart: 4, TheirsStart: 6, Ours: []string{"x"}, Base: []string{"o"}, Theirs: []string{"y"}, HasBase: true, OursLabel: "ours", BaseLabel: "base", TheirsLabel: "theirs"}}},
		{"crlf", strings.ReplaceAll(merge, "\n", "\r\n"), []Region{{ID: 1, Start: 2, End: 7, OursStart: 3, TheirsStart: 6, Ours: []string{"ours1", "ours2"}, Theirs: []string{"theirs"}, OursLabel: "HEAD", TheirsLabel: "feature"}}},
		{"two", merge + merge, nil},
		{"unterminated", "<<<<<<< a\nx\n=======\ny\n", nil},
		{"no separator", "<<<<<<< a\nx\n>>>>>>> b\n", nil},
		{"eight chars is not a marker", "<<<<<<<< a\nx\n=======\ny\n>>>>>>> b\n", nil},
		{"empty sides", "<<<<<<<\n=======\n>>>>>>>", []Region{{ID: 1, Start: 1, End: 3}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Parse([]byte(tc.text))
			if tc.name == "two" {
				if len(got) != 2 || got[1].ID != 2 || got[1].Start != 10 {
					t.Fatalf("%+v", got)
				}
				return
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d regions %+v, want %d", len(got), got, len(tc.want))
			}
			for i := range got {
				if g, w := strings.TrimSpace(strings.ReplaceAll(sprint(got[i]), "\r", "")), sprint(tc.want[i]); g != w {
					t.Fatalf("region %d:\n%s\nwant\n%s", i, g, w)
				}
			}
		})
	}
}

func sprint(r Region) string {
	return strings.Join([]string{strings.Join(r.Ours, "|"), strings.Join(r.Base, "|"), strings.Join(r.Theirs, "|"), r.OursLabel, r.BaseLabel, r.TheirsLabel,
		itoa(r.ID), itoa(r.Start), itoa(r.End), itoa(r.OursStart), itoa(r.BaseStart), itoa(r.TheirsStart)}, ";")
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestReplace(t *testing.T) {
	r := Parse([]byte(merge))[0]
	for _, tc := range []struct{ repl, want string }{
		{"resolved\n", "a\nresolved\nb\n"},
		{"resolved", "a\nresolved\nb\n"},
		{"", "a\nb\n"},
		{"x\ny", "a\nx\ny\nb\n"},
	} {
		got, err := Replace([]byte(merge), r, tc.repl)
		if err != nil || string(got) != tc.want {
			t.Errorf("Replace(%q) = %q, %v; want %q", tc.repl, got, err, tc.want)
		}
	}
	crlf := strings.ReplaceAll(merge, "\n", "\r\n")
	got, _ := Replace([]byte(crlf), Parse([]byte(crlf))[0], "x\ny\n")
	if string(got) != "a\r\nx\r\ny\r\nb\r\n" {
		t.Errorf("crlf: %q", got)
	}
	if _, err := Replace([]byte("a\n"), r, "x"); err == nil {
		t.Error("out of range region accepted")
	}
}

// FuzzConflicts: Parse never panics; regions are in order, inside the
// text, with their markers where they say; replacing a region by its ours
// side leaves one region fewer.
func FuzzConflicts(f *testing.F) {
	f.Add(merge, "x")
	f.Add(diff3, "")
	f.Add(merge+diff3+"<<<<<<< dangling\n", "y\r\n")
	f.Add(strings.ReplaceAll(merge, "\n", "\r\n"), "z")
	f.Fuzz(func(t *testing.T, text, repl string) {
		regs := Parse([]byte(text))
		lines := Lines([]byte(text))
		prevEnd := 0
		for i, r := range regs {
			if r.ID != i+1 || r.Start <= prevEnd || r.End <= r.Start || r.End > len(lines) {
				t.Fatalf("bad region %+v (prev end %d, %d lines)", r, prevEnd, len(lines))
			}
			if _, ok := marker(lines[r.Start-1], '<'); !ok {
				t.Fatalf("region %d does not start on a <<<<<<< line", r.ID)
			}
			if _, ok := marker(lines[r.End-1], '>'); !ok {
				t.Fatalf("region %d does not end on a >>>>>>> line", r.ID)
			}
			prevEnd = r.End
		}
		if len(regs) == 0 {
			return
		}
		// A marker line outside every region (a dangling one) may pair
		// with what the replacement leaves behind and form a new region,
		// as git's markers would: the count is checked only without them.
		for i, l := range lines {
			dangling := false
			for _, ch := range []byte("<=|>") {
				if _, ok := marker(l, ch); ok {
					dangling = true
				}
			}
			for _, r := range regs {
				if i+1 >= r.Start && i+1 <= r.End {
					dangling = false
				}
			}
			if dangling {
				return
			}
		}
		if strings.Contains(repl, "<<<<<<<") || strings.Contains(repl, ">>>>>>>") || strings.Contains(repl, "=======") || strings.Contains(repl, "|||||||") || strings.Contains(repl, "\r") {
			return
		}
		out, err := Replace([]byte(text), regs[0], repl)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(Parse(out)); got > len(regs)-1 {
			// a region whose text was inside region 1 cannot exist, so
			// the count drops by one.
			t.Fatalf("%d regions after replacing one of %d:\n%q", got, len(regs), out)
		}
	})
}
