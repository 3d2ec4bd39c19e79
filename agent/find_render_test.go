package agent

import (
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
