package agent

// Each tool's text is rendered from plain values; these tests render them
// without a workspace, a walk or a commit.

import (
	"strings"
	"testing"
	"time"

	"github.com/hashls/hashls/workspace/search"
)

// TestRenderFind renders findings without a walk: grouping by directory in
// order of first appearance, root-level names first, the notes.
func TestRenderFind(t *testing.T) {
	items := []search.Found{{Rel: "src/a.go"}, {Rel: "main.go"}, {Rel: "src/sub", IsDir: true}, {Rel: "doc/x.md"}}
	cases := []struct {
		name string
		f    findings
		want string
	}{
		{"grouped", findings{items: items, scopes: []string{"**/*"}, limit: 10, timeout: time.Second},
			"main.go\n\n# src/\na.go\nsub/\n\n# doc/\nx.md\n"},
		{"limit", findings{items: items, limit: 1, timeout: time.Second},
			"# src/\na.go\n\nShowing the 1 newest of 4 matches; raise limit (max 200) or narrow the pattern.\n"},
		{"none", findings{missing: []string{"gone"}, limit: 10, timeout: time.Second},
			"No files found matching pattern\nSkipped missing paths: gone\n"},
		{"timed out", findings{items: items[1:2], timedOut: true, limit: 10, timeout: 2 * time.Second},
			"main.go\n\nfind timed out after 2s; returning 1 partial matches — increase timeout or narrow pattern\n"},
	}
	for _, c := range cases {
		res := renderFind(&c.f)
		if res.Text != c.want {
			t.Errorf("%s: text\n%q\nwant\n%q", c.name, res.Text, c.want)
		}
		d := res.Details.(*findDetails)
		if c.f.timedOut != d.TimedOut || (c.f.timedOut && !d.Truncated) {
			t.Errorf("%s: details %+v", c.name, d)
		}
	}
}

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
			"No matches on this page: skip=4 is past the last of the 2 matching files. Leave skip out (or pass skip=0) to see them from the first; skip=1 shows the last.\nSkipped missing paths: gone\n"},
		{"just past the end", page(searchOutcome{skip: 2},
			searchDetails{TotalFiles: 2}),
			"No matches on this page: skip=2 is past the last of the 2 matching files. Leave skip out (or pass skip=0) to see them from the first; skip=1 shows the last.\n"},
		{"past the only file", page(searchOutcome{skip: 1},
			searchDetails{TotalFiles: 1}),
			"No matches on this page: skip=1 is past the only matching file. Leave skip out (or pass skip=0) to see it.\n"},
		{"last page", page(searchOutcome{text: "¶b.go#ABCD\n1:x\n", skip: 1, pageFiles: 1},
			searchDetails{FileCount: 1, TotalFiles: 2, TotalMatches: 2}),
			"¶b.go#ABCD\n1:x\n\nShowing files 2-2 of 2.\n"},
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

// TestApplyPatchResult renders apply_patch's summary from plain file
// entries, without a patch or a commit: added, then modified, then deleted.
func TestApplyPatchResult(t *testing.T) {
	files := []applyPatchFile{
		{Path: "gone.txt", Op: "delete", TrashIDs: []int64{7}},
		{Path: "b.go", Op: "update", Tag: "BBBB", Diff: "--- a/b.go\n+++ b/b.go\n@@ -1 +1 @@\n-x\n+y\n", MovedFrom: "a.go"},
		{Path: "new.txt", Op: "add", Tag: "CCCC", Diff: "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+1\n+2\n"},
		{Path: "same.go", Op: "update", Tag: "DDDD", Unchanged: true},
	}
	want := "Success. Applied the patch: 1 added, 2 modified, 1 deleted.\n" +
		"¶new.txt#CCCC\nA new.txt: new file; 2 lines\n" +
		"¶b.go#BBBB\nM b.go: moved from a.go; +1 -1 lines\n" +
		"¶same.go#DDDD\nM same.go: unchanged (the chunks change nothing)\n" +
		"D gone.txt: deleted; old content in trash #7"
	if got := applyPatchResult(files).Text; got != want {
		t.Errorf("text\n%s\nwant\n%s", got, want)
	}
}

// TestReadFileText renders read_file's header and content from details.
func TestReadFileText(t *testing.T) {
	cases := []struct {
		d    readFileDetails
		want string
	}{
		{readFileDetails{Path: "e.txt", SHA256: "s", Tag: "T"}, "e.txt (sha256 s, tag T, empty file)\n"},
		{readFileDetails{Path: "a.txt", SHA256: "s", Tag: "T", TotalLines: 9, StartLine: 2, EndLine: 3, Content: "b\nc\n"},
			"a.txt (sha256 s, tag T, lines 2-3 of 9)\nb\nc\n"},
		{readFileDetails{Path: "a.txt", SHA256: "s", Tag: "T", TotalLines: 9, StartLine: 1, EndLine: 2, Truncated: true, NextStartLine: 3, Content: "a\nb\n"},
			"a.txt (sha256 s, tag T, lines 1-2 of 9, truncated at 4 bytes: continue with startLine 3)\na\nb\n"},
	}
	for _, c := range cases {
		if got := readFileText(&c.d, 4); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// TestListDirectoryText renders list_directory's listing from details.
func TestListDirectoryText(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	d := &listDirectoryDetails{Path: "src", TotalEntries: 3, Depth: 2, Truncated: true, Entries: []dirEntry{
		{Path: "src/a.go", Kind: "file", Size: 2048, ModTime: at, Overlay: true},
		{Path: "src/sub", Kind: "directory"},
	}}
	want := "src/ (3 entries, depth 2)\n  a.go  2.0KB  2026-01-02 03:04:05  (open in the editor)\n  sub/\n" +
		"[Showing 2 of 3 entries; raise maxEntries (at most 10000), lower depth or list a subdirectory.]\n"
	if got := listDirectoryText(d); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
