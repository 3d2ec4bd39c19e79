package agent

import (
	"strings"
	"testing"
)

// TestRenderSearch renders search pages without a scan: the notes on
// paging, skipped paths and binary files, and the page's byte bound.
func TestRenderSearch(t *testing.T) {
	page := func(o searchOutcome, d searchDetails) *searchOutcome {
		if d.FileMatches == nil {
			d.FileMatches = map[string]int{}
		}
		o.d = &d
		if o.maxBytes == 0 {
			o.maxBytes = 1 << 20
		}
		return &o
	}
	cases := []struct {
		name string
		o    *searchOutcome
		want string
	}{
		{"next page", page(searchOutcome{text: "¶a.go#ABCD\n1:x\n", skip: 0, pageFiles: 1},
			searchDetails{FileCount: 1, TotalFiles: 3, TotalMatches: 5, NextSkip: 1}),
			"¶a.go#ABCD\n1:x\n\nShowing files 1-1 of 3 (5 matching lines in all). Use skip=1 for the next page.\n"},
		{"past the end", page(searchOutcome{skip: 4},
			searchDetails{TotalFiles: 2, MissingPaths: []string{"gone"}}),
			"No matches on this page: skip=4 is past the 2 matching files.\nShowing files 2-4 of 2.\nSkipped missing paths: gone\n"},
		{"binary", page(searchOutcome{single: true, singlePath: "b.bin"},
			searchDetails{BinarySkipped: 1}),
			"No matches found\nSkipped b.bin: it is a binary file (it holds a NUL byte).\n"},
		{"bounded", page(searchOutcome{text: strings.Repeat("1:x\n", 10), pageFiles: 1, maxBytes: 12},
			searchDetails{FileCount: 1, TotalFiles: 1}),
			"1:x\n1:x\n1:x\n\n[Output truncated at 0 KiB. Narrow the pattern or the paths, or use skip.]\n"},
	}
	for _, c := range cases {
		res := renderSearch(c.o)
		if res.Text != c.want {
			t.Errorf("%s: text\n%q\nwant\n%q", c.name, res.Text, c.want)
		}
	}
}
